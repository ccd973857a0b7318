#!/usr/bin/env python3
"""Prints the ```mlir code blocks of a Markdown file, separated by
`// -----`, for `gplace-opt -split-input-file`. Keeps docs/ examples tested.

Usage: extract-mlir-blocks.py FILE.md
Exits non-zero if the file has no such block or a block is not closed.
"""
import sys


def main(path):
    blocks, current = [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if current is None:
                if stripped == "```mlir":
                    current = [f"// {path}:{number}\n"]
            elif stripped == "```":
                blocks.append("".join(current))
                current = None
            else:
                current.append(line)
    if current is not None:
        sys.exit(f"{path}: unterminated ```mlir block")
    if not blocks:
        sys.exit(f"{path}: no ```mlir blocks")
    sys.stdout.write("\n// -----\n".join(blocks))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
