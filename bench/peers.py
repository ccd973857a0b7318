#!/usr/bin/env python3
"""gplace-run against ONNX Runtime on the CPU, side by side in one run.

Four graphs, each written as a gplace program here and as an ONNX model by
bench/onnx/ort.mjs, run on the same inputs (.npy files written here):

  chain   a chain of --ops tiny elementwise ops (4 floats): µs per op;
  mlp     a 3-layer MLP, relu(h @ W + b), --width wide, batch --batch:
          ms per run (weights and biases are inputs on both sides; ONNX
          Runtime with constant initializers is reported beside it);
  matmul  an --n x --n x --n f32 matmul: ms per run;
  cnn     the seeds' conv_net (examples/train_fashion_mnist_cnn.mlir's
          @evaluate) at inference on a batch of --cnn-batch 28x28 images:
          ms per run (weights as inputs, and ONNX Runtime with constant
          initializers beside it). gplace-run runs it NHWC as written;
          ort.mjs gives ONNX Runtime the NCHW model an exporter would write.
          A third row runs gplace-run on that very .onnx file (constant
          initializers, NCHW: imported, made NHWC by --gplace-layout)
          against ONNX Runtime on it: one file read by both.

Before timing, ort.mjs checks that ONNX Runtime's result matches the one
gplace-run wrote (max |difference| <= 1e-4 * (max |value| + 1)); a mismatch
stops the run. Each time is the best and the median of --repeat samples per
side; a sample is one process's mean time per run over a batch of K runs,
after its untimed warm-up: gplace-run's --print-timing over 1 + K runs
(the first untimed; parsing, compiling and staging the inputs come before),
and ort.mjs's K session.run calls after session creation, a checked run and
3 more. The sides take their samples in turn (gplace-run, ONNX Runtime,
gplace-run, ...) after one untimed sample each, so that a drift of the
machine's state affects both alike. Ratios are ONNX Runtime's best over
gplace-run's best, and median over median.

Usage: bench/peers.py [--build build] [--repeat 5] [--cases cnn,...]
"""
import argparse
import array
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from runtime import best_median, chain, interleave, sample  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "write_npy", os.path.join(HERE, "..", "utils", "write-npy.py"))
_write_npy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_write_npy)

ORT_SCRIPT = os.path.join(HERE, "onnx", "ort.mjs")


def write_f32(path, shape, rng, scale):
    """Uniform values in [-scale, scale] as a little-endian f32 .npy file."""
    count = 1
    for d in shape:
        count *= d
    data = array.array("f", (rng.uniform(-scale, scale) for _ in range(count)))
    if sys.byteorder != "little":
        data.byteswap()
    _write_npy.write_npy(path, "<f4", tuple(shape), data.tobytes())


def mlp_program(batch, width, layers):
    x, w, b = (f"tensor<{batch}x{width}xf32>", f"tensor<{width}x{width}xf32>",
               f"tensor<{width}xf32>")
    args = [f"%x: {x}"] + [f"%w{i}: {w}, %b{i}: {b}" for i in range(layers)]
    lines = [f"func.func @main({', '.join(args)}) -> {x} {{"]
    h = "%x"
    for i in range(layers):
        lines += [f"  %m{i} = gplace.matmul {h}, %w{i} : ({x}, {w}) -> {x}",
                  f"  %a{i} = gplace.bias_add %m{i}, %b{i} : {x}, {b}",
                  f"  %h{i} = gplace.relu %a{i} : {x}"]
        h = f"%h{i}"
    lines += [f"  return {h} : {x}", "}"]
    return "\n".join(lines) + "\n"


def matmul_program(n):
    t = f"tensor<{n}x{n}xf32>"
    return (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %c = gplace.matmul %a, %b : ({t}, {t}) -> {t}\n"
            f"  return %c : {t}\n}}\n")


