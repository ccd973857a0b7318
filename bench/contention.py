#!/usr/bin/python3
"""gplace on a shared machine: N processes at once, and a busy neighbour.

Training: the README's Fashion-MNIST MLP (examples/train_fashion_mnist.mlir,
--epochs, --shuffle=1), one process alone and --processes at once; each
with gplace's default intra-op threads (adaptive), with
--intra-op-parallelism-threads fixed at the CPUs (what gplace did before
it adapted) and with OMP_NUM_THREADS=1 (one thread, the usual advice on a
shared machine). Then one process beside a busy loop. Inference: an MLP
784-512-10 at batch 64, --iterations runs, its per-run median, p99 and max
(gplace-run --print-timing), alone and beside a busy loop. Medians over
--rounds; prints a Markdown section and appends it to --write if given.

    bench/contention.py --gplace-run build/bin/gplace-run --write results/X.md
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchenv  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
    parser.add_argument("--gplace-run",
                        default=os.path.join(ROOT, "build/bin/gplace-run"))
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--write", default=None)
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
             "start", "",
             "Training (Fashion-MNIST MLP, "
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

    # Inference latency.
    work = tempfile.mkdtemp(prefix="gplace-contention.")
    model = os.path.join(work, "mlp.mlir")
    with open(model, "w") as f:
        f.write("""func.func @main(%x: tensor<64x784xf32>) -> tensor<64x10xf32> {
  %w1 = gplace.constant dense<0.001> : tensor<784x512xf32>
  %w2 = gplace.constant dense<0.002> : tensor<512x10xf32>
  %h = gplace.matmul %x, %w1 : (tensor<64x784xf32>, tensor<784x512xf32>) -> tensor<64x512xf32>
  %r = gplace.relu %h : tensor<64x512xf32>
  %y = gplace.matmul %r, %w2 : (tensor<64x512xf32>, tensor<512x10xf32>) -> tensor<64x10xf32>
  return %y : tensor<64x10xf32>
}
""")
    inputs = os.path.join(work, "x.npy")
    import numpy  # Debian's python3-numpy
    numpy.save(inputs, numpy.full((64, 784), 0.5, dtype=numpy.float32))
    infer = [args.gplace_run, model, f"--input=@{inputs}",
             f"--iterations={args.iterations}", "--print-timing"]
    lines += [f"Inference (MLP 784-512-10, batch 64, {args.iterations} runs "
              "per process), per-run ms:", "",
              "| threads | load | median | p99 | max |",
              "|---|---|---:|---:|---:|"]
    pattern = re.compile(r"median ([0-9.]+) ms, p99 ([0-9.]+) ms, max "
                         r"([0-9.]+) ms")
    for name, flags, extra in variants[:2]:
        env = dict(base, **extra)
        for load in ("quiet", "busy loop"):
            spinner = busy_loop() if load == "busy loop" else None
            try:
                out = subprocess.run(infer + flags, env=env, check=True,
                                     capture_output=True, text=True).stderr
            finally:
                if spinner:
                    spinner.kill()
                    spinner.wait()
            m = pattern.search(out)
            lines.append(f"| {name} | {load} | {m.group(1)} | {m.group(2)} "
                         f"| {m.group(3)} |")
    os.remove(model)
    os.remove(inputs)
    os.rmdir(work)
    benchenv.emit("\n".join(lines) + "\n", args.write)


if __name__ == "__main__":
    main()
