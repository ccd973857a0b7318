#!/usr/bin/env python3
"""gplace-run against PyTorch (eager, CUDA) on one GPU, side by side.

For a GPU machine that has PyTorch but no MLIR; gplace-run is the
self-contained build (docs/gpu.md). Four cases, each a gplace program here
and the same computation in PyTorch, on the same input:

  chain  a chain of --ops tiny elementwise adds (4 floats) on GPU:0: us per
         op; gplace-run with one launch per op (--gpu-fusion=false) and
         fused, PyTorch eager (one launch per op);
  mlp    a 3-layer MLP, relu(h @ W + b), --width wide, batch --batch, f32,
         weights resident on the GPU on both sides (gplace constants,
         PyTorch CUDA tensors): ms per run, the input copied in from pinned
         host memory and the result copied out to it on both sides.

  train  examples/train_fashion_mnist.mlir's @train (784-256-128-10 ReLU
         MLP, sparse softmax cross-entropy, Adam, batch 128) for --epochs
         epochs of a synthetic data set of --samples uint8 images (the same
         bytes on both sides): ms per step, each step's batch copied in
         from host memory on both sides; gplace-run with CUDA graphs (its
         default) and with --cuda-graphs=off; PyTorch eager and PyTorch
         with torch.cuda.graphs (Adam(capturable=True), static input
         buffers, one replay per step). gplace-run's step returns the loss
         to the host (the run ends with a synchronisation); PyTorch's steps
         are synchronised once per epoch, which favours PyTorch. Per-step
         times: an epoch's time over its steps, the best epoch and the
         median epoch of each side.
  cnn    the same comparison for examples/train_fashion_mnist_cnn.mlir's
         @train (the seeds' conv_net: conv 5x5x32 VALID + ReLU, max-pool
         2x2, conv 3x3x64 VALID + ReLU, max-pool 2x2, dense 1024 + ReLU,
         dropout 0.25, dense 10; Adam, batch 128; NHWC in gplace, NCHW
         torch.nn.Conv2d/MaxPool2d/Dropout in PyTorch, train mode) on
         --cnn-samples images (its step is slower than the MLP's), with the
         same --epochs. Both sides compute in strict f32: gplace-run's
         default (no --gpu-allow-tf32), and PyTorch with
         torch.backends.cudnn.allow_tf32 off (its default allows TF32
         convolutions); cuDNN's algorithms come from its heuristics on
         both sides (torch.backends.cudnn.benchmark off, its default).

Before timing, the MLP's results are compared (max |difference| <= 1e-4 *
(max |value| + 1)). gplace-run's time is the best run after the first
(--print-timing); PyTorch's the best of --runs after warm-up, each ended
by torch.cuda.synchronize(). Ratios: PyTorch's time over gplace-run's.

Usage: bench/torch_gpu.py path/to/gplace-run [--ops 10000] [--runs 21]
                          [--cases chain,mlp,train,cnn] [--epochs 3]
                          [--samples 128000] [--cnn-samples 128000]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import statistics

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import gplace_timing  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")
# Each training case: its example (@init, @train on 128x28x28 uint8 images
# and 128 uint8 labels) and the name of its rows.
NETWORKS = {
    "mlp": (os.path.join(EXAMPLES, "train_fashion_mnist.mlir"), "MLP"),
    "cnn": (os.path.join(EXAMPLES, "train_fashion_mnist_cnn.mlir"), "CNN"),
}


def gplace_best(run, program, runs, *flags):
    """The best run after the first, in seconds, and stdout."""
    timing, out, _ = gplace_timing([run, program, f"--iterations={runs}",
                                    "--print-timing", *flags])
    return timing.best, out


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


def gplace_epochs(run, example, images, labels, epochs, *flags):
    """Seconds per step of each epoch of the example's @train, from
    gplace-run's per-epoch lines (its log goes to stderr)."""
    out = subprocess.run([run, example, "--entry=train", "--init=init",
                          f"--input=@{images}", f"--input=@{labels}",
                          f"--epochs={epochs}", "--log-device-placement",
                          *flags], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"gplace-run failed:\n{out.stdout}{out.stderr[-4000:]}")
    per_step = [float(m.group(3)) / int(m.group(1)) for m in re.finditer(
        r"^epoch \d+/\d+: .*\((\d+) steps of (\d+), ([0-9.]+) s\)$",
        out.stdout, re.MULTILINE)]
    if len(per_step) != epochs:
        sys.exit(f"expected {epochs} epoch lines:\n{out.stdout}")
    graphs = re.search(r"^CUDA graphs: .*$", out.stderr, re.MULTILINE)
    print(out.stdout.strip(), file=sys.stderr)
    print("\n".join(line for line in out.stderr.splitlines()
                    if "GPU" in line and "device:" not in line),
          file=sys.stderr)
    print(graphs.group(0) if graphs else "(no CUDA graphs line)",
          file=sys.stderr)
    return per_step


