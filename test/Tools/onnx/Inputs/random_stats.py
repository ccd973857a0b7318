#!/usr/bin/env python3
"""Checks the statistics of random draws in a float32 .npy file (C order).

Usage: random_stats.py DRAWS.npy --mean M --tolerance T [--std S]
                       [--low L --high H]
Prints one line per property, each ending in "ok" or "WRONG" (the values
then), and exits 1 if any is wrong: the mean within T of M, the standard
deviation within T of S, every value in [L, H).
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_npy import read  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("draws")
    parser.add_argument("--mean", type=float, required=True)
    parser.add_argument("--tolerance", type=float, required=True)
    parser.add_argument("--std", type=float)
    parser.add_argument("--low", type=float)
    parser.add_argument("--high", type=float)
    args = parser.parse_args()
    shape, values = read(args.draws)
    n = len(values)
    mean = sum(values) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    checks = [(f"mean of {n}", mean, abs(mean - args.mean) <= args.tolerance)]
    if args.std is not None:
        checks.append(("std", std, abs(std - args.std) <= args.tolerance))
    if args.low is not None:
        low, high = min(values), max(values)
        checks.append(("range", (low, high),
                       args.low <= low and high < args.high))
    wrong = False
    for name, value, ok in checks:
        print(f"{name}: {'ok' if ok else f'WRONG {value}'}")
        wrong |= not ok
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
