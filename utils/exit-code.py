#!/usr/bin/env python3
"""Runs a command and fails unless it exits with the expected code.

Usage: exit-code.py CODE COMMAND [ARG...]

The command's output passes through; lit tests use this to check the exit
codes gplace-run gives each kind of failure (docs/gplace-run.md).
"""
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
expected = int(sys.argv[1])
code = subprocess.run(sys.argv[2:]).returncode
if code != expected:
    print(f"exit-code.py: {sys.argv[2]} exited with {code}, expected {expected}",
          file=sys.stderr)
    sys.exit(1)