def torch_model(network):
    """The network of NETWORKS[network] in PyTorch (Keras's layers' PyTorch
    counterparts; initial values do not matter for the time) and the shape
    of one image as it takes it."""
    nn = torch.nn
    if network == "mlp":
        return nn.Sequential(
            nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
            nn.Linear(128, 10)), (784,)
    # The seeds' conv_net, NCHW; padding 0 is "VALID".
    return nn.Sequential(
        nn.Conv2d(1, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(1600, 1024), nn.ReLU(), nn.Dropout(0.25),
        nn.Linear(1024, 10)), (1, 28, 28)


def torch_epochs(network, images, labels, epochs, graphs):
    """Seconds per step of each epoch of the same network in PyTorch, in
    train mode (dropout on)."""
    torch.manual_seed(0)
    model, shape = torch_model(network)
    model = model.cuda().train()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001, eps=1e-7,
                                 capturable=graphs)
    batch = 128
    steps = images.shape[0] // batch
    host_x = torch.from_numpy(images).pin_memory()
    host_y = torch.from_numpy(labels).pin_memory()
    loss_fn = torch.nn.CrossEntropyLoss()

    def compute(x, y):
        h = x.reshape(batch, *shape).float() * (1.0 / 255.0)
        loss = loss_fn(model(h), y.long())
        loss.backward()
        optimizer.step()
        return loss

    if graphs:
        static_x = torch.empty((batch, 28, 28), dtype=torch.uint8,
                               device="cuda")
        static_y = torch.empty((batch,), dtype=torch.uint8, device="cuda")
        static_x.copy_(host_x[:batch])
        static_y.copy_(host_y[:batch])
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                optimizer.zero_grad(set_to_none=True)
                compute(static_x, static_y)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        optimizer.zero_grad(set_to_none=True)
        with torch.cuda.graph(graph):
            static_loss = compute(static_x, static_y)

        def step(i):
            static_x.copy_(host_x[i * batch:(i + 1) * batch],
                           non_blocking=True)
            static_y.copy_(host_y[i * batch:(i + 1) * batch],
                           non_blocking=True)
            graph.replay()
            return static_loss
    else:
        def step(i):
            x = host_x[i * batch:(i + 1) * batch].to("cuda", non_blocking=True)
            y = host_y[i * batch:(i + 1) * batch].to("cuda", non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            return compute(x, y)

    for i in range(3):
        step(i)
    torch.cuda.synchronize()
    per_step = []
    for _ in range(epochs):
        t0 = time.perf_counter()
        for i in range(steps):
            loss = step(i)
        torch.cuda.synchronize()
        per_step.append((time.perf_counter() - t0) / steps)
    print(f"PyTorch {network} {'graphs' if graphs else 'eager'}: last loss "
          f"{float(loss.detach()):.4f}", file=sys.stderr)
    return per_step


def train(run, tmp, network, epochs, samples):
    """Rows for NETWORKS[network]'s training step on both sides."""
    example, title = NETWORKS[network]
    rng = np.random.default_rng(3)
    images = rng.integers(0, 256, (samples, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, (samples,), dtype=np.uint8)
    images_path = os.path.join(tmp, f"{network}-images.npy")
    labels_path = os.path.join(tmp, f"{network}-labels.npy")
    np.save(images_path, images)
    np.save(labels_path, labels)
    ours = gplace_epochs(run, example, images_path, labels_path, epochs)
    ours_off = gplace_epochs(run, example, images_path, labels_path, epochs,
                             "--cuda-graphs=off")
    eager = torch_epochs(network, images, labels, epochs, graphs=False)
    graphed = torch_epochs(network, images, labels, epochs, graphs=True)

    def cell(times):
        return (f"{min(times) * 1e3:.3f} / "
                f"{statistics.median(times) * 1e3:.3f} ms")
    rows = []
    for name, mine in (("CUDA graphs", ours), ("--cuda-graphs=off", ours_off)):
        for peer, theirs in (("eager", eager), ("torch.cuda.graphs", graphed)):
            rows.append((f"{title} training step, batch 128, gplace-run "
                         f"{name} vs PyTorch {peer} (best / median)",
                         cell(mine), cell(theirs),
                         f"{min(theirs) / min(mine):.2f} / "
                         f"{statistics.median(theirs) / statistics.median(mine):.2f}"))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gplace_run")
    parser.add_argument("--ops", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--cases", default="chain,mlp,train,cnn")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=128000)
    parser.add_argument("--cnn-samples", type=int, default=128 * 1000)
    args = parser.parse_args()
    # Strict f32 convolutions, as gplace-run's default.
    torch.backends.cudnn.allow_tf32 = False
    cases = args.cases.split(",")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if "chain" in cases:
            rows += chain(args.gplace_run, tmp, args.ops, args.runs)
        if "mlp" in cases:
            rows += mlp(args.gplace_run, tmp, args.batch, args.width,
                        args.layers, args.runs)
        if "train" in cases:
            rows += train(args.gplace_run, tmp, "mlp", args.epochs,
                          args.samples)
        if "cnn" in cases:
            rows += train(args.gplace_run, tmp, "cnn", args.epochs,
                          args.cnn_samples)
    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name()}")
    print("| benchmark | gplace-run | PyTorch eager | ratio |")
    print("|---|---:|---:|---:|")
    for name, ours, theirs, ratio in rows:
        ratio = ratio if isinstance(ratio, str) else f"{ratio:.2f}"
        print(f"| {name} | {ours} | {theirs} | {ratio} |")


if __name__ == "__main__":
    main()
