#!/usr/bin/python3
"""Two gplace-run binaries on a loaded machine: small ONNX models and
concurrent trainings (issue 48, team sizing by work).

ONNX part: for each test directory of ONNX's backend test data
(`suite/test_name`, e.g. node/test_basic_conv_with_padding), --repeat
gplace-run processes per binary, the binaries in turn; each process runs
the model 1 + --runs times with --trace, and every run after the first is
a sample (the trace's `run` slice). Per binary: the median, best and 99th
percentile of the pooled samples, and the median of the processes'
medians.

Training part: the README's Fashion-MNIST MLP (examples/
train_fashion_mnist.mlir, --epochs, --shuffle=1), N processes started at
once for each N of --processes, the binaries in turn, --rounds times; the
wall time until all have finished.

--busy K starts K busy loops for the whole measurement (the machine's
other load comes on top). Prints Markdown tables. No assertions.

    bench/omp_team.py --bin before=/tmp/old/gplace-run \\
        --bin after=build/bin/gplace-run --busy 2 \\
        --test node/test_basic_conv_with_padding --processes 1,2,4
"""

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = "/usr/include/onnx/backend/test/data"
FASHION = "/usr/share/datasets/fashion-mnist"


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))]


def fmt(us):
    return f"{us / 1e3:.3f} ms" if us >= 1000 else f"{us:.1f} µs"


def run_times(cmd, trace):
    """The `run` slices (µs) of one process's runs after the first."""
    done = subprocess.run(cmd + [f"--trace={trace}"], capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {done.stderr[-400:]}")
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    return [e["dur"] for e in events
            if e.get("ph") == "X" and e.get("cat") == "run"
            and e.get("args", {}).get("run", 0) > 0]


def onnx_part(args, bins, work):
    trace = os.path.join(work, "trace.json")
    print(f"Load average {load()} at the start.\n")
    print("| test | binary | processes × runs | median | best | p99 | "
          "median of process medians |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for test in args.test:
        d = os.path.join(args.data, test)
        pbs = sorted(glob.glob(os.path.join(d, "test_data_set_0",
                                            "input_*.pb")),
                     key=lambda p: int(re.search(r"_(\d+)\.pb$", p).group(1)))
        samples = {name: [] for name, _ in bins}
        medians = {name: [] for name, _ in bins}
        for _ in range(args.repeat):
            for name, path in bins:
                cmd = [path, os.path.join(d, "model.onnx")] + [
                    f"--input=@{p}" for p in pbs] + [
                    f"--iterations={1 + args.runs}"]
                try:
                    times = run_times(cmd, trace)
                except RuntimeError as e:
                    print(f"{test} ({name}): {e}", file=sys.stderr)
                    continue
                samples[name] += times
                medians[name].append(statistics.median(times))
        for name, _ in bins:
            s = samples[name]
            if not s:
                continue
            print(f"| {test} | {name} | {len(medians[name])} × {args.runs} "
                  f"| {fmt(statistics.median(s))} | {fmt(min(s))} | "
                  f"{fmt(percentile(s, 99))} | "
                  f"{fmt(statistics.median(medians[name]))} |", flush=True)
    print(f"\nLoad average {load()} at the end.\n")


def training_part(args, bins):
    print(f"Load average {load()} at the start.\n")
    print("| processes at once | binary | wall times (s) | median | best |")
    print("|---:|---|---|---:|---:|")
    for n in [int(x) for x in args.processes.split(",") if x]:
        walls = {name: [] for name, _ in bins}
        for _ in range(args.rounds):
            for name, path in bins:
                cmd = [path,
                       os.path.join(ROOT, "examples/train_fashion_mnist.mlir"),
                       "--entry=train", "--init=init",
                       f"--input=@{FASHION}/train-images-idx3-ubyte.gz",
                       f"--input=@{FASHION}/train-labels-idx1-ubyte.gz",
                       f"--epochs={args.epochs}", "--shuffle=1"]
                start = time.perf_counter()
                procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
                         for _ in range(n)]
                if any(p.wait() != 0 for p in procs):
                    sys.exit(f"training failed: {' '.join(cmd)}")
                walls[name].append(time.perf_counter() - start)
        for name, _ in bins:
            w = walls[name]
            print(f"| {n} | {name} | {', '.join(f'{x:.2f}' for x in w)} | "
                  f"{statistics.median(w):.2f} | {min(w):.2f} |", flush=True)
    print(f"\nLoad average {load()} at the end.\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", action="append", required=True,
                        help="NAME=PATH of a gplace-run (twice or more)")
    parser.add_argument("--test", action="append", default=[],
                        help="suite/test_name under --data")
    parser.add_argument("--data", default=DATA)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--processes", default="",
                        help="training: comma-separated process counts")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--busy", type=int, default=0)
    args = parser.parse_args()
    bins = [tuple(b.split("=", 1)) for b in args.bin]
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(args.busy)]
    try:
        with tempfile.TemporaryDirectory(prefix="gplace-omp-team-") as work:
            if args.test:
                onnx_part(args, bins, work)
            if args.processes:
                training_part(args, bins)
    finally:
        for p in busy:
            p.kill()
            p.wait()


if __name__ == "__main__":
    main()
