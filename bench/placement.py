#!/usr/bin/env python3
"""Placement at scale: the time of `gplace-opt --gplace-place` against the time
gplace-opt needs just to parse, verify and print the same file, on synthetic
graphs of 10k, 100k and 1M ops (bench/gen_graph.py). Both are measured side
by side in one run (best of --repeat runs each); the pass's own time comes
from MLIR's --mlir-timing. Prints a Markdown table.

Usage: bench/placement.py [--build build] [--sizes 10000,100000,1000000]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def best_time(cmd, repeat):
    """Best wall time of `cmd`, and the best PlacePass time it reported."""
    best, best_pass = float("inf"), float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        best = min(best, time.perf_counter() - start)
        match = re.search(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+PlacePass$",
                          run.stderr, re.M)
        if match:
            best_pass = min(best_pass, float(match.group(1)))
    return best, best_pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "gplace-opt")
    place = "--gplace-place=devices=cpu:1,gpu:4"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in [int(s) for s in args.sizes.split(",")]:
            path = os.path.join(tmp, f"graph{size}.mlir")
            with open(path, "w") as f:
                subprocess.run([sys.executable, os.path.join(HERE, "gen_graph.py"),
                                str(size)], check=True, stdout=f)
            with open(path) as f:
                ops = sum(1 for line in f if "gplace." in line)
            base, _ = best_time([opt, path, "-o", os.devnull], args.repeat)
            placed, pass_time = best_time(
                [opt, path, place, "-o", os.devnull, "--mlir-timing"],
                args.repeat)
            rows.append((ops, base, placed, pass_time))
    print("| ops | parse+print (s) | parse+place+print (s) | ratio | "
          "--gplace-place pass (s) | pass µs per op |")
    print("|---:|---:|---:|---:|---:|---:|")
    for ops, base, placed, pass_time in rows:
        print(f"| {ops} | {base:.3f} | {placed:.3f} | {placed / base:.2f} | "
              f"{pass_time:.3f} | {pass_time / ops * 1e6:.2f} |")
    if len(rows) >= 2:
        (n0, b0, p0, t0), (n1, b1, p1, t1) = rows[-2], rows[-1]
        print(f"\nGrowth from {n0} to {n1} ops ({n1 / n0:.0f}x): the pass "
              f"{t1 / t0:.1f}x, parse+print {b1 / b0:.1f}x, "
              f"parse+place+print {p1 / p0:.1f}x (linear is {n1 / n0:.0f}).")


if __name__ == "__main__":
    main()
