#!/usr/bin/python3
"""gplace on a shared machine: N processes at once, and a busy neighbour.

Training: the README's Fashion-MNIST MLP (examples/train_fashion_mnist.mlir,
--epochs, --shuffle=1), one process alone and --processes at once; each
with gplace's default intra-op threads (adaptive), with
--intra-op-parallelism-threads fixed at the CPUs (what gplace did before
it adapted) and with OMP_NUM_THREADS=1 (one thread, the usual advice on a
shared machine). Then one process beside a busy loop. Inference: an MLP
784-512-10 at batch 64, --iterations runs, its per-run best, median, p99 and max
(gplace-run --print-timing), alone and beside a busy loop, beside ONNX
Runtime on the same model under the same load (bench/onnx/ort.mjs: run
`npm install --ignore-scripts` in bench/onnx first). Medians over --rounds;
prints a Markdown section and appends it to --write if given.
--inference-only skips the training part.

    bench/contention.py --gplace-run build/bin/gplace-run --write results/X.md
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchenv  # noqa: E402
from benchlib import GPLACE_RUN, ROOT  # noqa: E402
DATA = "/usr/share/datasets/fashion-mnist"


def busy_loop():
    """A process spinning on one core until killed."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def wall(commands, env):
    """Seconds until every command, started at once, has finished."""
    start = time.perf_counter()
    procs = [subprocess.Popen(c, env=env, stdout=subprocess.DEVNULL)
             for c in commands]
    for p in procs:
        if p.wait() != 0:
            sys.exit(f"failed: {' '.join(p.args)}")
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gplace-run", default=GPLACE_RUN)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--write", default=None)
    parser.add_argument("--inference-only", action="store_true",
                        help="skip the training part")
    args = parser.parse_args()
    cpus = len(os.sched_getaffinity(0))

    train = [args.gplace_run,
             os.path.join(ROOT, "examples/train_fashion_mnist.mlir"),
             "--entry=train", "--init=init",
             f"--input=@{DATA}/train-images-idx3-ubyte.gz",
             f"--input=@{DATA}/train-labels-idx1-ubyte.gz",
             f"--epochs={args.epochs}", "--shuffle=1"]
    base = dict(os.environ)
    variants = [
        ("adaptive (default)", [], {}),
        (f"--intra-op-parallelism-threads={cpus}", 
         [f"--intra-op-parallelism-threads={cpus}"], {}),
        ("OMP_NUM_THREADS=1", [], {"OMP_NUM_THREADS": "1"}),
    ]
    lines = [f"## Contention: {args.processes} processes on {cpus} CPUs", "",
             f"- CPU: {benchenv.cpu_model()}; gplace "
             f"{benchenv.checkout_state(ROOT)[0]}; "
             f"{benchenv.env_variables(['OMP_NUM_THREADS', 'OMP_WAIT_POLICY', 'GOMP_SPINCOUNT', 'OPENBLAS_CORETYPE'])}; "
             f"medians of {args.rounds} rounds; load {benchenv.load()} at the "
             "start", ""]
    if not args.inference_only:
        training(args, train, base, variants, cpus, lines)
    inference(args, base, variants, cpus, lines)
    benchenv.emit("\n".join(lines) + "\n", args.write)


def training(args, train, base, variants, cpus, lines):
    """The training rows: one process, --processes at once, one beside a
    busy loop, per variant."""
    lines += ["Training (Fashion-MNIST MLP, "
              f"{args.epochs} epochs), wall seconds:", "",
              f"| threads | one | {args.processes} at once | ratio (ideal "
              f"{max(1.0, args.processes / cpus):.1f}x) | one beside a busy "
              "loop |",
              "|---|---:|---:|---:|---:|"]
    together = {}
    for name, flags, extra in variants:
        env = dict(base, **extra)
        one = statistics.median(wall([train + flags], env)
                                for _ in range(args.rounds))
        many = statistics.median(
            wall([train + flags] * args.processes, env)
            for _ in range(args.rounds))
        spinner = busy_loop()
        try:
            busy = statistics.median(wall([train + flags], env)
                                     for _ in range(args.rounds))
        finally:
            spinner.kill()
            spinner.wait()
        together[name] = many
        lines.append(f"| {name} | {one:.2f} | {many:.2f} | "
                     f"{many / one:.2f}x | {busy:.2f} |")
    lines += ["", f"Throughput of the {args.processes} against the same "
              "with OMP_NUM_THREADS=1: adaptive "
              f"{together['OMP_NUM_THREADS=1'] / together['adaptive (default)']:.2f}x.",
              ""]