def cnn_program(batch):
    """The conv_net of examples/train_fashion_mnist_cnn.mlir, its weights
    the arguments after the images."""
    t = lambda *dims: f"tensor<{'x'.join(map(str, dims))}xf32>"
    x, c1, p1, c2, p2 = (t(batch, 28, 28, 1), t(batch, 24, 24, 32),
                         t(batch, 12, 12, 32), t(batch, 10, 10, 64),
                         t(batch, 5, 5, 64))
    flat, h3, logits = t(batch, 1600), t(batch, 1024), t(batch, 10)
    args = [f"%x: {x}", f"%f1: {t(5, 5, 1, 32)}", f"%b1: {t(32)}",
            f"%f2: {t(3, 3, 32, 64)}", f"%b2: {t(64)}",
            f"%w3: {t(1600, 1024)}", f"%b3: {t(1024)}",
            f"%w4: {t(1024, 10)}", f"%b4: {t(10)}"]
    window = 'strides = [1, 1, 1, 1] padding = "VALID"'
    pool = 'ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID"'
    body = f"""\
  %c1 = gplace.conv2d %x, %f1 {window} : {x}, {t(5, 5, 1, 32)} -> {c1}
  %a1 = gplace.bias_add %c1, %b1 : {c1}, {t(32)}
  %h1 = gplace.relu %a1 : {c1}
  %p1 = gplace.max_pool %h1 {pool} : {c1} -> {p1}
  %c2 = gplace.conv2d %p1, %f2 {window} : {p1}, {t(3, 3, 32, 64)} -> {c2}
  %a2 = gplace.bias_add %c2, %b2 : {c2}, {t(64)}
  %h2 = gplace.relu %a2 : {c2}
  %p2 = gplace.max_pool %h2 {pool} : {c2} -> {p2}
  %flat = gplace.reshape %p2 : {p2} -> {flat}
  %m3 = gplace.matmul %flat, %w3 : ({flat}, {t(1600, 1024)}) -> {h3}
  %a3 = gplace.bias_add %m3, %b3 : {h3}, {t(1024)}
  %h3 = gplace.relu %a3 : {h3}
  %m4 = gplace.matmul %h3, %w4 : ({h3}, {t(1024, 10)}) -> {logits}
  %logits = gplace.bias_add %m4, %b4 : {logits}, {t(10)}
  return %logits : {logits}
"""
    return (f"func.func @main({', '.join(args)}) -> {logits} {{\n" + body +
            "}\n")


