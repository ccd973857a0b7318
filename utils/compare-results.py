#!/usr/bin/env python3
"""Compares two gplace-run outputs (result[i]: TYPE=VALUES lines) number by
number with a tolerance: |a - b| <= atol + rtol * |b|. Prints the first
difference and exits 1 if they differ, else prints "N results match".

Usage: compare-results.py A.txt B.txt [--rtol=1e-5] [--atol=1e-6]
"""
import math
import re
import sys

NUMBER = re.compile(r"-?(?:inf|nan|[0-9.]+(?:e[-+]?[0-9]+)?)|true|false")


def parse(path):
    results = []
    with open(path) as f:
        for line in f:
            if not line.startswith("result["):
                continue
            head, values = line.split("=", 1)
            results.append((head.strip(), NUMBER.findall(values)))
    return results


def main(argv):
    files = [a for a in argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=") for a in argv[1:] if a.startswith("--"))
    rtol, atol = float(opts.get("rtol", 1e-5)), float(opts.get("atol", 1e-6))
    a, b = parse(files[0]), parse(files[1])
    if len(a) != len(b) or not a:
        sys.exit(f"different result counts: {len(a)} and {len(b)}")
    for (head_a, xs), (head_b, ys) in zip(a, b):
        if head_a != head_b or len(xs) != len(ys):
            sys.exit(f"{head_a} and {head_b} differ in type or size")
        for i, (x, y) in enumerate(zip(xs, ys)):
            if x == y:
                continue
            fx, fy = float(x), float(y)
            if math.isnan(fx) and math.isnan(fy):
                continue
            if abs(fx - fy) > atol + rtol * abs(fy):
                sys.exit(f"{head_a} element {i}: {x} != {y}")
    print(f"{len(a)} results match")


if __name__ == "__main__":
    main(sys.argv)
