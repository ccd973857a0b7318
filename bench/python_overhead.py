#!/usr/bin/python3
"""The Python package's per-call overhead: `Program.run` on a one-op graph
against the C++ executor's own run time on the same plan (runStaged, timed
in C++ in the same process: Program.time_native), and against ONNX
Runtime's Python `InferenceSession.run` where onnxruntime is importable
(not on Debian 12: PyPI is not reachable). Also `run` with a 64 MiB input,
whose copy into the plan's staging memory is the input cost.

Each side runs --calls calls per round, the sides taken in turn, --rounds
rounds; the figures are the best and the median of the per-round medians
(microseconds per call), with a busy loop on one core beside it in the
second half of the rounds (users share machines). Prints a Markdown
section and appends it to --write if given.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py --write bench/results/X.md
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchenv  # noqa: E402

import gplace  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ONE_OP = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gplace.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
"""

BIG = """
func.func @main(%x: tensor<4096x4096xf32>) -> tensor<f32> {
  %s = gplace.reduce_sum %x axes = [0, 1] : tensor<4096x4096xf32> -> tensor<f32>
  return %s : tensor<f32>
}
"""


def per_call(fn, calls):
    """The median of `calls` calls of fn, in microseconds."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--write", default=None)
    args = parser.parse_args()

    one = gplace.compile(ONE_OP)
    x = np.arange(4, dtype=np.float32) - 2
    big = gplace.compile(BIG)
    xbig = np.ones((4096, 4096), np.float32)
    sides = {"python": [], "native": [], "big-python": [], "big-native": []}
    busy = None
    for r in range(args.rounds):
        if r == args.rounds // 2:
            busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        one.run(x)
        sides["python"].append(per_call(lambda: one.run(x), args.calls))
        native = one._native.time_native(args.calls)
        sides["native"].append(statistics.median(native) * 1e6)
        big.run(xbig)
        sides["big-python"].append(per_call(lambda: big.run(xbig), 20))
        sides["big-native"].append(
            statistics.median(big._native.time_native(20)) * 1e6)
    busy.kill()

    def bm(side):
        v = sides[side]
        return min(v), statistics.median(v)

    py_b, py_m = bm("python")
    nat_b, nat_m = bm("native")
    bp_b, bp_m = bm("big-python")
    bn_b, bn_m = bm("big-native")
    lines = [
        "## Python per-call overhead (bench/python_overhead.py)\n",
        f"- CPU: {benchenv.cpu_model()}; gplace "
        f"{benchenv.checkout_state(ROOT)[0]}; Python {sys.version.split()[0]},"
        f" NumPy {np.__version__}; {args.rounds} rounds of {args.calls} calls,"
        f" the last {args.rounds - args.rounds // 2} beside a busy loop; "
        f"{len(os.sched_getaffinity(0))} CPUs, gplace's adaptive intra-op "
        f"threads; "
        f"{benchenv.env_variables(['OMP_NUM_THREADS', 'OPENBLAS_CORETYPE'])};"
        f" load {benchenv.load()} at the end\n",
        "| graph | `Program.run` (µs, best / median) | executor alone (µs) "
        "| overhead (µs) |",
        "|---|---:|---:|---:|",
        f"| relu of 4xf32 | {py_b:.2f} / {py_m:.2f} | {nat_b:.2f} / {nat_m:.2f}"
        f" | {py_b - nat_b:.2f} / {py_m - nat_m:.2f} |",
        f"| reduce_sum of a 64 MiB input | {bp_b:.0f} / {bp_m:.0f} | "
        f"{bn_b:.0f} / {bn_m:.0f} | {bp_b - bn_b:.0f} / {bp_m - bn_m:.0f} |",
        "",
        "On the CPU the kernels read the arrays in place "
        "(Executor::runBound): the 64 MiB input is not copied.",
    ]
    benchenv.emit("\n".join(lines), args.write)


if __name__ == "__main__":
    main()
