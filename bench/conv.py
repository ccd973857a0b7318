#!/usr/bin/env python3
"""gplace-run's convolutions against oneDNN called directly, in one run.

For each layer of the seeds' conv_net at batch 128 (conv 5x5x1->32 on 28x28,
conv 3x3x32->64 on 12x12; VALID, stride 1) and each of conv2d,
conv2d_backprop_input and conv2d_backprop_filter: a gplace program of that
one op on constant inputs, run by gplace-run (--print-timing), against
gplace-bench-conv (bench/conv_onednn.cpp), which runs the same oneDNN
primitive on the same shapes with its filter reordered once, outside the
timing. A sample on either side is one process's median of --runs runs
after one untimed run (gplace-run's --print-timing "median"): on a 2-vCPU
VM, in about two processes of three, on both sides, the first few
executions of a convolution after the untimed one ran 6-12x slower
(13, 8.5, 16 ms against 1.3 ms), which a mean of 20 runs carries and a
median leaves out. The sides alternate (runtime.interleave) after one
untimed sample each. Ratios are oneDNN's time over gplace-run's, best over
best and median over median (1.0: gplace adds nothing).

Usage: bench/conv.py [--build build] [--repeat 5] [--runs 20]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from runtime import best_median, interleave  # noqa: E402

MEDIAN = re.compile(r"median ([0-9.]+) ms")


def gplace_sample(cmd, runs):
    """One process's median run after the first, in seconds."""
    done = subprocess.run(cmd + [f"--iterations={1 + runs}", "--print-timing"],
                          check=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    match = MEDIAN.search(done.stderr)
    if not match:
        sys.exit(f"no median in gplace-run's timing: {done.stderr}")
    return float(match.group(1)) / 1e3


def onednn_sample(cmd):
    """gplace-bench-conv's median run after its first, in seconds."""
    out = subprocess.run(cmd, check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[1])

LAYERS = [("conv 5x5, 1->32, 28x28", (128, 28, 28, 1, 5, 5, 32)),
          ("conv 3x3, 32->64, 12x12", (128, 12, 12, 32, 3, 3, 64))]
KINDS = [("forward", "fwd"), ("backprop input", "bwd_data"),
         ("backprop filter", "bwd_weights")]


def program(kind, n, h, w, c, kh, kw, o):
    """One op on constants (0.01 the activations, 0.02 the filter or the
    gradient), as conv_onednn.cpp fills its buffers, returning one element
    of its result: a result the function returns is new memory in every run
    (the caller keeps it), whose page faults would be timed too, while the
    op's own result stays in the plan's memory, as the baseline reuses its
    buffer."""
    t = lambda *dims: f"tensor<{'x'.join(map(str, dims))}xf32>"
    x, f, y = t(n, h, w, c), t(kh, kw, c, o), t(n, h - kh + 1, w - kw + 1, o)
    window = 'strides = [1, 1, 1, 1] padding = "VALID"'
    if kind == "fwd":
        a, b, op, result = (x, 0.01), (f, 0.02), "conv2d", y
    elif kind == "bwd_data":
        a, b, op, result = (f, 0.02), (y, 0.02), "conv2d_backprop_input", x
    else:
        a, b, op, result = (x, 0.01), (y, 0.02), "conv2d_backprop_filter", f
    one = "tensor<1x1x1x1xf32>"
    return (f"func.func @main() -> {one} {{\n"
            f"  %a = gplace.constant dense<{a[1]}> : {a[0]}\n"
            f"  %b = gplace.constant dense<{b[1]}> : {b[0]}\n"
            f"  %r = gplace.{op} %a, %b {window} : {a[0]}, {b[0]} -> "
            f"{result}\n"
            f"  %s = gplace.slice %r begin = [0, 0, 0, 0] size = [1, 1, 1, 1]"
            f" : {result} -> {one}\n"
            f"  return %s : {one}\n}}\n")


def measure(build, repeat, runs):
    run = os.path.join(build, "bin", "gplace-run")
    baseline = os.path.join(build, "bin", "gplace-bench-conv")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for layer, shape in LAYERS:
            n, h, w, c, kh, kw, o = shape
            flops = 2.0 * n * (h - kh + 1) * (w - kw + 1) * o * kh * kw * c
            for name, kind in KINDS:
                path = os.path.join(tmp, f"{kind}.mlir")
                with open(path, "w") as f:
                    f.write(program(kind, *shape))
                gplace, onednn = interleave([
                    lambda: gplace_sample(
                        [run, path, "--output=@" + os.devnull], runs),
                    lambda: onednn_sample(
                        [baseline, kind, *map(str, shape), str(runs)]),
                ], repeat)
                g, d = best_median(gplace), best_median(onednn)
                rows.append((f"{layer}, batch {n}: {name}",
                             f"{g[0] * 1e3:.3f} / {g[1] * 1e3:.3f} ms "
                             f"({flops / g[0] / 1e9:.0f} GFLOP/s at best)",
                             f"{d[0] * 1e3:.3f} / {d[1] * 1e3:.3f} ms "
                             f"({flops / d[0] / 1e9:.0f} GFLOP/s at best)",
                             f"{d[0] / g[0]:.2f} / {d[1] / g[1]:.2f}",
                             "≥ 0.9"))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    rows = measure(args.build, args.repeat, args.runs)
    print(f"Best and median of {args.repeat} samples on each side, each "
          f"one process's median of {args.runs} runs.\n")
    print("| benchmark | gplace-run (best / median) | oneDNN directly "
          "(best / median) | ratio oneDNN / gplace-run (best / median) | "
          "goal |")
    print("|---|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {' | '.join(row)} |")


if __name__ == "__main__":
    main()
