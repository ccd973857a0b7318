#!/usr/bin/env python3
"""Runtime benchmarks, each a ratio measured side by side in one run:

1. dispatch: a chain of 10,000 tiny elementwise ops on the CPU through
   gplace-run, fused (one kernel, the default) and unfused
   (--fuse-elementwise=false, a launch per op), against the same chain as
   a plain C loop (gplace-bench-chain); the time per op, from gplace-run's
   --print-timing (each run timed in the process, so parsing and compiling
   are left out);
2. GEMM: a 1024x1024x1024 f32 matmul through gplace-run (same method)
   against OpenBLAS's cblas_sgemm called directly (gplace-bench-gemm).

Every time is the best and the median of --repeat samples; a sample is one
process's mean time per run over a batch of runs after one untimed run
(`sample` below). The two sides' samples are taken in turn, after one
untimed sample of each (`interleave`).

Usage: bench/runtime.py [--build build] [--ops 10000] [--n 1024]
                        [--repeat 5]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def sample(cmd, runs):
    """One sample of gplace-run: seconds per run of its plan. `cmd` runs it
    1 + `runs` times in one process with --print-timing, which times each
    run (the plan on the staged inputs; parsing, compiling and staging the
    inputs come before); the sample is the mean of the `runs` after the
    first."""
    run = subprocess.run(cmd + [f"--iterations={1 + runs}", "--print-timing"],
                         check=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    match = re.search(r"then mean ([0-9.]+) ms", run.stderr)
    if not match:
        sys.exit(f"no timing in gplace-run's output: {run.stderr}")
    return float(match.group(1)) / 1e3


def interleave(samplers, repeat, warmup=True):
    """Calls each function in `samplers` once, untimed (unless not
    `warmup`), then `repeat` rounds of each in turn, so that a drift of the
    machine's state affects every side alike. Returns one list of samples
    per sampler."""
    if warmup:
        for take in samplers:
            take()
    samples = [[] for _ in samplers]
    for _ in range(repeat):
        for take, into in zip(samplers, samples):
            into.append(take())
    return samples


def best_median(samples):
    """(best, median) of a list of times."""
    return min(samples), statistics.median(samples)


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


def gemm_vs_blas(build, n, repeat, runs=20):
    """Seconds per n^3 f32 GEMM, ((best, median) through gplace-run,
    (best, median) of cblas_sgemm called directly); a sample on either side
    is one process's mean over `runs` GEMMs after one untimed GEMM."""
    run = os.path.join(build, "bin", "gplace-run")
    baseline = os.path.join(build, "bin", "gplace-bench-gemm")
    with tempfile.TemporaryDirectory() as tmp:
        gemm_path = os.path.join(tmp, "gemm.mlir")
        with open(gemm_path, "w") as f:
            f.write(gemm(n))
        gplace, blas = interleave([
            lambda: sample([run, gemm_path, "--output=@" + os.devnull], runs),
            lambda: float(subprocess.run(
                [baseline, str(n), str(runs)], check=True,
                capture_output=True, text=True).stdout),
        ], repeat)
    return best_median(gplace), best_median(blas)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--ops", type=int, default=10000)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    run = os.path.join(args.build, "bin", "gplace-run")
    with tempfile.TemporaryDirectory() as tmp:
        chain_path = os.path.join(tmp, "chain.mlir")
        with open(chain_path, "w") as f:
            f.write(chain(args.ops))
        loop = os.path.join(args.build, "bin", "gplace-bench-chain")
        chain_cmd = [run, chain_path, "--input=4xf32=1,2,3,4"]
        fused, unfused, c_loop = interleave([
            lambda: sample(chain_cmd, 1000),
            lambda: sample(chain_cmd + ["--fuse-elementwise=false"], 1000),
            lambda: float(subprocess.run(
                [loop, str(args.ops), "1000"], check=True,
                capture_output=True, text=True).stdout),
        ], args.repeat)
    per_op = [tuple(t / args.ops * 1e9 for t in best_median(side))
              for side in (fused, unfused, c_loop)]
    (g_best, g_median), (b_best, b_median) = gemm_vs_blas(
        args.build, args.n, args.repeat)
    flops = 2.0 * args.n ** 3
    print(f"Best and median of {args.repeat} samples on each side.\n")
    print("| benchmark | gplace-run (best / median) | baseline (best / median) "
          "| ratio baseline / gplace (best / median) |")
    print("|---|---:|---:|---:|")
    (l_best, l_median) = per_op[2]
    for name, (best, median) in (("fused", per_op[0]),
                                 ("unfused", per_op[1])):
        print(f"| dispatch, chain of {args.ops} elementwise ops (4 floats) "
              f"on CPU, {name} | {best:.1f} / {median:.1f} ns/op | "
              f"{l_best:.1f} / {l_median:.1f} ns/op (C loop) | "
              f"{l_best / best:.2f} / {l_median / median:.2f} |")
    print(f"| GEMM {args.n}³ f32 on CPU | {g_best * 1e3:.1f} / "
          f"{g_median * 1e3:.1f} ms ({flops / g_best / 1e9:.0f} GFLOP/s at "
          f"best) | {b_best * 1e3:.1f} / {b_median * 1e3:.1f} ms "
          f"({flops / b_best / 1e9:.0f} GFLOP/s at best, cblas_sgemm) | "
          f"{b_best / g_best:.2f} / {b_median / g_median:.2f} |")


if __name__ == "__main__":
    main()
