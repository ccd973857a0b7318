#!/usr/bin/env python3
"""Compile time at scale: the time of `gplace-opt --gplace-place` (or, with
--pipeline, `--gplace-pipeline`, every pass down to the plan) against the
time gplace-opt needs just to parse, verify and print the same file, on
synthetic graphs of 10k, 100k and 1M ops (bench/gen_graph.py). The passes
run twice: as gplace-opt runs them by default, the IR verified after every
pass (MLIR's --verify-each, on in mlir-opt and gplace-run), and with
--verify-each=false, the IR verified after parsing only (a release
compiler's setting; the pipeline ends with --gplace-verify-plan either
way). All sides are measured in one run: --repeat processes each, taken in
turn (parse+print, passes, passes without verifier, parse+print, ...), and
each time is the best and the median of its side's wall times. The passes'
own times come from MLIR's --mlir-timing (of the fastest run with passes).

The lower bound ("floor") is what the passes could not go below if they
took no time at all: parsing and printing (the printer verifies the plan
first) plus MLIR's verifier after each pass, the latter the sum over passes
of their time with --verify-each less their time without (each at least 0).
Every term is the least over the runs (--mlir-timing), and process start
and reading the file are left out, so the floor errs low. Without
--verify-each the floor is parsing plus printing alone.
Prints a Markdown table.

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
sys.path.insert(0, HERE)
from runtime import best_median, interleave  # noqa: E402

DEVICES = "devices=cpu:1,gpu:4"


def timed(cmd):
    """Wall time of one run of `cmd`, and its --mlir-timing report (name ->
    seconds; empty without --mlir-timing)."""
    start = time.perf_counter()
    run = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    return elapsed, {m.group(2): float(m.group(1)) for m in re.finditer(
        r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(\w+)$", run.stderr, re.M)}


def floors(verified, unverified):
    """(floor with --verify-each, floor without) in seconds, from the
    --mlir-timing reports (name -> s) of the runs with --verify-each and of
    those without: see the module's comment."""
    def least(reports, name):
        return min(report.get(name, 0.0) for report in reports)
    both = verified + unverified
    io = least(both, "Parser") + least(both, "Output")
    verifier = sum(max(0.0, least(verified, name) - least(unverified, name))
                   for name in verified[0] if name.endswith("Pass"))
    return io + verifier, io


def scale(opt, sizes, repeat, pipeline):
    """Per size: (ops, parse+print (best, median) s, with passes (best,
    median) s, passes s and --mlir-timing report of the fastest run with
    passes, with passes and --verify-each=false (best, median) s, (floor
    with --verify-each, floor without) s). No
    untimed warm-up: every run is a new process reading a file just written
    (so in the page cache), and one at 1M ops takes a minute."""
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
            base, total, unverified = interleave([
                lambda: timed([opt, path, "-o", os.devnull]),
                lambda: timed([opt, path, flag, "-o", os.devnull,
                               "--mlir-timing"]),
                lambda: timed([opt, path, flag, "-o", os.devnull,
                               "--verify-each=false", "--mlir-timing"]),
            ], repeat, warmup=False)
            _, report = min(total, key=lambda run: run[0])
            passes = sum(t for name, t in report.items()
                         if name.endswith("Pass"))
            rows.append((ops, best_median([t for t, _ in base]),
                         best_median([t for t, _ in total]), passes, report,
                         best_median([t for t, _ in unverified]),
                         floors([r for _, r in total],
                                [r for _, r in unverified])))
            os.remove(path)
    return rows


def table(rows, pipeline):
    what = "pipeline" if pipeline else "place"
    lines = ["Times and ratios: best / median of the runs.\n",
             f"| ops | parse+print (s) | parse+{what}+print (s) | ratio | "
             "without --verify-each (s) | ratio | passes (s, fastest run) | "
             "passes µs per op | floor: no pass time (s, ratio) | "
             "floor without --verify-each (s, ratio) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for ops, (bb, bm), (tb, tm), passes, _, (ub, um), (fv, fu) in rows:
        lines.append(f"| {ops} | {bb:.3f} / {bm:.3f} | {tb:.3f} / {tm:.3f} | "
                     f"{tb / bb:.2f} / {tm / bm:.2f} | {ub:.3f} / {um:.3f} | "
                     f"{ub / bb:.2f} / {um / bm:.2f} | {passes:.3f} | "
                     f"{passes / ops * 1e6:.2f} | {fv:.3f}, {fv / bb:.2f} | "
                     f"{fu:.3f}, {fu / bb:.2f} |")
    if len(rows) >= 2:
        (n0, b0, p0, t0, *_), (n1, b1, p1, t1, *_) = rows[-2], rows[-1]
        lines.append("")
        lines.append(f"Growth from {n0} to {n1} ops ({n1 / n0:.0f}x), best / "
                     f"median: the passes {t1 / t0:.1f}x (fastest runs), "
                     f"parse+print {b1[0] / b0[0]:.1f}x / {b1[1] / b0[1]:.1f}x, "
                     f"parse+{what}+print {p1[0] / p0[0]:.1f}x / "
                     f"{p1[1] / p0[1]:.1f}x (linear is {n1 / n0:.0f}).")
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
