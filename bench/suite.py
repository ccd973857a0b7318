#!/usr/bin/env python3
"""The benchmark suite behind bench/run: every figure a ratio measured side
by side in one run. Prints what changes the figures (CPU and its flags,
thread counts, the BLAS and the core type it picked, OPENBLAS_CORETYPE and
the thread variables) on stderr, then one Markdown table, and writes both,
with a breakdown, to bench/results/<date>.md.

1. Compile time at scale: `gplace-opt --gplace-pipeline` against
   parse-and-print on 10k, 100k and 1M-op graphs, with MLIR's verifier
   after every pass (gplace-opt's default) and without (--verify-each=false),
   and the 100k -> 1M growth (bench/placement.py).
2. Memory: each device's planned peak against its liveness lower bound on
   the bench graphs, multi-device ones included (bench/memory.py).
3. Runtime against ONNX Runtime on the CPU: dispatch, a 3-layer MLP, a
   2048^3 matmul (bench/peers.py, bench/onnx/ort.mjs).
4. GEMM through gplace-run against OpenBLAS called directly
   (bench/runtime.py).

Usage: bench/suite.py --build DIR [--repeat 5] [--sizes ...] [--no-write]
"""
import argparse
import ctypes
import datetime
import json
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchenv import (allocator, command_output,  # noqa: E402
                      transparent_huge_pages)
import memory  # noqa: E402
import peers  # noqa: E402
import placement  # noqa: E402
import runtime  # noqa: E402

# CPU features that decide which BLAS kernels run, in /proc/cpuinfo's names.
BLAS_FLAGS = ["sse4_2", "avx", "f16c", "fma", "avx2", "avx_vnni", "avx512f",
              "avx512dq", "avx512bw", "avx512vl", "avx512_vnni",
              "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16",
              "amx_int8"]
# Environment variables OpenBLAS reads for its core type and thread count.
BLAS_ENV = ["OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
            "GOTO_NUM_THREADS"]


def cpu():
    """(model name, set of flags) from /proc/cpuinfo's first processor."""
    model, flags = "unknown CPU", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model == "unknown CPU":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
                break
    return model, flags


def openblas(binary):
    """The libopenblas `binary` loads (from ldd), and what that library says
    of itself when loaded here, with this environment, as the binary loads
    it: a line for the Environment section, its core type, its threads."""
    lib = None
    for line in command_output(["ldd", binary]).splitlines():
        if "libopenblas" in line and "=>" in line:
            lib = line.split("=>")[1].split("(")[0].strip()
    if lib is None:
        return f"no shared libopenblas in `ldd {binary}`", None, None
    real = os.path.realpath(lib)
    package = command_output(["dpkg-query", "-S", real]).split(":")[0]
    version = command_output(["dpkg-query", "-W", "-f=${Version}", package])
    blas = ctypes.CDLL(lib)
    blas.openblas_get_config.restype = ctypes.c_char_p
    blas.openblas_get_corename.restype = ctypes.c_char_p
    config = blas.openblas_get_config().decode()
    core = blas.openblas_get_corename().decode()
    threads = blas.openblas_get_num_threads()
    parallel = {0: "sequential", 1: "pthreads", 2: "OpenMP"}.get(
        blas.openblas_get_parallel(), "unknown")
    return (f"{real} ({package} {version}); `openblas_get_config()`: "
            f"{config}; core type (`openblas_get_corename()`): **{core}**; "
            f"threads (`openblas_get_num_threads()`): **{threads}** "
            f"({parallel})"), core, threads


