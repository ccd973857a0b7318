#!/usr/bin/env python3
"""ONNX LSTM and GRU layers on the CPU: one gplace.cudnn_rnn (oneDNN's RNN
primitives) against the same layer unrolled over the sequence into per-step
graph ops (`--unroll-recurrent`, the importer's only form before), and
against ONNX Runtime where bench/onnx/node_modules is installed.

Models (written with the `onnx` Python package, opset 14, weights
deterministic): for each --cells entry (LSTM, GRU) and --directions entry
(forward, bidirectional), x[seq, batch, input] -> the layer (hidden
--hidden, bias, zero initial states) -> Y[seq, directions, batch, hidden];
x is deterministic (element i of the flattened array is (i * 7919 % 1000)
/ 1000, as bench/onnx_import.py's inputs).

A gplace sample is one `gplace-run M.onnx --input=@x.npy
--iterations=1+K --print-timing` process (and `--unroll-recurrent` for the
unrolled form); the sample is its "then mean", the mean of the K runs after
the first (import, compile and the first run are not timed). An ONNX
Runtime sample is `node bench/onnx/run_model.mjs M.onnx P x.npy --runs K`'s
`ms_median`. Each side first runs once untimed with its output written,
and the outputs are compared with the op's (max |difference|; they agree
if it is at most 1e-4 * (max |value| + 1)). Then --repeat rounds, each a
sample of every side. Times are median / best over the samples; the
ratios are the unrolled form's (and ONNX Runtime's) median over the op's
(above 1: the op is faster).

Usage: bench/recurrent.py [--build build] [--seq 32] [--batch 16]
                          [--input 64] [--hidden 128] [--runs 50]
                          [--repeat 5] [--cells LSTM,GRU]
                          [--directions forward,bidirectional]
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import (BUILD, Failure, gplace_timing, log, median,  # noqa: E402
                      ms, pair, run)
from onnx_import import ONNX_DIR, RUN_MODEL, compare, write_npy  # noqa: E402


def write_model(path, cell, direction, seq, batch, inputs, hidden):
    """An ONNX model: x[seq, batch, inputs] -> `cell` -> Y."""
    try:
        import onnx
        from onnx import TensorProto, helper
    except ImportError:
        sys.exit("bench/recurrent.py needs the onnx Python package "
                 "(Debian's python3-onnx: run it with /usr/bin/python3)")
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[cell]
    dirs = 2 if direction == "bidirectional" else 1

    def weights(name, shape, scale):
        n = 1
        for d in shape:
            n *= d
        values = [scale * (((i * 2654435761) % 2000) / 1000.0 - 1.0)
                  for i in range(n)]
        return helper.make_tensor(name, TensorProto.FLOAT, shape, values)

    init = [weights("W", [dirs, gates * hidden, inputs], 0.1),
            weights("R", [dirs, gates * hidden, hidden], 0.1),
            weights("B", [dirs, 2 * gates * hidden], 0.05)]
    node = helper.make_node(cell, ["x", "W", "R", "B"], ["Y"], name="layer",
                            hidden_size=hidden, direction=direction)
    graph = helper.make_graph(
        [node], "recurrent",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [seq, batch, inputs])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT,
                                       [seq, dirs, batch, hidden])],
        init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def gplace_sample(cmd):
    """The mean of gplace-run's runs after the first, in seconds."""
    return gplace_timing(cmd)[0].mean


def ort_sample(cmd):
    _, _, out, err = run(cmd, "run_model.mjs failed", cwd=ONNX_DIR)
    try:
        return json.loads(out.strip().splitlines()[-1])["ms_median"] / 1e3
    except (ValueError, IndexError, KeyError):
        raise Failure(cmd, 0, out + err, "no JSON line from run_model.mjs")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=BUILD)
    parser.add_argument("--seq", type=int, default=32)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--input", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cells", default="LSTM,GRU")
    parser.add_argument("--directions", default="forward,bidirectional")
    args = parser.parse_args()

    have_ort = os.path.isdir(os.path.join(ONNX_DIR, "node_modules",
                                          "onnxruntime-node"))
    work = tempfile.mkdtemp(prefix="gplace-recurrent-")
    run_bin = os.path.join(work, "gplace-run")
    shutil.copy(os.path.join(args.build, "bin", "gplace-run"), run_bin)
    x = os.path.join(work, "x.npy")
    write_npy(x, [args.seq, args.batch, args.input])
    rows = []
    try:
        for cell in args.cells.split(","):
            for direction in args.directions.split(","):
                key = f"{cell.lower()}-{direction}"
                onnx_path = os.path.join(work, key + ".onnx")
                write_model(onnx_path, cell, direction, args.seq, args.batch,
                            args.input, args.hidden)
                base = [run_bin, onnx_path, f"--input=@{x}"]
                timed = [f"--iterations={1 + args.runs}", "--print-timing"]
                sides = {"op": base, "unrolled": base + ["--unroll-recurrent"]}
                outputs = {}
                for side, cmd in sides.items():
                    outputs[side] = os.path.join(work, f"{key}-{side}.npy")
                    run(cmd + [f"--output=@{outputs[side]}"],
                        "gplace-run failed")
                ort_cmd = ["node", RUN_MODEL, onnx_path,
                           os.path.join(work, key + "-ort"), x]
                if have_ort:
                    run(ort_cmd, "run_model.mjs failed", cwd=ONNX_DIR)
                    outputs["ort"] = os.path.join(work, key + "-ort0.npy")
                agree = {side: compare(outputs["op"], path)
                         for side, path in outputs.items() if side != "op"}
                samples = {side: [] for side in outputs}
                for i in range(args.repeat):
                    for side, cmd in sides.items():
                        samples[side].append(gplace_sample(cmd + timed))
                    if have_ort:
                        samples["ort"].append(
                            ort_sample(ort_cmd + ["--runs", str(args.runs)]))
                    log(f"{key} round {i + 1}/{args.repeat}: " + ", ".join(
                        f"{side} {ms(values[-1])} ms"
                        for side, values in samples.items()))
                rows.append((key, samples, agree))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"# Recurrent layers: cudnn_rnn against unrolled"
          f"{' and ONNX Runtime' if have_ort else ''}\n")
    print(f"seq {args.seq}, batch {args.batch}, input {args.input}, hidden "
          f"{args.hidden}; {args.runs} runs a sample, {args.repeat} samples; "
          f"median / best of the samples' mean run.\n")
    header = "| layer | cudnn_rnn | unrolled | unrolled / op |"
    rule = "|---|---|---|---|"
    if have_ort:
        header += " ONNX Runtime | ORT / op |"
        rule += "---|---|"
    print(header)
    print(rule)
    for key, samples, agree in rows:
        line = (f"| {key} | {pair(samples['op'])} | "
                f"{pair(samples['unrolled'])} | "
                f"{median(samples['unrolled']) / median(samples['op']):.2f} |")
        if have_ort:
            line += (f" {pair(samples['ort'])} | "
                     f"{median(samples['ort']) / median(samples['op']):.2f} |")
        print(line)
    print()
    for key, _, agree in rows:
        for side, (diff, scale, ok) in agree.items():
            print(f"- {key}: {side} against cudnn_rnn: max |difference| "
                  f"{diff:.3g} (max |value| {scale:.3g}): "
                  f"{'agree' if ok else 'DIFFER'}")


if __name__ == "__main__":
    try:
        main()
    except Failure as failure:
        sys.exit(f"{failure.why}: {' '.join(failure.cmd)}\n{failure.stderr}")
