#!/usr/bin/env python3
"""cuDNN in NHWC against NCHW: which layout the GPU's convolutions prefer.

For a GPU machine with a self-contained gplace-run (docs/gpu.md). For each
layer of the seeds' conv_net at batch 128 (conv 5x5 1->32 on 28x28, conv
3x3 32->64 on 12x12, VALID), one graph on /gpu:0 that runs the layer's
training work: conv2d, conv2d_backprop_input (not for the first layer,
whose input needs no gradient) and conv2d_backprop_filter, in NHWC and in
NCHW (data_format), in f32 and with --gpu-allow-tf32. A sample is one
gplace-run process's best and median run over --runs runs after the first
(--print-timing). The ratio is NHWC's time over NCHW's: above 1, NCHW is
faster (docs/passes/layout.md uses this to choose the GPU's layout).

Usage: bench/gpu_layout.py path/to/gplace-run [--runs 51]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

LAYERS = [  # name, batch, height, width, in, out, kernel, backprop input
    ("conv 5x5, 1->32, 28x28", 128, 28, 28, 1, 32, 5, False),
    ("conv 3x3, 32->64, 12x12", 128, 12, 12, 32, 64, 3, True),
]


def graph(layer, nchw):
    _, n, h, w, c, k, r, data = layer
    oh, ow = h - r + 1, w - r + 1
    shape = (lambda hh, ww, cc: f"{n}x{cc}x{hh}x{ww}" if nchw
             else f"{n}x{hh}x{ww}x{cc}")
    x, y = f"tensor<{shape(h, w, c)}xf32>", f"tensor<{shape(oh, ow, k)}xf32>"
    f = f"tensor<{r}x{r}x{c}x{k}xf32>"
    attrs = ' {data_format = "NCHW", device = "/gpu:0"}' if nchw else \
        ' {device = "/gpu:0"}'
    strides = "[1, 1, 1, 1]"
    lines = [
        f"func.func @main() -> (tensor<1xf32>, tensor<1xf32>) {{",
        f'  %s = gplace.constant dense<[1, 2]> : tensor<2xi64>',
        f'  %x = gplace.stateless_random_uniform %s {{device = "/gpu:0"}} : tensor<2xi64> -> {x}',
        f'  %w = gplace.stateless_random_uniform %s {{device = "/gpu:0"}} : tensor<2xi64> -> {f}',
        f'  %y = gplace.conv2d %x, %w strides = {strides} padding = "VALID"{attrs} : {x}, {f} -> {y}',
        f'  %dw = gplace.conv2d_backprop_filter %x, %y strides = {strides} padding = "VALID"{attrs} : {x}, {y} -> {f}',
    ]
    last = "%dw"
    if data:
        lines.append(f'  %dx = gplace.conv2d_backprop_input %w, %y strides = {strides} padding = "VALID"{attrs} : {f}, {y} -> {x}')
    total = r * r * c * k
    lines.append(f'  %fw = gplace.reshape %dw {{device = "/gpu:0"}} : {f} -> tensor<{total}xf32>')
    lines.append(f'  %a = gplace.slice %fw begin = [0] size = [1] {{device = "/gpu:0"}} : tensor<{total}xf32> -> tensor<1xf32>')
    if data:
        size = n * h * w * c
        lines.append(f'  %fx = gplace.reshape %dx {{device = "/gpu:0"}} : {x} -> tensor<{size}xf32>')
        lines.append(f'  %b = gplace.slice %fx begin = [0] size = [1] {{device = "/gpu:0"}} : tensor<{size}xf32> -> tensor<1xf32>')
    else:
        lines.append('  %b = gplace.identity %a {device = "/gpu:0"} : tensor<1xf32>')
    lines += ["  return %a, %b : tensor<1xf32>, tensor<1xf32>", "}", ""]
    return "\n".join(lines)


def timing(run, path, runs, flags):
    out = subprocess.run([run, path, f"--iterations={runs + 1}",
                          "--print-timing", *flags],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"gplace-run failed on {path}:\n{out.stderr[-3000:]}")
    best = float(re.search(r"best ([0-9.]+) ms", out.stderr).group(1))
    median = float(re.search(r"median ([0-9.]+) ms", out.stderr).group(1))
    return best, median


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gplace_run")
    parser.add_argument("--runs", type=int, default=51)
    args = parser.parse_args()
    print("| layer, batch 128 (conv, its filter's gradient, its input's) | "
          "math | NHWC best / median | NCHW best / median | NHWC / NCHW |")
    print("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for layer in LAYERS:
            for math, flags in (("f32", []), ("TF32", ["--gpu-allow-tf32"])):
                times = []
                for nchw in (False, True):
                    path = os.path.join(tmp, f"{'nchw' if nchw else 'nhwc'}.mlir")
                    with open(path, "w") as f:
                        f.write(graph(layer, nchw))
                    times.append(timing(args.gplace_run, path, args.runs,
                                        flags))
                (hb, hm), (cb, cm) = times
                print(f"| {layer[0]} | {math} | {hb:.3f} / {hm:.3f} ms | "
                      f"{cb:.3f} / {cm:.3f} ms | {hb / cb:.2f} / "
                      f"{hm / cm:.2f} |")


if __name__ == "__main__":
    main()
