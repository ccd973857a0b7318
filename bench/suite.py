#!/usr/bin/env python3
"""The benchmark suite behind bench/run: every figure a ratio measured side
by side in one run. Prints one Markdown table and writes it, with the
machine's description and a breakdown, to bench/results/<date>.md.

1. Compile time at scale: `gplace-opt --gplace-pipeline` against
   parse-and-print on 10k, 100k and 1M-op graphs, and the 100k -> 1M growth
   (bench/placement.py).
2. Runtime against ONNX Runtime on the CPU: dispatch, a 3-layer MLP, a
   2048^3 matmul (bench/peers.py, bench/onnx/ort.mjs).
3. GEMM through gplace-run against OpenBLAS called directly
   (bench/runtime.py).

Usage: bench/suite.py --build DIR [--repeat 3] [--sizes ...] [--no-write]
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import peers  # noqa: E402
import placement  # noqa: E402
import runtime  # noqa: E402


def command_output(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine():
    cpu = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kb = int(f.readline().split()[1])
    os_name = platform.platform()
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    os_name = line.split("=", 1)[1].strip().strip('"')
    with open(os.path.join(HERE, "onnx", "node_modules", "onnxruntime-node",
                           "package.json")) as f:
        ort = json.load(f)["version"]
    blas = command_output(["dpkg-query", "-W", "-f=${Version}",
                           "libopenblas0-pthread"])
    return (f"{os.cpu_count()} × {cpu}, {mem_kb / 2**20:.0f} GiB RAM, "
            f"{os_name}; LLVM/MLIR {command_output(['llvm-config-19', '--version'])}, "
            f"OpenBLAS {blas}, Node.js {command_output(['node', '--version'])}, "
            f"onnxruntime-node {ort} (CPU execution provider)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--gemm-n", type=int, default=1024)
    parser.add_argument("--no-write", action="store_true",
                        help="print only; do not write bench/results/")
    args = parser.parse_args()

    opt = os.path.join(args.build, "bin", "gplace-opt")
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"compile time: {args.sizes} ops ...", file=sys.stderr)
    scale = placement.scale(opt, sizes, args.repeat, pipeline=True)
    print("runtime against ONNX Runtime ...", file=sys.stderr)
    peer_rows = peers.measure(args.build, args.repeat)
    print("GEMM against OpenBLAS ...", file=sys.stderr)
    gplace, blas = runtime.gemm_vs_blas(args.build, args.gemm_n, args.repeat)

    rows = []
    for ops, base, total, passes, _ in scale:
        rows.append((f"compile {ops} ops: `gplace-opt --gplace-pipeline` vs "
                     "parse+print", f"{total:.2f} s", f"{base:.2f} s",
                     f"{total / base:.2f}", "≤ 2"))
    if len(scale) >= 2:
        (n0, _, t0, _, _), (n1, _, t1, _, _) = scale[-2], scale[-1]
        rows.append((f"compile growth {n0} → {n1} ops", f"{t1 / t0:.1f}×",
                     "", f"{t1 / t0 / (n1 / n0):.2f}",
                     f"≈ 1 (linear: {n1 / n0:.0f}×)"))
    for name, *cells in peer_rows:
        rows.append(("ONNX Runtime: " + name, *cells))
    flops = 2.0 * args.gemm_n ** 3
    rows.append((f"GEMM {args.gemm_n}³ f32 vs OpenBLAS `cblas_sgemm`",
                 f"{gplace * 1e3:.1f} ms ({flops / gplace / 1e9:.0f} GFLOP/s)",
                 f"{blas * 1e3:.1f} ms ({flops / blas / 1e9:.0f} GFLOP/s)",
                 f"{blas / gplace:.2f}", "≥ 0.9"))

    table = ["| benchmark | gplace | peer | ratio | goal |",
             "|---|---:|---:|---:|---:|"]
    table += [f"| {' | '.join(row)} |" for row in rows]
    table = "\n".join(table)
    print(table)

    if args.no_write:
        return
    today = datetime.date.today().isoformat()
    _, _, _, _, report = scale[-1]
    breakdown = ", ".join(f"{name} {t:.2f} s" for name, t in report.items()
                          if name not in ("Total", "Rest"))
    path = os.path.join(HERE, "results", f"{today}.md")
    with open(path, "w") as f:
        f.write(f"# Benchmarks — {today}\n\n"
                f"Machine: {machine()}.\n"
                f"Command: `bench/run` (Release build; best of "
                f"{args.repeat} per cell; every ratio measured side by side "
                "in this run).\n\n"
                "Ratios: for compile time, gplace's time over the peer's "
                "(lower is better); for the rest, the peer's time over "
                "gplace's (higher is better: above 1, gplace is faster).\n\n"
                f"{table}\n\n"
                f"Where the {scale[-1][0]}-op pipeline's time goes "
                f"(--mlir-timing): {breakdown}.\n")
    print(f"\nwritten to {os.path.relpath(path)}", file=sys.stderr)


if __name__ == "__main__":
    main()
