#!/usr/bin/env python3
"""gplace-run binaries side by side, step by step, on small graphs whose
run is many small steps (issues 48 and 49: GridSample's and RoiAlign's
decompositions, a fused chain of broadcasting elementwise ops).

  bench/step_traces.py --bin /tmp/before/gplace-run --bin build/bin/gplace-run \
      [--rounds 3] [--iterations 1000] [--filter REGEX]

Each model runs `--iterations` times in one process with `--trace`; per
binary and model, the median and best of the runs (the trace's "run N"
events, microseconds), the number of distinct steps and the sum of their
median times, and the slowest steps. Rounds alternate the binaries; the
report takes the median of the rounds' medians and the best of their
bests. Models: ONNX's backend tests test_gridsample* and test_roialign*
(libonnx-testdata), and `broadcast-chain`, four fused elementwise ops over
[3, 100, 1, 2] reading [3, 100, 1, 1] and [2] operands (each element of
one repeated twice, the other a pattern repeated whole).
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import benchenv

NODE = "/usr/share/libonnx-testdata/data/node"

CHAIN = """\
func.func @main(%a: tensor<3x100x1x1xf32>, %c: tensor<3x100x1x1xf32>) -> tensor<3x100x1x2xf32> {
  %b = gplace.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %s = gplace.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %t = gplace.add %a, %b : (tensor<3x100x1x1xf32>, tensor<2xf32>) -> tensor<3x100x1x2xf32>
  %u = gplace.sub %t, %c : (tensor<3x100x1x2xf32>, tensor<3x100x1x1xf32>) -> tensor<3x100x1x2xf32>
  %v = gplace.mul %u, %s : (tensor<3x100x1x2xf32>, tensor<2xf32>) -> tensor<3x100x1x2xf32>
  %w = gplace.mul %v, %a : (tensor<3x100x1x2xf32>, tensor<3x100x1x1xf32>) -> tensor<3x100x1x2xf32>
  return %w : tensor<3x100x1x2xf32>
}
"""


def models(work, pattern):
    """(name, gplace-run arguments) of each model."""
    chain = os.path.join(work, "chain.mlir")
    with open(chain, "w") as f:
        f.write(CHAIN)
    values = ",".join(str((i * 37 % 101) / 20) for i in range(300))
    found = [("broadcast-chain",
              [chain, f"--input=3x100x1x1xf32={values}",
               f"--input=3x100x1x1xf32={values}"])]
    for test in sorted(os.listdir(NODE)):
        if not re.match(r"test_(gridsample|roialign)", test):
            continue
        data = os.path.join(NODE, test, "test_data_set_0")
        inputs = sorted(f for f in os.listdir(data) if f.startswith("input_"))
        found.append((test, [os.path.join(NODE, test, "model.onnx")] +
                      [f"--input=@{os.path.join(data, f)}" for f in inputs]))
    return [m for m in found if re.search(pattern, m[0])]


def measure(binary, args, iterations, trace):
    subprocess.run([binary] + args + [f"--iterations={iterations}",
                                      f"--trace={trace}"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    with open(trace) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    runs, steps = [], collections.defaultdict(list)
    for e in events:
        if e.get("ph") != "X":
            continue
        if re.fullmatch(r"run \d+", e["name"]):
            runs.append(e["dur"])
        else:
            steps[e["name"]].append(e["dur"])
    runs = runs[1:]  # The first run compiles kernels and fills caches.
    medians = {name: statistics.median(d) for name, d in steps.items()}
    return (statistics.median(runs), min(runs), len(steps),
            sum(medians.values()),
            sorted(medians.items(), key=lambda kv: -kv[1])[:3])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", action="append", required=True,
                   help="a gplace-run binary (give two or more)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--iterations", type=int, default=1000)
    p.add_argument("--filter", default=".")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as work:
        trace = os.path.join(work, "trace.json")
        results = collections.defaultdict(list)
        for _ in range(a.rounds):
            for name, args in models(work, a.filter):
                for b in a.bin:
                    results[(name, b)].append(
                        measure(b, args, a.iterations, trace))
        print(f"CPU: {benchenv.cpu_model()}; load average {benchenv.load()}; "
              f"{a.rounds} rounds of {a.iterations} runs\n")
        print("| model | binary | run median | run best | steps | steps' "
              "summed medians | slowest steps |")
        print("|---|---|---:|---:|---:|---:|---|")
        for (name, b), rs in results.items():
            top = "; ".join(f"{n[:60]} {t:.1f}" for n, t in rs[-1][4])
            print(f"| {name} | {b} | "
                  f"{statistics.median(r[0] for r in rs):.1f} µs | "
                  f"{min(r[1] for r in rs):.1f} µs | {rs[-1][2]} | "
                  f"{statistics.median(r[3] for r in rs):.1f} µs | {top} |")


if __name__ == "__main__":
    sys.exit(main())
