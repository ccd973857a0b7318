#!/usr/bin/env python3
"""Replicated training's test accuracy against one device, over data orders.

R2-4/8's acceptance: examples/train_fashion_mnist.mlir trained with
`--replicas=4` on emulated GPUs reaches the test accuracy of one device
within 0.5 points. The replicas compute the single-device update, but in
another summation order, so f32 rounding makes the two runs drift apart
over thousands of Adam steps and one pair of runs differs by up to about a
point either way (README, "On several GPUs"). This script trains the MLP
for --epochs epochs with each of --seeds data orders (`--shuffle=S`, the
same for every configuration of a seed): on one emulated GPU, and with
`--emulate-gpus=4 --replicas=4` for each --modes (`mirrored`: the
runtime's collective all-reduce; `ring`: `--all-reduce=ring`; `host`:
`--replica-variables=host`), evaluates each checkpoint on the 10,000 test
images and prints every accuracy, each configuration's mean, and the mean
difference from one device with its spread over the seeds (paired by
seed). The goal is on the means.

Usage: bench/replicate_accuracy.py [--gplace-run build/bin/gplace-run]
                                   [--seeds 1,2,3,4,5] [--epochs 10]
                                   [--modes mirrored,ring,host]
                                   [--data /usr/share/datasets/fashion-mnist]
The report (Markdown) goes to stdout, progress to stderr.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from benchenv import checkout_state, cpu_model, env_variables

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLE = os.path.join(ROOT, "examples", "train_fashion_mnist.mlir")
RESULT = re.compile(r"^result\[0\]: f32=([0-9.eE+-]+)$", re.MULTILINE)
MODES = {
    "mirrored": [],
    "ring": ["--all-reduce=ring"],
    "host": ["--replica-variables=host"],
}


def accuracy(run, data, flags, seed, epochs, tmp):
    """Trains with `flags` and data order `seed`, evaluates on the test
    set; returns the test accuracy."""
    ckpt = os.path.join(tmp, "model.npz")
    subprocess.run(
        [run, EXAMPLE, "--entry=train", "--init=init", *flags,
         f"--input=@{data}/train-images-idx3-ubyte.gz",
         f"--input=@{data}/train-labels-idx1-ubyte.gz",
         f"--epochs={epochs}", f"--shuffle={seed}", f"--save={ckpt}"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = subprocess.run(
        [run, EXAMPLE, "--entry=evaluate", f"--restore={ckpt}",
         f"--input=@{data}/t10k-images-idx3-ubyte.gz",
         f"--input=@{data}/t10k-labels-idx1-ubyte.gz"],
        check=True, capture_output=True, text=True).stdout
    match = RESULT.search(out)
    if not match:
        sys.exit(f"no accuracy in @evaluate's output: {out}")
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gplace-run",
                        default=os.path.join(ROOT, "build", "bin",
                                             "gplace-run"))
    parser.add_argument("--seeds", default="1,2,3,4,5")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--modes", default="mirrored,ring,host")
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    modes = args.modes.split(",")
    for mode in modes:
        if mode not in MODES:
            sys.exit(f"unknown mode '{mode}' (mirrored, ring, host)")
    configs = [("one device", ["--emulate-gpus=1"])]
    configs += [(f"4 replicas, {mode}",
                 ["--emulate-gpus=4", "--replicas=4", *MODES[mode]])
                for mode in modes]
    start = time.time()
    results = {name: [] for name, _ in configs}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            for name, flags in configs:
                print(f"seed {seed}: {name}", file=sys.stderr)
                results[name].append(
                    accuracy(args.gplace_run, args.data, flags, seed,
                             args.epochs, tmp))
    elapsed = time.time() - start

    print(f"# Replicated training's test accuracy — "
          f"{time.strftime('%Y-%m-%d')}\n")
    print("## Environment\n")
    print(f"- CPU: {cpu_model()}; {os.cpu_count()} vCPUs")
    commit, clean = checkout_state(ROOT)
    print(f"- gplace-run: {args.gplace_run}, the checkout at {commit}"
          f"{'' if clean else ' with uncommitted changes'}")
    print(f"- Environment variables: "
          f"{env_variables(['OPENBLAS_CORETYPE', 'OMP_NUM_THREADS'])}")
    print(f"- The run took {elapsed:.0f} s\n")
    print("## Results\n")
    print(f"Command: `bench/replicate_accuracy.py --seeds {args.seeds} "
          f"--epochs {args.epochs} --modes {args.modes}`. "
          f"examples/train_fashion_mnist.mlir, {args.epochs} epochs with "
          "`--shuffle=S` (S the seed), then @evaluate on the 10,000 test "
          "images. Differences are replicated minus one device, paired by "
          "seed, in points (1 point = 0.01).\n")
    header = "| configuration | " + " | ".join(
        f"seed {s}" for s in seeds) + " | mean | mean difference (min / max) | goal |"
    print(header)
    print("|---|" + "---:|" * (len(seeds) + 2) + "---|")
    base = results["one device"]
    for name, _ in configs:
        accs = results[name]
        cells = " | ".join(f"{a:.4f}" for a in accs)
        mean = statistics.mean(accs)
        if name == "one device":
            diff, goal = "", ""
        else:
            diffs = [100 * (a - b) for a, b in zip(accs, base)]
            diff = (f"{statistics.mean(diffs):+.2f} "
                    f"({min(diffs):+.2f} / {max(diffs):+.2f})")
            goal = "within ±0.5"
        print(f"| {name} | {cells} | {mean:.4f} | {diff} | {goal} |")


if __name__ == "__main__":
    main()
