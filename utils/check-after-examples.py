#!/usr/bin/env python3
"""Checks that each "after" example of a pass page is what the pass makes
of the "before" example above it.

Usage: check-after-examples.py PASS_OUTPUT PARSED

Both files are `gplace-opt -split-input-file` outputs of the page's blocks
(utils/extract-mlir-blocks.py), split at `// -----`: PASS_OUTPUT through
the page's pass, PARSED through no pass. Blocks come in pairs (before,
after); the pass's output of each block of a pair must print as the
"after" block itself does (the pass leaves an "after" as it is).
"""
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__)
passed, parsed = (open(path).read().split("// -----") for path in sys.argv[1:])
if len(passed) != len(parsed) or len(passed) % 2:
    sys.exit(f"{sys.argv[1]}: expected pairs of examples, got {len(passed)} "
             f"and {len(parsed)} blocks")
for before in range(0, len(passed), 2):
    after = parsed[before + 1].strip()
    for index in (before, before + 1):
        if passed[index].strip() != after:
            sys.exit(f"{sys.argv[1]}: block {index}: the pass's output is not "
                     f"the after example (block {before + 1})")
