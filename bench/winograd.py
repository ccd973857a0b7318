#!/usr/bin/env python3
"""Winograd against the direct convolution, per layer shape, in one run.

gplace-run lets oneDNN run Winograd's F(4x4, 3x3) for a forward 3x3
convolution (stride 1, no dilation or groups) with a constant filter where
oneDNN's own heuristic (convolution_auto) picks it and the input has at
least 16 channels (lib/Runtime/DnnlKernels.cpp, docs/runtime.md). This
measures that rule: for each shape N x C -> O on HxW (SAME padding, bias,
relu), an ONNX model of that one Conv with constant weights, run by
gplace-run with GPLACE_ENABLE_WINOGRAD=all (Winograd wherever oneDNN picks
it), =0 (always direct) and unset (the rule), in turn. A sample is the
median over --runs executions of the convolution primitive's own time as
ONEDNN_VERBOSE reports it (reorders of the activations into and out of the
blocked layout are separate primitives, left out on all sides; with 1 to 16
input channels they are a few percent of the direct kernel). Each figure is
the best and the median of --repeat samples. Needs Debian's python3-onnx
and numpy (/usr/bin/python3).

Usage: bench/winograd.py [--build build] [--repeat 3] [--runs 30]
                         [--shapes 64x1x8x28,...]   (N x C x O x HW)
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from runtime import best_median, interleave  # noqa: E402

SHAPES = ("64x1x8x28,64x8x16x14,128x1x32x28,64x3x64x56,64x16x16x28,"
          "64x16x32x14,64x32x16x14,64x32x32x14,128x32x64x12,32x64x64x28,"
          "32x128x128x14,8x256x256x14,1x64x64x56")
SETTINGS = (("all", "Winograd where oneDNN picks it"), ("0", "direct"),
            (None, "gplace's rule"))


def write_model(path, n, c, o, hw):
    """One Conv 3x3 (SAME, bias) and a Relu, weights constant."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(
        (rng.random((o, c, 3, 3), dtype=np.float32) - 0.5), "w")
    b = numpy_helper.from_array(rng.random(o, dtype=np.float32), "b")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"])], "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, c, hw, hw])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, o, hw, hw])],
        [w, b])
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    np.save(path + ".x.npy", rng.random((n, c, hw, hw), dtype=np.float32))


def sample(run, model, setting, runs):
    """(median seconds of the convolution primitive, its implementation)."""
    env = dict(os.environ, ONEDNN_VERBOSE="1")
    env.pop("GPLACE_ENABLE_WINOGRAD", None)
    if setting is not None:
        env["GPLACE_ENABLE_WINOGRAD"] = setting
    out = subprocess.run([run, model, f"--input=@{model}.x.npy",
                          f"--iterations={1 + runs}", "--output=@/dev/null"],
                         check=True, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    rows = [line.split(",") for line in out.splitlines()
            if line.startswith("onednn_verbose,exec,cpu,convolution,")]
    if len(rows) < 1 + runs:
        sys.exit(f"{model}: {len(rows)} convolutions for {1 + runs} runs")
    times = [float(row[-1]) for row in rows[-runs:]]
    return statistics.median(times) * 1e-3, rows[-1][4]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--shapes", default=SHAPES)
    args = parser.parse_args()
    run = os.path.join(args.build, "bin", "gplace-run")
    print("Per shape (batch x input channels -> output channels, HxW): the "
          "convolution primitive's time, best / median of the samples, ms.\n")
    print("| shape | " + " | ".join(f"{label} (ms)" for _, label in SETTINGS)
          + " | Winograd / direct (best / median) | rule / best of the two "
          "(median) |")
    print("|---|" + "---:|" * (len(SETTINGS) + 2))
    with tempfile.TemporaryDirectory() as tmp:
        for spec in args.shapes.split(","):
            n, c, o, hw = (int(v) for v in spec.split("x"))
            model = os.path.join(tmp, f"conv{spec}.onnx")
            write_model(model, n, c, o, hw)
            samples = interleave(
                [lambda s=s: sample(run, model, s, args.runs)
                 for s, _ in SETTINGS], args.repeat)
            stats = [best_median([t for t, _ in side]) for side in samples]
            impls = [side[-1][1] for side in samples]
            cells = [f"{b * 1e3:.3f} / {m * 1e3:.3f} ({impl})"
                     for (b, m), impl in zip(stats, impls)]
            (wb, wm), (db, dm), (_, rm) = stats
            print(f"| {n}x{c}->{o}, {hw}x{hw} | " + " | ".join(cells) +
                  f" | {wb / db:.2f} / {wm / dm:.2f} | "
                  f"{rm / min(wm, dm):.2f} |")


if __name__ == "__main__":
    main()
