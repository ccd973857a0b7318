#!/usr/bin/env python3
"""Training step: gplace-run's CPU training step against its GEMMs alone.

examples/train_fashion_mnist.mlir's @train (784-256-128-10 ReLU MLP, one
Adam step on a batch of 128) run for --epochs epochs of Fashion-MNIST by
gplace-run, against the 8 GEMMs of the same step called directly through
OpenBLAS's cblas_sgemm (bench/train_gemms.cpp, gplace-bench-train-gemms):
the step's forward matmuls, its kernels' gradients and the inputs' gradients
of layers 2 and 3, and nothing else. The ratio gplace / GEMMs is what the
rest of the step (casting the batch, bias, ReLU, softmax cross-entropy,
their gradients, Adam, the executor) costs on top of the GEMMs; the goal is
at most 1.3.

A gplace sample is one epoch: its time from gplace-run's per-epoch line
(which includes filling each batch from the data set) over its steps; every
epoch counts, the first included (its first step, the only one that warms
up, is 1 of 468). A GEMM sample is one gplace-bench-train-gemms process's
mean step over --runs steps (default 468, an epoch's worth) after one
untimed step. The GEMMs take one untimed sample, then half their samples
before the gplace-run process and half after, so that a drift of the
machine's state reaches both sides. Both sides' figures are the median and
the best of their samples, compared median with median and best with best;
the best single step on each side (gplace-run's --print-timing, the
baseline's second line) is given apart.

Usage: bench/train.py [--epochs 3] [--gplace-run build/bin/gplace-run]
                      [--baseline build/bin/gplace-bench-train-gemms]
                      [--runs 468] [--data /usr/share/datasets/fashion-mnist]
"""
import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys

from benchenv import (command_output, cpu_model, env_variables, gplace_matmul,
                      loaded_blas, train_batch_size)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLE = os.path.join(ROOT, "examples", "train_fashion_mnist.mlir")
# Environment variables OpenBLAS reads for its core type and thread count.
BLAS_ENV = ["OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
            "GOTO_NUM_THREADS"]
# The MLP's layer widths (examples/train_fashion_mnist.mlir).
LAYERS = [784, 256, 128, 10]


