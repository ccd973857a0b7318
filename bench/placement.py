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

With --malloc-peer, a fourth side runs the passes without --verify-each
under jemalloc's default options (MALLOC_CONF overrides the ones gplace-opt
is linked with, tools/common/CompilerMallocConf.c: transparent huge pages,
freed pages kept), and a second table compares the two: the passes' own
time, page faults (the kernel's minor faults of the process) and peak
resident memory. The peer is the same binary, so nothing else differs.

Usage: bench/placement.py [--build build] [--sizes 10000,100000,1000000]
                          [--pipeline] [--repeat 3] [--malloc-peer]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from runtime import best_median, interleave  # noqa: E402

DEVICES = "devices=cpu:1,gpu:4"
# jemalloc 5.3's own defaults for the options CompilerMallocConf.c sets.
JEMALLOC_DEFAULTS = \
    "thp:default,metadata_thp:disabled,dirty_decay_ms:10000,muzzy_decay_ms:0"


def timed(cmd, env=None, usage=None):
    """Wall time of one run of `cmd` (with `env` added to the environment),
    and its --mlir-timing report (name -> seconds; empty without
    --mlir-timing). With a list `usage`, appends the run's (minor page
    faults, peak resident KiB) to it."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, **(env or {})))
    stderr = proc.stderr.read()
    _, status, rusage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, cmd,
                                            stderr=stderr)
    if usage is not None:
        usage.append((rusage.ru_minflt, rusage.ru_maxrss))
    return elapsed, {m.group(2): float(m.group(1)) for m in re.finditer(
        r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(\w+)$", stderr, re.M)}


def own_passes(report):
    """The passes' own seconds in a --mlir-timing report."""
    return sum(t for name, t in report.items() if name.endswith("Pass"))


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


def scale(opt, sizes, repeat, pipeline, malloc_peer=False):
    """Per size: (ops, parse+print (best, median) s, with passes (best,
    median) s, passes s and --mlir-timing report of the fastest run with
    passes, with passes and --verify-each=false (best, median) s, (floor
    with --verify-each, floor without) s, and with `malloc_peer` the
    allocator comparison: {side: (passes' own s per run, (minor faults,
    peak KiB) per run)} for sides "linked" and "defaults", else None). No
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
            fast = [opt, path, flag, "-o", os.devnull, "--verify-each=false",
                    "--mlir-timing"]
            usage = {"linked": [], "defaults": []}
            samplers = [
                lambda: timed([opt, path, "-o", os.devnull]),
                lambda: timed([opt, path, flag, "-o", os.devnull,
                               "--mlir-timing"]),
                lambda: timed(fast, usage=usage["linked"]),
            ]
            if malloc_peer:
                samplers.append(lambda: timed(
                    fast, {"MALLOC_CONF": JEMALLOC_DEFAULTS},
                    usage["defaults"]))
            base, total, unverified, *peer = interleave(samplers, repeat,
                                                        warmup=False)
            _, report = min(total, key=lambda run: run[0])
            allocator = None
            if malloc_peer:
                allocator = {
                    "linked": ([own_passes(r) for _, r in unverified],
                               usage["linked"]),
                    "defaults": ([own_passes(r) for _, r in peer[0]],
                                 usage["defaults"])}
            rows.append((ops, best_median([t for t, _ in base]),
                         best_median([t for t, _ in total]),
                         own_passes(report), report,
                         best_median([t for t, _ in unverified]),
                         floors([r for _, r in total],
                                [r for _, r in unverified]), allocator))
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
    for ops, (bb, bm), (tb, tm), passes, _, (ub, um), (fv, fu), _ in rows:
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


def allocator_table(rows):
    """The --malloc-peer comparison: per size and side, the passes' own time
    without --verify-each (best / median s, µs per op of the median), minor
    page faults and peak resident MiB (medians), and the ratio of the
    medians' times (defaults over linked: above 1, the linked options are
    faster)."""
    lines = ["\njemalloc's options: as gplace-opt is linked (CompilerMallocConf"
             ".c) and jemalloc's defaults (MALLOC_CONF=" + JEMALLOC_DEFAULTS +
             "); passes without --verify-each; best / median of the runs.\n",
             "| ops | options | passes (s) | µs per op (median) | "
             "page faults (median) | peak RSS (MiB, median) | "
             "defaults / linked (best / median) |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for ops, *_, allocator in rows:
        if not allocator:
            continue
        stats = {}
        for side in ("linked", "defaults"):
            times, usage = allocator[side]
            best, median = best_median(times)
            faults = statistics.median(f for f, _ in usage)
            rss = statistics.median(r for _, r in usage) / 1024
            stats[side] = (best, median)
            ratio = ""
            if side == "defaults":
                (lb, lm), (db, dm) = stats["linked"], stats["defaults"]
                ratio = f"{db / lb:.2f} / {dm / lm:.2f}"
            lines.append(f"| {ops} | {side} | {best:.3f} / {median:.3f} | "
                         f"{median / ops * 1e6:.2f} | {faults:.0f} | "
                         f"{rss:.0f} | {ratio} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pipeline", action="store_true")
    parser.add_argument("--malloc-peer", action="store_true",
                        help="also run the passes under jemalloc's default "
                        "options and compare")
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "gplace-opt")
    rows = scale(opt, [int(s) for s in args.sizes.split(",")], args.repeat,
                 args.pipeline, args.malloc_peer)
    print(table(rows, args.pipeline))
    if args.malloc_peer:
        print(allocator_table(rows))


if __name__ == "__main__":
    main()
