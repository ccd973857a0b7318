#!/usr/bin/env python3
"""Keeps a generated section of a Markdown page equal to a tool's output.

The section lies between `<!-- BEGIN NAME: how it is made -->` and
`<!-- END NAME -->` lines; the text between them is exactly the contents of
GENERATED.

Usage:
  generated-section.py PAGE.md NAME GENERATED          # check: exit 1 and a
                                                       # diff if they differ
  generated-section.py PAGE.md NAME GENERATED --write  # replace the section
"""
import difflib
import os
import sys
import tempfile


def main():
    args = sys.argv[1:]
    write = "--write" in args
    args = [a for a in args if a != "--write"]
    if len(args) != 3:
        sys.exit(__doc__)
    page, name, generated = args
    lines = open(page, encoding="utf-8").read().splitlines(keepends=True)
    begin = [i for i, l in enumerate(lines)
             if l.startswith(f"<!-- BEGIN {name}:") or
             l.startswith(f"<!-- BEGIN {name} ")]
    end = [i for i, l in enumerate(lines) if l.startswith(f"<!-- END {name} ")]
    if len(begin) != 1 or len(end) != 1 or end[0] < begin[0]:
        sys.exit(f"{page}: expected one <!-- BEGIN {name} ... --> line "
                 f"followed by one <!-- END {name} --> line")
    current = lines[begin[0] + 1:end[0]]
    wanted = open(generated, encoding="utf-8").read().splitlines(keepends=True)
    if write:
        text = "".join(lines[:begin[0] + 1] + wanted + lines[end[0]:])
        directory = os.path.dirname(os.path.abspath(page))
        with tempfile.NamedTemporaryFile("w", dir=directory, delete=False,
                                         encoding="utf-8") as out:
            out.write(text)
        os.replace(out.name, page)
        return 0
    if current != wanted:
        sys.stdout.writelines(difflib.unified_diff(
            current, wanted, f"{page} (section {name})", generated))
        print(f"{page}: the {name} section is not the tool's output; "
              f"rewrite it with: {sys.argv[0]} {page} {name} {generated} "
              "--write")
        return 1
    print(f"{page}: the {name} section matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
