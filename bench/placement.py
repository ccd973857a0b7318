#!/usr/bin/env python3
"""Compile time at scale: the time of `gplace-opt --gplace-place` (or, with
--pipeline, `--gplace-pipeline`, every pass down to the plan) against the
time gplace-opt needs just to parse, verify and print the same file, on
synthetic graphs of 10k, 100k and 1M ops (bench/gen_graph.py). Both are
measured side by side in one run (best of --repeat runs each); the passes'
own times come from MLIR's --mlir-timing. Prints a Markdown table.

Usage: bench/placement.py [--build build] [--sizes 10000,100000,1000000]
                          [--pipeline] [--repeat 3]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICES = "devices=cpu:1,gpu:4"


def best_time(cmd, repeat):
    """Best wall time of `cmd`, and the best --mlir-timing report (name ->
    seconds) among its runs, by total."""
    best, report = float("inf"), {}
    for _ in range(repeat):
        start = time.perf_counter()
        run = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        elapsed = time.perf_counter() - start
        if elapsed < best:
            best = elapsed
            report = {m.group(2): float(m.group(1)) for m in re.finditer(
                r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(\w+)$", run.stderr, re.M)}
    return best, report


def scale(opt, sizes, repeat, pipeline):
    """Per size: (ops, parse+print s, with-passes s, passes s, timing report
    of the run with passes)."""
    flag = f"--gplace-pipeline={DEVICES}" if pipeline else \
        f"--gplace-place={DEVICES}"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            path = os.path.join(tmp, f"graph{size}.mlir")
            with open(path, "w") as f:
                subprocess.run([sys.executable,
                                os.path.join(HERE, "gen_graph.py"), str(size)],
                               check=True, stdout=f)
            with open(path) as f:
                ops = sum(1 for line in f if "gplace." in line)
            base, _ = best_time([opt, path, "-o", os.devnull], repeat)
            total, report = best_time(
                [opt, path, flag, "-o", os.devnull, "--mlir-timing"], repeat)
            passes = sum(t for name, t in report.items()
                         if name.endswith("Pass"))
            rows.append((ops, base, total, passes, report))
            os.remove(path)
    return rows


def table(rows, pipeline):
    what = "pipeline" if pipeline else "place"
    lines = [f"| ops | parse+print (s) | parse+{what}+print (s) | ratio | "
             "passes (s) | passes µs per op |",
             "|---:|---:|---:|---:|---:|---:|"]
    for ops, base, total, passes, _ in rows:
        lines.append(f"| {ops} | {base:.3f} | {total:.3f} | "
                     f"{total / base:.2f} | {passes:.3f} | "
                     f"{passes / ops * 1e6:.2f} |")
    if len(rows) >= 2:
        (n0, b0, p0, t0, _), (n1, b1, p1, t1, _) = rows[-2], rows[-1]
        lines.append("")
        lines.append(f"Growth from {n0} to {n1} ops ({n1 / n0:.0f}x): the "
                     f"passes {t1 / t0:.1f}x, parse+print {b1 / b0:.1f}x, "
                     f"parse+{what}+print {p1 / p0:.1f}x "
                     f"(linear is {n1 / n0:.0f}).")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pipeline", action="store_true")
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "gplace-opt")
    rows = scale(opt, [int(s) for s in args.sizes.split(",")], args.repeat,
                 args.pipeline)
    print(table(rows, args.pipeline))


if __name__ == "__main__":
    main()