def gemm_sample(baseline, batch, runs):
    """(mean, best single) seconds per step of one baseline process."""
    out = subprocess.run([baseline, str(batch), str(runs)], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def gplace_epochs(run, data, epochs, batch):
    """Seconds per step of each epoch, and gplace-run's best single step
    (--print-timing, over every step after the first)."""
    cmd = [run, EXAMPLE, "--entry=train", "--init=init",
           "--input=@" + os.path.join(data, "train-images-idx3-ubyte.gz"),
           "--input=@" + os.path.join(data, "train-labels-idx1-ubyte.gz"),
           f"--epochs={epochs}", "--print-timing"]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    per_step = []
    for match in re.finditer(r"^epoch \d+/\d+: .*\((\d+) steps of (\d+), "
                             r"([0-9.]+) s\)$", done.stdout, re.MULTILINE):
        steps, of, seconds = (int(match.group(1)), int(match.group(2)),
                              float(match.group(3)))
        if of != batch:
            sys.exit(f"gplace-run's batches are of {of}, not {batch}")
        per_step.append(seconds / steps)
    if len(per_step) != epochs:
        sys.exit(f"expected {epochs} epoch lines from gplace-run:\n"
                 f"{done.stdout}{done.stderr}")
    timing = re.search(r"best ([0-9.]+) ms", done.stderr)
    best_step = float(timing.group(1)) / 1e3 if timing else None
    return per_step, best_step, steps


def ms(seconds):
    return f"{seconds * 1e3:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--gplace-run",
                        default=os.path.join(ROOT, "build", "bin",
                                             "gplace-run"))
    parser.add_argument("--baseline",
                        default=os.path.join(ROOT, "build", "bin",
                                             "gplace-bench-train-gemms"))
    parser.add_argument("--runs", type=int, default=468,
                        help="steps per GEMM sample (default: an epoch's)")
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    args = parser.parse_args()
    if args.epochs < 1 or args.runs < 1:
        sys.exit("--epochs and --runs must be positive")
    batch = train_batch_size(EXAMPLE)

    # Environment, before anything runs (the load average).
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    config = command_output([args.baseline, "--config"]).splitlines()
    config += ["unknown"] * (3 - len(config))
    run_blas, baseline_blas = (loaded_blas(args.gplace_run),
                               loaded_blas(args.baseline))
    variables = env_variables(BLAS_ENV)

    # Samples: GEMMs (one untimed, then half), gplace-run, GEMMs (the rest).
    gemm_sample(args.baseline, batch, args.runs)
    before = (args.epochs + 1) // 2
    gemms = [gemm_sample(args.baseline, batch, args.runs)
             for _ in range(before)]
    gplace, gplace_best_step, steps = gplace_epochs(
        args.gplace_run, args.data, args.epochs, batch)
    gemms += [gemm_sample(args.baseline, batch, args.runs)
              for _ in range(args.epochs - before)]
    gemm_means = [mean for mean, _ in gemms]
    gemm_best_step = min(best for _, best in gemms)
    g_median, g_best = statistics.median(gplace), min(gplace)
    b_median, b_best = statistics.median(gemm_means), min(gemm_means)
    flops = 2.0 * batch * (2 * sum(a * b for a, b in zip(LAYERS, LAYERS[1:]))
                           + sum(a * b for a, b in zip(LAYERS[1:-1],
                                                       LAYERS[2:])))

    print(f"# Training step — {datetime.date.today().isoformat()}\n")
    print("## Environment\n")
    print(f"- CPU: {cpu_model()}; `nproc` {command_output(['nproc'])}, "
          f"{len(os.sched_getaffinity(0))} usable by this process; load "
          f"average {load} at the start")
    print(f"- Matmul of gplace-run: {gplace_matmul(args.gplace_run)}")
    print(f"- BLAS of gplace-run: {run_blas}")
    print("- BLAS of the baseline: " +
          ("the same" if baseline_blas == run_blas else baseline_blas) +
          f"; `openblas_get_config()`: {config[0]}; core type "
          f"(`openblas_get_corename()`): **{config[1]}**; threads "
          f"(`openblas_get_num_threads()`): **{config[2]}** (from "
          "`baseline --config`)")
    print(f"- Environment variables: {variables}\n")
    print("## Results\n")
    print(f"Command: `bench/train.py --epochs {args.epochs} --runs "
          f"{args.runs}`, gplace-run `{args.gplace_run}`, baseline "
          f"`{args.baseline}`.\n")
    print(f"gplace: a sample is one epoch of {steps} steps of {batch} "
          f"(its time over its steps; all {args.epochs} epochs of one "
          "gplace-run process, none excluded). GEMMs alone: a sample is one "
          f"baseline process's mean step over {args.runs} steps after one "
          f"untimed step; {args.epochs} samples, after one untimed sample, "
          f"{before} before the gplace-run process and "
          f"{args.epochs - before} after. Ratios are gplace over GEMMs, "
          "median over median and best over best (lower is better).\n")
    print("| benchmark | gplace step (median / best) | GEMMs alone, "
          "`cblas_sgemm` (median / best) | ratio gplace / GEMMs "
          "(median / best) | goal |")
    print("|---|---:|---:|---:|---:|")
    print(f"| training step, MLP 784-256-128-10, batch {batch}, Adam | "
          f"{ms(g_median)} / {ms(g_best)} ms | {ms(b_median)} / {ms(b_best)} "
          f"ms ({flops / b_best / 1e9:.0f} GFLOP/s at best) | "
          f"{g_median / b_median:.2f} / {g_best / b_best:.2f} | ≤ 1.3 |")
    if gplace_best_step is not None:
        print(f"| best single step | {ms(gplace_best_step)} ms | "
              f"{ms(gemm_best_step)} ms | "
              f"{gplace_best_step / gemm_best_step:.2f} | |")
    print(f"\nSamples (ms per step): gplace "
          f"{', '.join(ms(s) for s in gplace)}; GEMMs "
          f"{', '.join(ms(s) for s in gemm_means)}. One step's GEMMs: "
          f"{flops / 1e6:.1f} MFLOP.")


if __name__ == "__main__":
    main()