def run_case(run, tmp, name, program, inputs, runs, repeat, ort_args=(),
             onnx_input_shape=None):
    """Writes the case's program and inputs under tmp/name, runs gplace-run
    once to write out.npy, then takes `repeat` samples of K = `runs` runs
    from gplace-run and from ort.mjs (once per entry of ort_args), in turn.
    With `onnx_input_shape`, ort.mjs also saves its model with constant
    initializers as model.onnx, and gplace-run on that file (its input the
    first input's data in that shape) is sampled too, last. Returns
    (gplace-run's (best, median) seconds per run, [ONNX Runtime's (best,
    median) seconds per run, per entry of ort_args], and gplace-run's on
    model.onnx or None)."""
    folder = os.path.join(tmp, name)
    os.makedirs(folder)
    path = os.path.join(folder, "program.mlir")
    with open(path, "w") as f:
        f.write(program)
    rng = random.Random(42)
    cmd = [run, path]
    for i, (shape, scale) in enumerate(inputs):
        npy = os.path.join(folder, f"in{i}.npy")
        write_f32(npy, shape, rng, scale)
        cmd += [f"--input=@{npy}"]
    subprocess.run(cmd + [f"--output=@{os.path.join(folder, 'out.npy')}"],
                   check=True)

    def ort_sample(args):
        out = subprocess.run(["node", ORT_SCRIPT, name, folder, "--runs",
                              str(runs), *args], check=True,
                             capture_output=True, text=True)
        return check(json.loads(out.stdout))["ms_per_run"] / 1e3

    samplers = [lambda: sample(cmd + ["--output=@" + os.devnull], runs)]
    samplers += [lambda args=args: ort_sample(args) for args in ort_args]
    if onnx_input_shape:
        model = os.path.join(folder, "model.onnx")
        subprocess.run(["node", ORT_SCRIPT, name, folder, "--runs", "1",
                        "--initializers", "--save", model], check=True)
        # The same values in the model's input shape (NCHW of one channel:
        # the same bytes).
        with open(os.path.join(folder, "in0.npy"), "rb") as f:
            raw = f.read()
        header = 10 + int.from_bytes(raw[8:10], "little")
        x = os.path.join(folder, "x-onnx.npy")
        _write_npy.write_npy(x, "<f4", tuple(onnx_input_shape), raw[header:])
        onnx_cmd = [run, model, f"--input=@{x}"]
        # Its results must be gplace-run's own on the program.
        subprocess.run(onnx_cmd + [f"--output=@{os.path.join(folder, 'onnx-out.npy')}"],
                       check=True)
        diff = max_abs_diff(os.path.join(folder, "out.npy"),
                            os.path.join(folder, "onnx-out.npy"))
        if diff > 1e-3:
            sys.exit(f"{name}: gplace-run on model.onnx differs from the "
                     f"program by {diff:.3g}")
        samplers.append(
            lambda: sample(onnx_cmd + ["--output=@" + os.devnull], runs))
    gplace, *rest = interleave(samplers, repeat)
    ort = rest[:len(ort_args)]
    onnx = best_median(rest[-1]) if onnx_input_shape else None
    return best_median(gplace), [best_median(o) for o in ort], onnx


def max_abs_diff(path_a, path_b):
    """The largest |a - b| over two f32 .npy files of one shape."""
    def values(path):
        with open(path, "rb") as f:
            raw = f.read()
        data = array.array("f")
        data.frombytes(raw[10 + int.from_bytes(raw[8:10], "little"):])
        if sys.byteorder != "little":
            data.byteswap()
        return data
    a, b = values(path_a), values(path_b)
    if len(a) != len(b):
        return float("inf")
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0)


def check(result):
    """The tolerance ort.mjs's numbers must meet; exits when they do not."""
    limit = 1e-4 * (result["max_abs_ref"] + 1)
    if result["max_abs_diff"] > limit:
        sys.exit(f"{result['case']}: ONNX Runtime and gplace-run differ by "
                 f"{result['max_abs_diff']:.3g} (> {limit:.3g})")
    return result


def cells(gplace, ort, scale, unit, digits):
    """Table cells for (best, median) seconds: gplace-run's, ONNX Runtime's,
    and the ratios ONNX Runtime / gplace-run (best / best, median /
    median)."""
    g, o = [t * scale for t in gplace], [t * scale for t in ort]
    return (f"{g[0]:.{digits}f} / {g[1]:.{digits}f} {unit}",
            f"{o[0]:.{digits}f} / {o[1]:.{digits}f} {unit}",
            f"{o[0] / g[0]:.2f} / {o[1] / g[1]:.2f}")


CASES = ("chain", "mlp", "matmul", "cnn")


def measure(build, repeat, ops=10000, batch=256, width=1024, layers=3,
            n=2048, cnn_batch=128, cases=CASES):
    """Returns the table's rows for `cases`: (benchmark, gplace, ort, ratio,
    goal), each time "best / median"."""
    run = os.path.join(build, "bin", "gplace-run")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if "chain" in cases:
            rows += chain_rows(run, tmp, repeat, ops)
        if "mlp" in cases:
            rows += mlp_rows(run, tmp, repeat, batch, width, layers)
        if "matmul" in cases:
            rows += matmul_rows(run, tmp, repeat, n)
        if "cnn" in cases:
            rows += cnn_rows(run, tmp, repeat, cnn_batch)
    return rows


