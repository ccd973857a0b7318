#!/usr/bin/env python3
"""Pipeline parallelism's bubbles, measured: each stage's idle fraction in
gplace-run's trace against GPipe's (K-1)/(M+K-1).

Generates a model of K balanced stages (each `--layers` matmul + tanh
layers of width `--width`, the stage's variables and ops requested on
GPU:s; a mean squared error; gradient descent), trains it on K emulated
GPUs with `--pipeline-stages=K --microbatches=M` under GPipe and 1F1B with
`--trace`, and reads from the trace, per run after the first and per
device, the fraction of the run's span (the "run" slice) in which the
device's compute stream (stream 0) ran no launch. A device runs F and B of
each of M micro-batches, and (K-1) units' worth of each direction wait for
the pipeline to fill and drain: the idle fraction of balanced stages is
(K-1)/(M+K-1) under both schedules (1F1B moves the work, not the bubble).
The measured fraction also holds the copies' waits, the sums of the
gradients and the update, and, on emulated GPUs, each stage's kernels
share the machine's cores: with more stages than cores, stages wait for a
core as well as for each other. The figures are medians over the runs.

    /usr/bin/python3 bench/pipeline.py [--stages 2] [--microbatches 8]
        [--width 512] [--batch 512] [--layers 2] [--iterations 6]
        [--devices '--logical-gpus=0:8192,8192']

Writes nothing: prints the environment and one table (paste it into
bench/results/ by hand).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchenv  # noqa: E402
from benchlib import GPLACE_RUN, write_f32  # noqa: E402


def model(stages, layers, width, batch):
    """MLIR text of the K-stage model."""
    lines = ["func.func @train(%%x: tensor<%dx%dxf32>, %%y: tensor<%dx%dxf32>)"
             " -> tensor<f32> {" % (batch, width, batch, width)]
    previous, reads, index = "%x", [], 0
    for stage in range(stages):
        device = "/device:GPU:%d" % stage
        for _ in range(layers):
            i = index
            index += 1
            lines += [
                '  %%w%d = gplace.variable dense<0.01> : tensor<%dx%dxf32> '
                '{name = "s%d/w%d", device = "%s"}' % (i, width, width, stage, i, device),
                '  %%r%d = gplace.read %%w%d {device = "%s"} : '
                '!gplace.resource<tensor<%dx%dxf32>>' % (i, i, device, width, width),
                '  %%m%d = gplace.matmul %s, %%r%d {device = "%s"} : '
                '(tensor<%dx%dxf32>, tensor<%dx%dxf32>) -> tensor<%dx%dxf32>'
                % (i, previous, i, device, batch, width, width, width, batch, width),
                '  %%h%d = gplace.tanh %%m%d {device = "%s"} : tensor<%dx%dxf32>'
                % (i, i, device, batch, width)]
            previous = "%%h%d" % i
            reads.append(i)
    last = "/device:GPU:%d" % (stages - 1)
    t = "tensor<%dx%dxf32>" % (batch, width)
    w = "tensor<%dx%dxf32>" % (width, width)
    lines += [
        '  %%d = gplace.sub %s, %%y {device = "%s"} : (%s, %s) -> %s'
        % (previous, last, t, t, t),
        '  %%sq = gplace.square %%d {device = "%s"} : %s' % (last, t),
        '  %%loss = gplace.reduce_mean %%sq axes = [0, 1] {device = "%s"} : '
        '%s -> tensor<f32>' % (last, t),
        '  %s = gplace.gradients %%loss wrt %s : tensor<f32> wrt %s' % (
            ", ".join("%%g%d" % i for i in reads),
            ", ".join("%%r%d" % i for i in reads),
            ", ".join(w for _ in reads)),
        '  %lr = gplace.constant dense<0.01> : tensor<f32>']
    for i in reads:
        lines.append('  %%u%d = gplace.apply_gradient_descent %%w%d, %%lr, %%g%d'
                     ' : !gplace.resource<%s>, tensor<f32>, %s' % (i, i, i, w, w))
    lines += ["  return %loss : tensor<f32>", "}"]
    return "\n".join(lines) + "\n"


def write_npy(path, rows, cols, seed):
    """A float32 .npy of rows x cols, without NumPy."""
    write_f32(path, (rows, cols), [((i * 7919 + seed) % 2000) / 1000.0 - 1.0
                                   for i in range(rows * cols)])


def idle_fractions(trace_path, stages):
    """Per run after the first: per GPU, the idle fraction of the run."""
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    tracks = {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            tracks[(e["pid"], e["tid"])] = e["args"]["name"]
    runs = sorted((e for e in events if e["ph"] == "X" and e.get("cat") == "run"),
                  key=lambda e: e["ts"])
    result = []
    for run in runs[1:]:
        start, end = run["ts"], run["ts"] + run["dur"]
        index = run["args"].get("run")
        fractions = []
        for s in range(stages):
            name = "/job:localhost/replica:0/task:0/device:GPU:%d" % s
            busy = sum(e["dur"] for e in events
                       if e["ph"] == "X" and e.get("cat") == "launch"
                       and tracks.get((e["pid"], e["tid"])) == name
                       and e["args"].get("run") == index)
            fractions.append(1 - busy / (end - start))
        result.append(fractions)
    return result


def draw(trace_path, stages, columns=96):
    """The last run's timeline as text, a row per GPU: in each column, the
    micro-batch whose forward (its digit) or backward (its letter, A for 0)
    ran most there, '=' for other kernels (the sums, the update), '.' where
    the compute stream ran nothing."""
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    tracks = {(e["pid"], e["tid"]): e["args"]["name"]
              for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    runs = sorted((e for e in events if e["ph"] == "X" and e.get("cat") == "run"),
                  key=lambda e: e["ts"])
    run = runs[-1]
    start, span = run["ts"], run["dur"]
    rows = []
    for s in range(stages):
        name = "/job:localhost/replica:0/task:0/device:GPU:%d" % s
        cells = [dict() for _ in range(columns)]
        for e in events:
            if (e["ph"] != "X" or e.get("cat") != "launch"
                    or tracks.get((e["pid"], e["tid"])) != name
                    or e["args"].get("run") != run["args"].get("run")):
                continue
            label = e["name"]
            mark = None
            for part in label.split("+"):
                backward = part.startswith("gradients/micro_batch_")
                if backward or part.startswith("micro_batch_"):
                    i = int(part.split("micro_batch_")[1].split("/")[0])
                    mark = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i] if backward else "0123456789abcdefghij"[i]
                    break
            mark = mark or "="
            a = int((e["ts"] - start) / span * columns)
            b = int((e["ts"] + e["dur"] - start) / span * columns)
            for c in range(max(a, 0), min(b + 1, columns)):
                cells[c][mark] = cells[c].get(mark, 0) + 1
        rows.append("GPU:%d |%s|" % (s, "".join(
            max(c, key=c.get) if c else "." for c in cells)))
    return "\n".join(rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stages", type=int, default=2)
    parser.add_argument("--microbatches", type=int, default=8)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=6)
    parser.add_argument("--gplace-run", default=GPLACE_RUN)
    parser.add_argument("--devices", default="",
                        help="gplace-run flags that give the K GPUs (default "
                        "--emulate-gpus=K; on a GPU machine, e.g. "
                        "--logical-gpus=0:8192,8192 for K logical GPUs of one)")
    parser.add_argument("--draw", action="store_true",
                        help="also draw the last run of each schedule")
    args = parser.parse_args()
    k, m = args.stages, args.microbatches
    print("CPU: %s, %d CPUs, load %s; gplace-run: %s (intra-op threads 1)"
          % (benchenv.cpu_model(), os.cpu_count(), benchenv.load(),
             args.gplace_run))
    expected = (k - 1) / (m + k - 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.mlir")
        with open(path, "w") as f:
            f.write(model(k, args.layers, args.width, args.batch))
        write_npy(os.path.join(tmp, "x.npy"), args.batch, args.width, 1)
        write_npy(os.path.join(tmp, "y.npy"), args.batch, args.width, 2)
        print("| schedule | K | M | per-device idle fraction (median of %d runs) "
              "| (K-1)/(M+K-1) | largest difference (points) |" % (args.iterations - 1))
        print("|---|---:|---:|---|---:|---:|")
        drawings = []
        for schedule in ("gpipe", "1f1b"):
            trace = os.path.join(tmp, "trace-%s.json" % schedule)
            subprocess.run([args.gplace_run, path, "--entry=train",
                            "--input=@" + os.path.join(tmp, "x.npy"),
                            "--input=@" + os.path.join(tmp, "y.npy"),
                            *(args.devices.split() or ["--emulate-gpus=%d" % k]),
                            "--pipeline-stages=%d" % k,
                            "--microbatches=%d" % m, "--schedule=" + schedule,
                            "--iterations=%d" % args.iterations,
                            "--intra-op-parallelism-threads=1",
                            "--trace=" + trace],
                           check=True, stdout=subprocess.DEVNULL)
            runs = idle_fractions(trace, k)
            medians = [statistics.median(r[s] for r in runs) for s in range(k)]
            worst = max(abs(f - expected) for f in medians) * 100
            print("| %s | %d | %d | %s | %.3f | %.1f |" % (
                schedule, k, m, ", ".join("%.3f" % f for f in medians),
                expected, worst))
            if args.draw:
                drawings.append("%s (forward of micro-batch i: digit i; its "
                                "backward: letter i, A = 0; '=': sums and "
                                "updates; '.': idle)\n%s"
                                % (schedule, draw(trace, k)))
        for drawing in drawings:
            print()
            print(drawing)


if __name__ == "__main__":
    main()