def environment(build):
    """What changes the figures, as (label, value) pairs, and warnings."""
    model, flags = cpu()
    usable = len(os.sched_getaffinity(0))
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
    ort_threads = int(command_output(
        ["node", os.path.join(HERE, "onnx", "ort.mjs"), "threads"]))
    run = os.path.join(build, "bin", "gplace-run")
    blas, core, blas_threads = openblas(run)
    baseline_blas, _, _ = openblas(os.path.join(build, "bin",
                                                "gplace-bench-gemm"))
    variables = {name: os.environ.get(name) for name in BLAS_ENV}
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())

    env = [
        ("CPU", f"{model}; `os.cpu_count()` {os.cpu_count()}, {usable} "
                "usable by this process"),
        ("CPU flags for BLAS kernels",
         " ".join(f for f in BLAS_FLAGS if f in flags) + "; absent: " +
         (" ".join(f for f in BLAS_FLAGS if f not in flags) or "none")),
        ("Machine", f"{mem_kb / 2**20:.0f} GiB RAM, {os_name}, load average "
                    f"{load} at the start"),
        ("gplace", f"Release build, LLVM/MLIR "
                   f"{command_output(['llvm-config-19', '--version'])}"),
        ("Allocator of gplace-opt and gplace-run",
         allocator(os.path.join(build, "bin", "gplace-opt")) +
         "; the kernel's transparent huge pages: " +
         (transparent_huge_pages() or "unknown")),
        ("BLAS of gplace-run", blas),
        ("BLAS of gplace-bench-gemm", "the same" if baseline_blas == blas
         else baseline_blas),
        ("ONNX Runtime", f"onnxruntime-node {ort} (CPU execution provider; "
                         "its MLAS picks its kernels from the CPU itself, "
                         "whatever OPENBLAS_CORETYPE says), Node.js "
                         f"{command_output(['node', '--version'])}; "
                         f"`intraOpNumThreads` **{ort_threads}**, "
                         "`interOpNumThreads` 1, sequential execution"),
        ("Environment variables", ", ".join(
            f"{name}={value}" if value is not None else f"{name} unset"
            for name, value in variables.items())),
    ]
    warnings = []
    if variables["OPENBLAS_CORETYPE"] is not None:
        warnings.append(
            f"OPENBLAS_CORETYPE={variables['OPENBLAS_CORETYPE']} is set: "
            f"OpenBLAS runs {core}'s kernels instead of the ones it picks "
            "for this CPU, which changes every GEMM figure (an inherited "
            "Haswell on an AVX-512 machine halves gplace's 2048³ matmul); "
            "unset it to measure this machine")
    if blas_threads is not None and blas_threads != ort_threads:
        warnings.append(f"OpenBLAS uses {blas_threads} threads and ONNX "
                        f"Runtime {ort_threads}: the sides do not use the "
                        "same cores")
    return env, warnings


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--gemm-n", type=int, default=1024)
    parser.add_argument("--no-write", action="store_true",
                        help="print only; do not write bench/results/")
    args = parser.parse_args()

    env, warnings = environment(args.build)
    print("Environment:", file=sys.stderr)
    for label, value in env:
        print(f"  {label}: {value.replace('**', '')}", file=sys.stderr)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)

    opt = os.path.join(args.build, "bin", "gplace-opt")
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"compile time: {args.sizes} ops ...", file=sys.stderr)
    scale = placement.scale(opt, sizes, args.repeat, pipeline=True)
    print("memory plans ...", file=sys.stderr)
    memory_rows = memory.measure(args.build)
    print("runtime against ONNX Runtime ...", file=sys.stderr)
    peer_rows = peers.measure(args.build, args.repeat)
    print("GEMM against OpenBLAS ...", file=sys.stderr)
    (g_best, g_median), (b_best, b_median) = runtime.gemm_vs_blas(
        args.build, args.gemm_n, args.repeat)

    rows = []
    for ops, (bb, bm), (tb, tm), _, _, (ub, um), (fv, fu), _ in scale:
        rows.append((f"compile {ops} ops: `gplace-opt --gplace-pipeline` vs "
                     "parse+print", f"{tb:.2f} / {tm:.2f} s",
                     f"{bb:.2f} / {bm:.2f} s", f"{tb / bb:.2f} / {tm / bm:.2f}",
                     "≤ 2"))
        rows.append((f"compile {ops} ops, `--verify-each=false`",
                     f"{ub:.2f} / {um:.2f} s", f"{bb:.2f} / {bm:.2f} s",
                     f"{ub / bb:.2f} / {um / bm:.2f}", "≤ 2"))
        # What no pass could go below (bench/placement.py's floors): parse,
        # print and MLIR's verifier after each pass, each its least over the
        # runs.
        rows.append((f"compile {ops} ops, floor if every pass took no time "
                     "(parse, MLIR's verifier after each pass, print)",
                     f"{fv:.2f} s", f"{bb:.2f} s", f"{fv / bb:.2f}", ""))
        rows.append((f"compile {ops} ops, floor if every pass took no time, "
                     "`--verify-each=false` (parse, print)",
                     f"{fu:.2f} s", f"{bb:.2f} s", f"{fu / bb:.2f}", ""))
    if len(scale) >= 2:
        (n0, _, t0, _, _, u0, *_), (n1, _, t1, _, _, u1, *_) = scale[-2:]
        for label, before, after in (("", t0, t1),
                                     (", `--verify-each=false`", u0, u1)):
            growth = [after[i] / before[i] for i in (0, 1)]
            rows.append((f"compile growth {n0} → {n1} ops{label}",
                         f"{growth[0]:.1f}× / {growth[1]:.1f}×", "",
                         f"{growth[0]:.1f} / {growth[1]:.1f}",
                         f"≤ {n1 / n0 * 1.1:.0f} (linear: {n1 / n0:.0f})"))
    for name, options, per_device in memory_rows:
        device, peak, bound, ratio = memory.worst(per_device)
        rows.append((f"memory: {name}, devices={options} (worst device, "
                     f"{device})", f"{peak} bytes peak",
                     f"{bound} bytes liveness lower bound", f"{ratio:.3f}",
                     "≤ 1.05"))
    for name, *cells in peer_rows:
        rows.append(("ONNX Runtime: " + name, *cells))
    flops = 2.0 * args.gemm_n ** 3
    rows.append((f"GEMM {args.gemm_n}³ f32 vs OpenBLAS `cblas_sgemm`",
                 f"{g_best * 1e3:.1f} / {g_median * 1e3:.1f} ms "
                 f"({flops / g_best / 1e9:.0f} GFLOP/s at best)",
                 f"{b_best * 1e3:.1f} / {b_median * 1e3:.1f} ms "
                 f"({flops / b_best / 1e9:.0f} GFLOP/s at best)",
                 f"{b_best / g_best:.2f} / {b_median / g_median:.2f}",
                 "≥ 0.9"))

    table = ["| benchmark | gplace (best / median) | peer (best / median) | "
             "ratio (best / median) | goal |",
             "|---|---:|---:|---:|---:|"]
    table += [f"| {' | '.join(row)} |" for row in rows]
    table = "\n".join(table)
    print(table)

    if args.no_write:
        return
    today = datetime.date.today().isoformat()
    _, _, _, _, report, *_ = scale[-1]
    breakdown = ", ".join(f"{name} {t:.2f} s" for name, t in report.items()
                          if name not in ("Total", "Rest"))
    environment_lines = "\n".join(f"- {label}: {value}"
                                   for label, value in env)
    environment_lines += "".join(f"\n- **Warning**: {warning}"
                                 for warning in warnings)
    path = os.path.join(HERE, "results", f"{today}.md")
    with open(path, "w") as f:
        f.write(f"# Benchmarks — {today}\n\n"
                "## Environment\n\n"
                f"{environment_lines}\n\n"
                "## Results\n\n"
                f"Command: `bench/run` (Release build; every ratio measured "
                "side by side in this run).\n\n"
                f"Each time is the best / the median of {args.repeat} "
                "samples per side, the sides' samples taken in turn. For "
                "compile time a sample is one gplace-opt process's wall "
                "time; for the rest, one process's mean time per run over a "
                "batch of runs after an untimed warm-up, the same on both "
                "sides (bench/README.md). Ratios are best over best and "
                "median over median: for compile time, gplace's time over "
                "the peer's (lower is better); for the rest, the peer's time "
                "over gplace's (higher is better: above 1, gplace is "
                "faster). Memory rows are one deterministic compile each: "
                "the planned peak of the device furthest above its bound, "
                "over that bound.\n\n"
                f"{table}\n\n"
                "Memory plans per device (bench/memory.py):\n\n"
                f"{memory.table(memory_rows)}\n\n"
                f"Where the {scale[-1][0]}-op pipeline's time goes "
                f"(--mlir-timing, fastest run): {breakdown}.\n")
    print(f"\nwritten to {os.path.relpath(path)}", file=sys.stderr)


if __name__ == "__main__":
    main()
