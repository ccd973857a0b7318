#!/usr/bin/env python3
"""gplace-run against PyTorch (eager, CUDA) on one GPU, side by side.

For a GPU machine that has PyTorch but no MLIR; gplace-run is the
self-contained build (docs/gpu.md). Two graphs, each a gplace program here
and the same computation in PyTorch, on the same input:

  chain  a chain of --ops tiny elementwise adds (4 floats) on GPU:0: us per
         op; gplace-run with one launch per op (--gpu-fusion=false) and
         fused, PyTorch eager (one launch per op);
  mlp    a 3-layer MLP, relu(h @ W + b), --width wide, batch --batch, f32,
         weights resident on the GPU on both sides (gplace constants,
         PyTorch CUDA tensors): ms per run, the input copied in from pinned
         host memory and the result copied out to it on both sides.

Before timing, the MLP's results are compared (max |difference| <= 1e-4 *
(max |value| + 1)). gplace-run's time is the best run after the first
(--print-timing); PyTorch's the best of --runs after warm-up, each ended
by torch.cuda.synchronize(). Ratios: PyTorch's time over gplace-run's.

Usage: bench/torch_gpu.py path/to/gplace-run [--ops 10000] [--runs 21]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch


def gplace_best(run, program, runs, *flags):
    """The best run after the first, in seconds, and stdout."""
    out = subprocess.run([run, program, f"--iterations={runs}",
                          "--print-timing", *flags],
                         capture_output=True, text=True, check=True)
    best = re.search(r"best ([0-9.]+) ms", out.stderr)
    return float(best.group(1)) / 1e3, out.stdout


def torch_best(step, runs):
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t0)
    return best


def chain(run, tmp, ops, runs):
    path = os.path.join(tmp, "chain.mlir")
    with open(path, "w") as f:
        f.write("func.func @main(%x0: tensor<4xf32>) -> tensor<4xf32> {\n")
        f.write('  %c = gplace.constant dense<1.0> : tensor<4xf32> '
                '{device = "/gpu:0"}\n')
        for i in range(1, ops + 1):
            f.write(f"  %x{i} = gplace.add %x{i - 1}, %c "
                    '{device = "/gpu:0"} : '
                    "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n")
        f.write(f"  return %x{ops} : tensor<4xf32>\n}}\n")
    inputs = "--input=4xf32=1,2,3,4"
    unfused, _ = gplace_best(run, path, runs, inputs, "--gpu-fusion=false")
    fused, _ = gplace_best(run, path, runs, inputs)
    x0 = torch.tensor([1.0, 2.0, 3.0, 4.0], device="cuda")
    c = torch.ones(4, device="cuda")

    def step():
        x = x0
        for _ in range(ops):
            x = x + c
        return x
    eager = torch_best(step, runs)
    per = lambda t: t / ops * 1e6
    return [(f"dispatch: {ops} elementwise adds, one launch each",
             f"{per(unfused):.2f} µs/op", f"{per(eager):.2f} µs/op",
             eager / unfused),
            ("same chain, gplace-run fused", f"{per(fused):.2f} µs/op",
             f"{per(eager):.2f} µs/op", eager / fused)]


def mlp(run, tmp, batch, width, layers, runs):
    x_t, w_t, b_t = (f"tensor<{batch}x{width}xf32>",
                     f"tensor<{width}x{width}xf32>", f"tensor<{width}xf32>")
    lines = [f"func.func @main(%h0: {x_t}) -> {x_t} {{"]
    for i in range(layers):
        lines += [
            f'  %w{i} = gplace.constant dense<0.01> : {w_t} {{device = "/gpu:0"}}',
            f'  %b{i} = gplace.constant dense<0.1> : {b_t} {{device = "/gpu:0"}}',
            f'  %m{i} = gplace.matmul %h{i}, %w{i} {{device = "/gpu:0"}} : '
            f"({x_t}, {w_t}) -> {x_t}",
            f'  %a{i} = gplace.bias_add %m{i}, %b{i} {{device = "/gpu:0"}} : '
            f"{x_t}, {b_t}",
            f'  %h{i + 1} = gplace.relu %a{i} {{device = "/gpu:0"}} : {x_t}']
    lines += [f"  return %h{layers} : {x_t}", "}"]
    path = os.path.join(tmp, "mlp.mlir")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    x = np.random.default_rng(7).uniform(-1, 1, (batch, width)).astype("<f4")
    np.save(os.path.join(tmp, "x.npy"), x)
    result = os.path.join(tmp, "result.npy")
    ours, _ = gplace_best(run, path, runs, f"--input=@{tmp}/x.npy",
                          f"--output=@{result}")

    w = torch.full((width, width), 0.01, device="cuda")
    b = torch.full((width,), 0.1, device="cuda")
    host_x = torch.from_numpy(x).pin_memory()
    host_out = torch.empty((batch, width)).pin_memory()

    def step():
        h = host_x.to("cuda", non_blocking=True)
        for _ in range(layers):
            h = torch.relu(torch.addmm(b, h, w))
        host_out.copy_(h, non_blocking=True)
    theirs = torch_best(step, runs)
    expected, got = host_out.numpy(), np.load(result)
    tolerance = 1e-4 * (np.abs(expected).max() + 1)
    difference = np.abs(expected - got).max()
    if difference > tolerance:
        sys.exit(f"MLP results differ: max |difference| {difference}")
    return [(f"MLP {layers}x{width}, batch {batch}, f32",
             f"{ours * 1e3:.3f} ms", f"{theirs * 1e3:.3f} ms", theirs / ours)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gplace_run")
    parser.add_argument("--ops", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = chain(args.gplace_run, tmp, args.ops, args.runs)
        rows += mlp(args.gplace_run, tmp, args.batch, args.width, args.layers,
                    args.runs)
    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name()}")
    print("| benchmark | gplace-run | PyTorch eager | ratio |")
    print("|---|---:|---:|---:|")
    for name, ours, theirs, ratio in rows:
        print(f"| {name} | {ours} | {theirs} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