def inference(args, base, variants, cpus, lines):
    """The inference rows: gplace-run's variants and ONNX Runtime, quiet
    and beside a busy loop."""
    # Inference latency, gplace-run beside ONNX Runtime: the same MLP
    # (relu(h @ w + b) per layer, bench/onnx/ort.mjs's `mlp` case), its
    # weights inputs on both sides; per round and load, each side's
    # process in turn under the same busy loop.
    work = tempfile.mkdtemp(prefix="gplace-contention.")
    import numpy  # Debian's python3-numpy
    rng = numpy.random.default_rng(42)
    shapes = [(64, 784), (784, 512), (512,), (512, 10), (10,)]
    for i, shape in enumerate(shapes):
        numpy.save(os.path.join(work, f"in{i}.npy"),
                   rng.uniform(-0.1, 0.1, shape).astype(numpy.float32))
    model = os.path.join(work, "mlp.mlir")
    with open(model, "w") as f:
        f.write("""func.func @main(%x: tensor<64x784xf32>, %w1: tensor<784x512xf32>, %b1: tensor<512xf32>, %w2: tensor<512x10xf32>, %b2: tensor<10xf32>) -> tensor<64x10xf32> {
  %m1 = gplace.matmul %x, %w1 : (tensor<64x784xf32>, tensor<784x512xf32>) -> tensor<64x512xf32>
  %a1 = gplace.bias_add %m1, %b1 : tensor<64x512xf32>, tensor<512xf32>
  %h1 = gplace.relu %a1 : tensor<64x512xf32>
  %m2 = gplace.matmul %h1, %w2 : (tensor<64x512xf32>, tensor<512x10xf32>) -> tensor<64x10xf32>
  %a2 = gplace.bias_add %m2, %b2 : tensor<64x10xf32>, tensor<10xf32>
  %y = gplace.relu %a2 : tensor<64x10xf32>
  return %y : tensor<64x10xf32>
}
""")
    infer = [args.gplace_run, model] + [
        f"--input=@{os.path.join(work, f'in{i}.npy')}"
        for i in range(len(shapes))]
    # ort.mjs checks its result against gplace-run's out.npy.
    subprocess.run(infer + [f"--output=@{os.path.join(work, 'out.npy')}"],
                   check=True, capture_output=True)
    infer += [f"--iterations={args.iterations}", "--print-timing"]
    ort = ["node", os.path.join(ROOT, "bench/onnx/ort.mjs"), "mlp", work,
           "--runs", str(args.iterations)]
    pattern = re.compile(r"best ([0-9.]+) ms, median ([0-9.]+) ms, p99 "
                         r"([0-9.]+) ms, max ([0-9.]+) ms")
    sides = [(name, infer + flags, dict(base, **extra))
             for name, flags, extra in variants[:2]]
    sides.append(("ONNX Runtime 1.30 (intraOpNumThreads "
                  f"{cpus}, onnxruntime-node)", ort, base))

    def sample(cmd, env):
        out = subprocess.run(cmd, env=env, check=True, capture_output=True,
                             text=True)
        if cmd is ort:
            result = json.loads(out.stdout)
            if result["max_abs_diff"] > 1e-4 * max(1.0, result["max_abs_ref"]):
                sys.exit(f"ONNX Runtime differs from gplace-run by "
                         f"{result['max_abs_diff']}")
            return (result["ms_median"], result["ms_p99"], result["ms_max"],
                    result["ms_best"])
        m = pattern.search(out.stderr)
        return tuple(float(m.group(k)) for k in (2, 3, 4, 1))

    loads = ("quiet", "busy loop")
    samples = {(name, load): [] for name, _, _ in sides for load in loads}
    for _ in range(args.rounds):
        for load in loads:
            spinner = busy_loop() if load == "busy loop" else None
            try:
                for name, cmd, env in sides:
                    samples[(name, load)].append(sample(cmd, env))
            finally:
                if spinner:
                    spinner.kill()
                    spinner.wait()
    lines += [f"Inference (MLP 784-512-10 with biases and ReLUs, batch 64, "
              f"weights as inputs, {args.iterations} runs per process), "
              f"per-run ms: the best run of all rounds, and medians over {args.rounds} rounds (each round "
              "runs every side in turn under the same load):", "",
              "| side | load | best | median | p99 | max |",
              "|---|---|---:|---:|---:|---:|"]
    medians = {}
    for name, _, _ in sides:
        for load in loads:
            runs = samples[(name, load)]
            row = [statistics.median(r[k] for r in runs) for k in range(3)]
            # The best run of every round's process.
            row.append(min(r[3] for r in runs))
            medians[(name, load)] = row
            lines.append(f"| {name} | {load} | {row[3]:.3f} | {row[0]:.3f} "
                         f"| {row[1]:.3f} | {row[2]:.3f} |")
    gplace_name, ort_name = sides[0][0], sides[-1][0]
    lines += ["",
              "ONNX Runtime's time / gplace's (above 1: gplace is "
              "faster), best / median: quiet "
              f"{medians[(ort_name, 'quiet')][3] / medians[(gplace_name, 'quiet')][3]:.2f}x / "
              f"{medians[(ort_name, 'quiet')][0] / medians[(gplace_name, 'quiet')][0]:.2f}x, "
              "beside a busy loop "
              f"{medians[(ort_name, 'busy loop')][3] / medians[(gplace_name, 'busy loop')][3]:.2f}x / "
              f"{medians[(ort_name, 'busy loop')][0] / medians[(gplace_name, 'busy loop')][0]:.2f}x. "
              "gplace's p99 beside a busy loop over its quiet median: "
              f"{medians[(gplace_name, 'busy loop')][1] / medians[(gplace_name, 'quiet')][0]:.2f}x "
              "(ONNX Runtime's: "
              f"{medians[(ort_name, 'busy loop')][1] / medians[(ort_name, 'quiet')][0]:.2f}x)."]
    for name in os.listdir(work):
        os.remove(os.path.join(work, name))
    os.rmdir(work)


if __name__ == "__main__":
    main()
