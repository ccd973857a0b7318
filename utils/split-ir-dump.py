#!/usr/bin/env python3
"""Splits the output of --mlir-print-ir-after-all into one file per pass.

Usage: split-ir-dump.py DUMP DIR

Each "// -----// IR Dump After Name (flag) //----- //" section is written
to DIR/<flag>.mlir (without trailing blank lines), so that a test can feed
the IR after one pass to gplace-opt and compare with the IR after another.
"""
import os
import re
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__)
dump, directory = sys.argv[1], sys.argv[2]
os.makedirs(directory, exist_ok=True)
marker = re.compile(r"^// -----// IR Dump After \S+ \((\S+)\) //----- //$")
sections, current = {}, None
with open(dump) as f:
    for line in f:
        match = marker.match(line.rstrip("\n"))
        if match:
            current = sections.setdefault(match.group(1), [])
            current.clear()
        elif current is not None:
            current.append(line)
if not sections:
    sys.exit(f"split-ir-dump.py: no IR dump in {dump}")
for flag, lines in sections.items():
    with open(os.path.join(directory, flag + ".mlir"), "w") as f:
        f.write("".join(lines).rstrip("\n") + "\n")