def chain_rows(run, tmp, repeat, ops):
    gplace, (ort,), _ = run_case(run, tmp, "chain", chain(ops), [((4,), 1.0)],
                              1000, repeat, [("--ops", str(ops))])
    return [(f"dispatch: chain of {ops} elementwise ops (4 floats)",
             *cells(gplace, ort, 1e6 / ops, "µs/op", 3), "≥ 1")]


def mlp_rows(run, tmp, repeat, batch, width, layers):
    inputs = [((batch, width), 1.0)]
    for _ in range(layers):
        inputs += [((width, width), 1.0 / 32), ((width,), 0.1)]
    gplace, (ort, ort_init), _ = run_case(
        run, tmp, "mlp", mlp_program(batch, width, layers), inputs, 30,
        repeat, [(), ("--initializers",)])
    name = f"MLP {layers}x{width}, batch {batch}"
    return [(f"{name} (weights as inputs)",
             *cells(gplace, ort, 1e3, "ms", 2), "≥ 0.9"),
            (f"{name} (ONNX Runtime's weights constant initializers)",
             *cells(gplace, ort_init, 1e3, "ms", 2), "≥ 0.9")]


def matmul_rows(run, tmp, repeat, n):
    gplace, (ort,), _ = run_case(run, tmp, "matmul", matmul_program(n),
                              [((n, n), 1.0), ((n, n), 1.0)], 10, repeat,
                              [()])
    g, o, ratio = cells(gplace, ort, 1e3, "ms", 1)
    flops = 2.0 * n ** 3
    return [(f"matmul {n}³ f32",
             f"{g} ({flops / gplace[0] / 1e9:.0f} GFLOP/s at best)",
             f"{o} ({flops / ort[0] / 1e9:.0f} GFLOP/s at best)",
             ratio, "≥ 0.9")]


def cnn_rows(run, tmp, repeat, batch):
    # Glorot-like scales keep the activations near 1 through the layers.
    inputs = [((batch, 28, 28, 1), 1.0), ((5, 5, 1, 32), 0.17), ((32,), 0.1),
              ((3, 3, 32, 64), 0.08), ((64,), 0.1), ((1600, 1024), 0.05),
              ((1024,), 0.1), ((1024, 10), 0.07), ((10,), 0.1)]
    gplace, (ort, ort_init), onnx = run_case(
        run, tmp, "cnn", cnn_program(batch), inputs, 10, repeat,
        [(), ("--initializers",)], onnx_input_shape=(batch, 1, 28, 28))
    name = f"CNN (the seeds' conv_net), batch {batch} of 28x28x1"
    return [(f"{name} (weights as inputs)",
             *cells(gplace, ort, 1e3, "ms", 2), "≥ 1.0"),
            (f"{name} (ONNX Runtime's weights constant initializers)",
             *cells(gplace, ort_init, 1e3, "ms", 2), "≥ 1.0"),
            (f"{name}, one .onnx file read by both (NCHW, weights constant "
             "initializers)", *cells(onnx, ort_init, 1e3, "ms", 2), "≥ 1.0")]


def table(rows):
    lines = ["| benchmark | gplace-run (best / median) | ONNX Runtime (CPU) "
             "(best / median) | ratio ONNX Runtime / gplace-run (best / "
             "median) | goal |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {' | '.join(row)} |" for row in rows]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ops", type=int, default=10000)
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--cnn-batch", type=int, default=128)
    parser.add_argument("--cases", default=",".join(CASES),
                        help="comma-separated subset of " + ",".join(CASES))
    args = parser.parse_args()
    cases = args.cases.split(",")
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s): {', '.join(unknown)}")
    print(table(measure(args.build, args.repeat, ops=args.ops, n=args.n,
                        cnn_batch=args.cnn_batch, cases=cases)))


if __name__ == "__main__":
    main()
