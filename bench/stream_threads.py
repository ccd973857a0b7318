#!/usr/bin/env python3
"""Two gplace-run binaries side by side on plans of several streams (every
plan with a GPU, emulated here), quiet and beside a busy loop: what the
adaptive intra-op thread count does where the kernels run on the executor's
pool threads (docs/runtime.md, "Threads").

  bench/stream_threads.py --before /tmp/before-run --after build/bin/gplace-run \
      [--rounds 5] [--write results/X.md]

Configurations, each one process of one epoch (per process: the best and
median of the steps after the first, from --print-timing):
  kept  the seeds' conv_net (examples/train_fashion_mnist_cnn.mlir) on one
        emulated GPU, Fashion-MNIST's 10,000 test images, batch 128;
  acc4  the same with --accumulate-steps=4 --in-place --early-updates (the
        memory-limited configuration of issue R3-6/7);
  mlp4  the README's MLP on 4 emulated GPUs with --replicas=4 (60,000
        training images).
Rounds interleave the binaries and configurations; over the rounds, best of
bests and median of medians.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

import benchenv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = "/usr/share/datasets/fashion-mnist"


def configs():
    cnn = [os.path.join(ROOT, "examples/train_fashion_mnist_cnn.mlir"),
           "--entry=train", "--init=init", "--emulate-gpus=1",
           f"--input=@{DATA}/t10k-images-idx3-ubyte.gz",
           f"--input=@{DATA}/t10k-labels-idx1-ubyte.gz", "--epochs=1"]
    mlp = [os.path.join(ROOT, "examples/train_fashion_mnist.mlir"),
           "--entry=train", "--init=init", "--emulate-gpus=4", "--replicas=4",
           f"--input=@{DATA}/train-images-idx3-ubyte.gz",
           f"--input=@{DATA}/train-labels-idx1-ubyte.gz", "--epochs=1",
           "--shuffle=1"]
    return [("kept", cnn), ("acc4", cnn + ["--accumulate-steps=4",
                                           "--in-place", "--early-updates"]),
            ("mlp4", mlp)]


def sample(binary, args):
    out = subprocess.run([binary] + args + ["--print-timing"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    match = re.search(r"best ([0-9.]+) ms, median ([0-9.]+) ms", out.stderr)
    if out.returncode != 0 or not match:
        sys.exit(f"{binary} failed: {out.stderr[-500:]}")
    return float(match.group(1)), float(match.group(2))


def measure(binaries, rounds):
    samples = {}
    for _ in range(rounds):
        for name, binary in binaries:
            for config, args in configs():
                samples.setdefault((config, name), []).append(
                    sample(binary, args))
    return samples


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", default=None)
    args = parser.parse_args()
    binaries = [("before", args.before), ("after", args.after)]
    lines = [f"- CPU: {benchenv.cpu_model()}, "
             f"{len(os.sched_getaffinity(0))} CPUs; "
             f"{benchenv.env_variables(['OMP_NUM_THREADS', 'OMP_WAIT_POLICY', 'OPENBLAS_CORETYPE'])}; "
             f"load {benchenv.load()} at the start; {args.rounds} rounds", "",
             "| load | config | before best / median (ms) | after best / "
             "median (ms) | after / before, median |",
             "|---|---|---:|---:|---:|"]
    for load in ("quiet", "busy loop"):
        spinner = None
        if load == "busy loop":
            spinner = subprocess.Popen(["sh", "-c", "while :; do :; done"])
        try:
            samples = measure(binaries, args.rounds)
        finally:
            if spinner:
                spinner.kill()
                spinner.wait()
        for config, _ in configs():
            row = []
            for name, _ in binaries:
                runs = samples[(config, name)]
                row.append((min(b for b, _ in runs),
                            statistics.median(m for _, m in runs)))
            lines.append(f"| {load} | {config} | {row[0][0]:.2f} / "
                         f"{row[0][1]:.2f} | {row[1][0]:.2f} / {row[1][1]:.2f}"
                         f" | {row[1][1] / row[0][1]:.2f} |")
    benchenv.emit("\n".join(lines) + "\n", args.write)


if __name__ == "__main__":
    main()
