#!/usr/bin/env python3
"""Runtime benchmarks, each a ratio measured side by side in one run:

1. dispatch: a chain of 10,000 tiny elementwise ops on the CPU through
   gplace-run; the time per op, from gplace-run's --print-timing (each run
   timed in the process, so parsing and compiling are left out);
2. GEMM: a 1024x1024x1024 f32 matmul through gplace-run (same method)
   against OpenBLAS's cblas_sgemm called directly (gplace-bench-gemm).

Usage: bench/runtime.py [--build build] [--ops 10000] [--n 1024]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def per_iteration(cmd, extra, repeat):
    """Seconds per run of gplace-run's plan: `cmd` runs it 1 + `extra` times
    with --print-timing, which times each run in the process (inputs in,
    plan, results out); the mean of the runs after the first, best of
    `repeat` processes."""
    best = float("inf")
    for _ in range(repeat):
        run = subprocess.run(cmd + [f"--iterations={1 + extra}",
                                    "--print-timing"], check=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
        match = re.search(r"then mean ([0-9.]+) ms", run.stderr)
        if not match:
            sys.exit(f"no timing in gplace-run's output: {run.stderr}")
        best = min(best, float(match.group(1)) / 1e3)
    return best


def chain(ops):
    kinds = ["add", "mul", "sub", "maximum"]
    lines = ["func.func @main(%x0: tensor<4xf32>) -> tensor<4xf32> {",
             "  %c = gplace.constant dense<1.0> : tensor<4xf32>"]
    for i in range(1, ops + 1):
        lines.append(f"  %x{i} = gplace.{kinds[i % 4]} %x{i - 1}, %c : "
                     "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>")
    lines += [f"  return %x{ops} : tensor<4xf32>", "}"]
    return "\n".join(lines) + "\n"


def gemm(n):
    t = f"tensor<{n}x{n}xf32>"
    return (f"func.func @main() -> {t} {{\n"
            f"  %a = gplace.constant dense<1.0> : {t}\n"
            f"  %c = gplace.matmul %a, %a : ({t}, {t}) -> {t}\n"
            f"  return %c : {t}\n}}\n")


def gemm_vs_blas(build, n, repeat):
    """Seconds per n^3 f32 GEMM: (gplace-run, cblas_sgemm called directly)."""
    run = os.path.join(build, "bin", "gplace-run")
    baseline = os.path.join(build, "bin", "gplace-bench-gemm")
    with tempfile.TemporaryDirectory() as tmp:
        gemm_path = os.path.join(tmp, "gemm.mlir")
        with open(gemm_path, "w") as f:
            f.write(gemm(n))
        gplace = per_iteration([run, gemm_path, "--output=@" + os.devnull],
                               20, repeat)
    blas = float(subprocess.run([baseline, str(n), "20"], check=True,
                                capture_output=True, text=True).stdout)
    return gplace, blas


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--ops", type=int, default=10000)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    run = os.path.join(args.build, "bin", "gplace-run")
    with tempfile.TemporaryDirectory() as tmp:
        chain_path = os.path.join(tmp, "chain.mlir")
        with open(chain_path, "w") as f:
            f.write(chain(args.ops))
        dispatch = per_iteration([run, chain_path, "--input=4xf32=1,2,3,4"],
                                 1000, args.repeat) / args.ops
    gplace, blas = gemm_vs_blas(args.build, args.n, args.repeat)
    flops = 2.0 * args.n ** 3
    print("| benchmark | gplace-run | baseline | ratio (baseline / gplace) |")
    print("|---|---:|---:|---:|")
    print(f"| dispatch, chain of {args.ops} elementwise ops (4 floats) on CPU "
          f"| {dispatch * 1e6:.3f} µs/op | | |")
    print(f"| GEMM {args.n}³ f32 on CPU | {gplace * 1e3:.1f} ms "
          f"({flops / gplace / 1e9:.1f} GFLOP/s) | {blas * 1e3:.1f} ms "
          f"({flops / blas / 1e9:.1f} GFLOP/s, cblas_sgemm) | "
          f"{blas / gplace:.2f} |")


if __name__ == "__main__":
    main()
