#!/usr/bin/env python3
"""Memory: the peak memory the static plan gives each device against the
liveness lower bound of that peak (persistent bytes plus the most bytes of
intermediates live at one step in program order), from
`gplace-opt --gplace-pipeline=... --gplace-print-memory-plan` on the bench
graphs, multi-device ones included, and the seeds' training examples.
Deterministic: one run per graph.

Usage: bench/memory.py [--build build]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import peers  # noqa: E402
import runtime  # noqa: E402

LINE = re.compile(r"^Memory plan for (\S+): peak (\d+) bytes \(persistent "
                  r"(\d+), arena (\d+)\).*liveness lower bound (\d+) bytes "
                  r"\(arena (\d+)\)$", re.M)


def graphs():
    """(name, program text, --gplace-pipeline options) of each bench
    graph."""
    gen = os.path.join(HERE, "gen_graph.py")
    towers = subprocess.run([sys.executable, gen, "10000"], check=True,
                            capture_output=True, text=True).stdout
    with open(os.path.join(HERE, "..", "examples", "multi_tower.mlir")) as f:
        multi_tower = f.read()
    mlp = peers.mlp_program(256, 1024, 3)
    examples = os.path.join(HERE, "..", "examples")
    with open(os.path.join(examples, "train_fashion_mnist.mlir")) as f:
        train_mlp = f.read()
    with open(os.path.join(examples, "train_fashion_mnist_cnn.mlir")) as f:
        train_cnn = f.read()
    return [
        ("bench/gen_graph.py 10000 ops", towers, "cpu:1,gpu:4"),
        ("bench/gen_graph.py 10000 ops (soft placement)", towers,
         "cpu:1,gpu:2 allow-soft-placement=true"),
        ("examples/multi_tower.mlir", multi_tower, "cpu:1,gpu:4"),
        ("3-layer MLP 256x1024", mlp, "cpu:1,gpu:1"),
        ("3-layer MLP 256x1024", mlp, "cpu:1"),
        ("elementwise chain, 1000 ops", runtime.chain(1000), "cpu:1,gpu:2"),
        # Training: the seeds' MLP and conv_net, each module's @init, @train
        # and @evaluate (batch of 10,000) programs.
        ("examples/train_fashion_mnist.mlir", train_mlp, "cpu:1"),
        ("examples/train_fashion_mnist.mlir", train_mlp,
         "cpu:1,gpu:4 replicas=4"),
        ("examples/train_fashion_mnist_cnn.mlir", train_cnn, "cpu:1"),
        ("examples/train_fashion_mnist_cnn.mlir", train_cnn, "cpu:1,gpu:1"),
        ("examples/train_fashion_mnist_cnn.mlir", train_cnn,
         "cpu:1,gpu:4 replicas=4"),
    ]


def measure(build):
    """Per graph: (name, pipeline options, [(device, peak, bound, arena,
    arena bound)])."""
    opt = os.path.join(build, "bin", "gplace-opt")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, text, options in graphs():
            path = os.path.join(tmp, "graph.mlir")
            with open(path, "w") as f:
                f.write(text)
            run = subprocess.run(
                [opt, path, f"--gplace-pipeline=devices={options}",
                 "--gplace-print-memory-plan", "-o", os.devnull],
                check=True, capture_output=True, text=True)
            per_device = [(m.group(1).rsplit("/", 1)[-1], int(m.group(2)),
                           int(m.group(5)), int(m.group(4)), int(m.group(6)))
                          for m in LINE.finditer(run.stderr)]
            if not per_device:
                sys.exit(f"no memory plan printed for {name}:\n{run.stderr}")
            rows.append((name, options, per_device))
    return rows


def worst(per_device):
    """The device whose peak is furthest above its bound, as (device, peak,
    bound, ratio)."""
    device, peak, bound, _, _ = max(
        per_device, key=lambda d: d[1] / d[2] if d[2] else 1.0)
    return device, peak, bound, peak / bound if bound else 1.0


def table(rows):
    lines = ["| graph | pipeline options | per device: peak / lower bound (arena / "
             "arena bound), bytes | worst ratio |",
             "|---|---|---|---:|"]
    for name, devices, per_device in rows:
        cells = "; ".join(f"{d}: {p} / {b} ({a} / {ab})"
                          for d, p, b, a, ab in per_device)
        lines.append(f"| {name} | {devices} | {cells} | "
                     f"{worst(per_device)[3]:.3f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    args = parser.parse_args()
    print(table(measure(args.build)))


if __name__ == "__main__":
    main()
