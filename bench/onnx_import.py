#!/usr/bin/env python3
"""The ONNX importer (R2-8/8): its import time against MLIR's own
parse-and-print, and CPU inference of imported models against ONNX Runtime.

1. Import time. `gplace-onnx-gen chain:N` writes a chain of N elementwise
   nodes (x[64] -> Add, Mul, Sub, Max, Add, ... -> y, with --ops N). A
   sample of the import is the wall time of one `gplace-translate
   --import-onnx chain.onnx -o chain.mlir` process; a sample of the peer is
   one `gplace-opt chain.mlir -o /dev/null` process, which parses the
   imported module and prints it (gplace-opt runs no pass without pass
   options). One untimed import writes chain.mlir first (the script checks
   it holds the N nodes, `chain/op_0` to `chain/op_<N-1>`); then --repeat
   rounds, each an import then a parse+print. Ratio: import / parse+print
   (lower is better: 1 means the import costs what reading and writing its
   own output costs).

2. CPU inference against ONNX Runtime, on the same .onnx files:
   `gplace-onnx-gen mlp-bench` (784-1024-1024-10 Gemm/Relu MLP with
   Softmax) and `gplace-onnx-gen cnn` (Conv, Relu, MaxPool, Conv,
   BatchNormalization, Relu, AveragePool, Flatten, Gemm), batch --batch,
   the input deterministic (element i of the flattened array is
   (i * 7919 % 1000) / 1000, as test/Tools/onnx/Inputs/).
   - gplace: one `gplace-run F.onnx --dim batch=B --input=@x.npy
     --iterations=1+K --print-timing` process; the sample is its "then
     mean", the mean of the K runs after the first (importing, compiling,
     loading the plan and staging the input come before the first run and
     are not timed);
   - ONNX Runtime: one `node bench/onnx/run_model.mjs F.onnx P x.npy --runs
     K` process (CPU execution provider, graph optimization "all",
     intraOpNumThreads = the cores, interOpNumThreads 1); the sample is its
     `ms_median`, the median of K timed `session.run` calls after one
     untimed run (run_model.mjs reports a median and a best, not a mean: a
     median ignores the slow outliers that a mean counts, so this favours
     ONNX Runtime a little where a process has some).
   Each side first runs once untimed with its output written (gplace-run
   `--output=@g.npy --log-device-placement`, which also gives the kernels it
   runs; run_model.mjs writes P0.npy), and the outputs are compared (max
   |difference|; they agree if it is at most 1e-4 * (max |value| + 1)).
   Then one untimed sample each, then --repeat rounds, each a gplace sample
   then an ONNX Runtime sample. Ratio: ONNX Runtime / gplace (higher is
   better: above 1, gplace is faster).

Times are median / best over the samples, ratios median over median and
best over best. The binaries (gplace-onnx-gen, gplace-translate, gplace-opt,
gplace-run) are copied into a temporary directory first and only the copies
run, so a rebuild of build/ during the run cannot change them. The report
(Markdown, with an Environment section) goes to stdout, progress to stderr.
Needs bench/onnx/node_modules (`cd bench/onnx && npm ci --ignore-scripts`).

Usage: bench/onnx_import.py [--build build] [--ops 100000] [--repeat 7]
                            [--batch 64] [--runs 100]
                            [--skip-import] [--skip-inference]
"""
import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import struct
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchenv import (checkout_state, command_line, command_output,  # noqa: E402
                      cpu_family, env_variables, environment_section,
                      gplace_matmul, load,
                      loaded_library, sha256)
from benchlib import (ROOT, Failure, log, median, ms,  # noqa: E402
                      pair, parse_timing, run, write_f32)
from replicate import cpu_times, other_load  # noqa: E402
from suite import BLAS_ENV, BLAS_FLAGS, cpu, openblas  # noqa: E402

ONNX_DIR = os.path.join(HERE, "onnx")
RUN_MODEL = os.path.join(ONNX_DIR, "run_model.mjs")
TOOLS = ("gplace-onnx-gen", "gplace-translate", "gplace-opt", "gplace-run")
PLACED = re.compile(r"^(\S+): \((\w+)\): /job:\S+$", re.MULTILINE)
CHAIN_OP = re.compile(r'\{name = "chain/op_(\d+)"\}')


# --- .npy files -------------------------------------------------------------

def write_npy(path, shape):
    """A float32 C-order .npy of `shape`: element i is (i*7919 % 1000)/1000."""
    n = 1
    for d in shape:
        n *= d
    write_f32(path, shape, [(i * 7919 % 1000) / 1000.0 for i in range(n)])


def read_npy(path):
    """(shape, values) of a little-endian float32 C-order .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    major = data[6]
    if major == 1:
        (length,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (length,), start = struct.unpack("<I", data[8:12]), 12
    header = data[start:start + length].decode("latin1")
    if "'<f4'" not in header or "'fortran_order': False" not in header:
        raise ValueError(f"{path}: not little-endian float32 in C order: "
                         f"{header.strip()}")
    shape = tuple(int(d) for d in
                  re.search(r"'shape': \(([^)]*)\)", header).group(1)
                  .replace(",", " ").split())
    body = data[start + length:]
    n = len(body) // 4
    return shape, struct.unpack(f"<{n}f", body[:n * 4])


def compare(path_a, path_b):
    """(max |a - b|, max |a|, agree) of two .npy files; agree if the shapes
    match and the difference is at most 1e-4 * (max |a| + 1)."""
    shape_a, a = read_npy(path_a)
    shape_b, b = read_npy(path_b)
    if shape_a != shape_b or len(a) != len(b):
        return None, None, False
    diff = max(abs(x - y) for x, y in zip(a, b))
    scale = max(abs(x) for x in a)
    return diff, scale, diff <= 1e-4 * (scale + 1)


# --- 1. Import time ---------------------------------------------------------

def import_time(tools, work, ops, repeat):
    onnx = os.path.join(work, "chain.onnx")
    mlir = os.path.join(work, "chain.mlir")
    log(f"import: gplace-onnx-gen chain:{ops}")
    run([tools["gplace-onnx-gen"], f"chain:{ops}", onnx],
        "gplace-onnx-gen failed")
    translate = [tools["gplace-translate"], "--import-onnx", onnx, "-o", mlir]
    opt = [tools["gplace-opt"], mlir, "-o", "/dev/null"]
    log("import: untimed import, checking its nodes")
    run(translate, "gplace-translate --import-onnx failed")
    with open(mlir) as f:
        text = f.read()
    indices = [int(m.group(1)) for m in CHAIN_OP.finditer(text)]
    if indices != list(range(ops)):
        raise Failure(translate, 0, "",
                      f"chain.mlir has {len(indices)} chain/op_ ops, not "
                      f"chain/op_0 to chain/op_{ops - 1} in order")
    result = {"ops": ops, "onnx_bytes": os.path.getsize(onnx),
              "mlir_bytes": os.path.getsize(mlir), "translate": translate,
              "opt": opt, "import": [], "parse": [], "import_rss": [],
              "parse_rss": []}
    for i in range(repeat):
        wall, rss, _, _ = run(translate,
                              "gplace-translate --import-onnx failed")
        result["import"].append(wall)
        result["import_rss"].append(rss)
        wall, rss, _, _ = run(opt, "gplace-opt (parse+print) failed")
        result["parse"].append(wall)
        result["parse_rss"].append(rss)
        log(f"  round {i + 1}/{repeat}: import {result['import'][-1]:.3f} s,"
            f" parse+print {result['parse'][-1]:.3f} s")
    return result


# --- 2. Inference -----------------------------------------------------------

class Model:
    def __init__(self, key, title, input_shape):
        self.key, self.title, self.input_shape = key, title, input_shape
        self.gplace, self.ort = [], []          # samples, seconds
        self.gplace_best_run, self.ort_best_run = [], []
        self.gplace_first = []                  # gplace's first run
        self.gplace_wall, self.ort_wall = [], []
        self.diff = self.scale = None
        self.agree = False
        self.kernels = {}
        self.threads = None
        self.failure = None


def omp_threads():
    """The OpenMP threads a process started from here gets: OMP_NUM_THREADS,
    else one per CPU it may use (libgomp's default)."""
    return os.environ.get("OMP_NUM_THREADS") or len(os.sched_getaffinity(0))


def inference(tools, work, model, batch, runs, repeat):
    onnx = os.path.join(work, f"{model.key}.onnx")
    x = os.path.join(work, f"{model.key}-x.npy")
    g_out = os.path.join(work, f"{model.key}-gplace.npy")
    prefix = os.path.join(work, f"{model.key}-ort")
    run([tools["gplace-onnx-gen"], model.key, onnx], "gplace-onnx-gen failed")
    write_npy(x, [batch] + model.input_shape)
    gplace = [tools["gplace-run"], onnx, f"--dim=batch={batch}",
              f"--input=@{x}"]
    ort = ["node", RUN_MODEL, onnx, prefix, x]
    model.gplace_cmd = gplace + [f"--iterations={1 + runs}",
                                 "--print-timing",
                                 f"--output=@{g_out}"]
    model.ort_cmd = ort + ["--runs", str(runs)]

    log(f"{model.key}: outputs (gplace-run --log-device-placement, "
        "run_model.mjs)")
    _, _, _, err = run(gplace + [f"--output=@{g_out}",
                                 "--log-device-placement"],
                       "gplace-run failed")
    for _, kind in PLACED.findall(err):
        model.kernels[kind] = model.kernels.get(kind, 0) + 1
    model.fusion = [line for line in err.splitlines()
                    if line.startswith("Fusion:")]
    run(ort, "run_model.mjs failed", cwd=ONNX_DIR)
    model.diff, model.scale, model.agree = compare(g_out, prefix + "0.npy")

    def gplace_sample(timed):
        wall, _, _, err = run(model.gplace_cmd, "gplace-run failed")
        timing = parse_timing(err)
        if not timing:
            raise Failure(model.gplace_cmd, 0, err,
                          "no `timing: ... then mean` line from gplace-run")
        if timed:
            model.gplace.append(timing.mean)
            model.gplace_best_run.append(timing.best)
            model.gplace_first.append(timing.first)
            model.gplace_wall.append(wall)

    def ort_sample(timed):
        wall, _, out, err = run(model.ort_cmd, "run_model.mjs failed",
                                cwd=ONNX_DIR)
        try:
            figures = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise Failure(model.ort_cmd, 0, out + err,
                          "no JSON line from run_model.mjs")
        model.threads = figures["intra_op_threads"]
        if timed:
            model.ort.append(figures["ms_median"] / 1e3)
            model.ort_best_run.append(figures["ms_best"] / 1e3)
            model.ort_wall.append(wall)

    log(f"{model.key}: one untimed sample each")
    gplace_sample(False)
    ort_sample(False)
    for i in range(repeat):
        gplace_sample(True)
        ort_sample(True)
        log(f"  round {i + 1}/{repeat}: gplace {ms(model.gplace[-1])} ms, "
            f"ONNX Runtime {ms(model.ort[-1])} ms")


# --- The report -------------------------------------------------------------

def onednn(binary):
    """The libdnnl `binary` loads (ldd): its real path, package and
    version."""
    return loaded_library(binary, "libdnnl") or "no shared libdnnl in `ldd`"


def environment(build, tools, start_load):
    model, flags = cpu()
    family = cpu_family()
    run_bin = tools["gplace-run"]
    blas, core, blas_threads = openblas(run_bin)
    head, dirty = checkout_state(ROOT)
    try:
        with open(os.path.join(ONNX_DIR, "node_modules", "onnxruntime-node",
                               "package.json")) as f:
            ort_version = json.load(f)["version"]
    except OSError:
        ort_version = "not installed"
    env = [
        f"- CPU: {model} (family {family.get('cpu family', '?')}, model "
        f"{family.get('model', '?')}); `nproc` {command_output(['nproc'])}, "
        f"{len(os.sched_getaffinity(0))} usable by this process; flags "
        + " ".join(f for f in BLAS_FLAGS if f in flags) + "; absent: "
        + (" ".join(f for f in BLAS_FLAGS if f not in flags) or "none"),
        f"- Load average {start_load} at the start",
        "- gplace: copies of `" + os.path.abspath(os.path.join(build, "bin"))
        + "/` " + ", ".join(f"{t} (sha256 {sha256(p)[:16]})"
                            for t, p in tools.items())
        + f", LLVM/MLIR {command_output(['llvm-config-19', '--version'])}; "
        f"the checkout was at {head}"
        + (" with uncommitted changes to tracked files" if dirty else "")
        + " when the run started (the binaries may have been built from "
        "another state)",
        f"- BLAS of gplace-run (f64 MatMul, Gemm): {blas}",
        f"- oneDNN of gplace-run (Conv, pooling, BatchNormalization, f32 MatMul and Gemm): {onednn(run_bin)}",
        f"- ONNX Runtime: onnxruntime-node {ort_version} (CPU execution "
        "provider, MLAS; graph optimization level \"all\"), Node.js "
        f"{command_output(['node', '--version'])}; `intraOpNumThreads` = "
        "`os.availableParallelism()` (the figure run_model.mjs reported is "
        "in the results), `interOpNumThreads` 1, sequential execution",
        f"- Environment variables: {env_variables(BLAS_ENV)}",
    ]
    # The kernels gplace-run itself runs: it restarts with the CPU's own
    # where OpenBLAS falls back to Prescott's (docs/runtime.md), which this
    # process's OpenBLAS (above) does not.
    listing = command_output([run_bin, "--list-devices"]).splitlines()
    kernels = [l[len("BLAS: "):] for l in listing if l.startswith("BLAS: ")]
    env.append("- BLAS kernels gplace-run runs (its `--list-devices`): "
               + (kernels[0] if kernels else "not reported"))
    env.append(f"- Matmul of gplace-run (MatMul, Gemm): {gplace_matmul(run_bin)}")
    if "OPENBLAS_CORETYPE" in os.environ:
        env.append("- **Warning: OPENBLAS_CORETYPE is set**: OpenBLAS runs "
                   f"{core}'s kernels, not the ones it picks for this CPU "
                   "(bench/README.md)")
    return env, blas_threads


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--ops", type=int, default=100000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--skip-import", action="store_true")
    parser.add_argument("--skip-inference", action="store_true")
    args = parser.parse_args()
    if args.ops < 1 or args.repeat < 1 or args.batch < 1 or args.runs < 1:
        sys.exit("--ops, --repeat, --batch and --runs must be positive")
    if not args.skip_inference and not os.path.isdir(
            os.path.join(ONNX_DIR, "node_modules", "onnxruntime-node")):
        sys.exit("no bench/onnx/node_modules/onnxruntime-node: run `cd "
                 "bench/onnx && npm ci --ignore-scripts` first")

    work = tempfile.mkdtemp(prefix="gplace-onnx-bench-")
    try:
        ok = benchmark(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not ok:
        sys.exit(1)


def benchmark(args, work):
    """Copies the tools into `work`, measures and prints the report;
    whether everything ran and the outputs agreed."""
    tools = {}
    for tool in TOOLS:
        source = os.path.join(args.build, "bin", tool)
        if not os.path.isfile(source):
            sys.exit(f"no {tool} at {source}")
        tools[tool] = os.path.join(work, tool)
        shutil.copy2(source, tools[tool])

    def shown(cmd):
        return " ".join(shlex.quote(c.replace(work, "$WORK")) for c in cmd)

    start_load, started, start_cpu = load(), time.monotonic(), cpu_times()
    env, blas_threads = environment(args.build, tools, start_load)
    log("\n".join(env))

    failures, chain, models, phases = [], None, [], []
    if not args.skip_import:
        phase = time.monotonic()
        try:
            chain = import_time(tools, work, args.ops, args.repeat)
        except Failure as failure:
            log(f"  FAILED: {failure.why}")
            failures.append(failure)
        phases.append(f"import {time.monotonic() - phase:.0f} s")
    if not args.skip_inference:
        phase = time.monotonic()
        for key, title, shape in (
                ("mlp-bench", "mlp-bench (784-1024-1024-10 MLP, Softmax)",
                 [784]),
                ("cnn", "cnn (2 Conv, BatchNormalization, pools, Gemm)",
                 [1, 28, 28])):
            model = Model(key, title, shape)
            models.append(model)
            try:
                inference(tools, work, model, args.batch, args.runs,
                          args.repeat)
            except Failure as failure:
                log(f"  FAILED: {model.key}: {failure.why}")
                model.failure = failure
                failures.append(failure)
        phases.append(f"inference {time.monotonic() - phase:.0f} s")

    elapsed = time.monotonic() - started
    others = other_load(start_cpu, cpu_times(), elapsed)
    out = print
    out(f"# ONNX import and inference — {datetime.date.today().isoformat()}"
        "\n")
    for line in environment_section(env, elapsed, phases, others):
        out(line)
    out("## Results\n")
    out(f"Command: `{command_line()}`"
        ". Times are median / best of the samples, ratios median over "
        "median and best over best (bench/README.md).\n")

    if chain and chain["import"]:
        n = chain["ops"]
        imp, par = chain["import"], chain["parse"]
        out(f"### Import time: a chain of {n} nodes\n")
        out(f"`gplace-onnx-gen chain:{n}` ({chain['onnx_bytes'] / 2**20:.1f}"
            f" MiB of .onnx; {chain['mlir_bytes'] / 2**20:.1f} MiB of "
            f"imported .mlir, checked to hold its {n} nodes). A sample is one "
            "process's wall time; "
            f"{len(imp)} samples each, import and parse+print in turn. Ratio: "
            "import / parse+print (lower is better).\n")
        out("| | command | wall (median / best) | µs per node (median) | "
            "peak RSS (max) |")
        out("|---|---|---:|---:|---:|")
        out(f"| import | `{shown(chain['translate'])}` | "
            f"{pair(imp, False)} | {median(imp) / n * 1e6:.2f} | "
            f"{max(chain['import_rss']):.0f} MiB |")
        out(f"| parse+print | `{shown(chain['opt'])}` | {pair(par, False)} "
            f"| {median(par) / n * 1e6:.2f} | "
            f"{max(chain['parse_rss']):.0f} MiB |")
        out("")
        out(f"**Import / parse+print: {median(imp) / median(par):.2f} "
            f"(median) / {min(imp) / min(par):.2f} (best).**\n")
        out("Samples (s): import " + ", ".join(f"{t:.3f}" for t in imp) +
            "; parse+print " + ", ".join(f"{t:.3f}" for t in par) + ".\n")

    if models:
        threads = {m.threads for m in models if m.threads}
        out(f"### CPU inference against ONNX Runtime, batch {args.batch}\n")
        out(f"K = {args.runs} timed runs a sample; {args.repeat} samples a "
            "side, the sides in turn, after one untimed sample each. A "
            "gplace sample is one gplace-run process's **mean** run after "
            "its first (\"then mean\"); an ONNX Runtime sample is one "
            "run_model.mjs process's **median** `session.run` (it reports no "
            "mean; a median leaves out slow outliers a mean counts, which "
            "favours ONNX Runtime a little). ONNX Runtime's "
            f"`intraOpNumThreads`: {', '.join(map(str, sorted(threads)))}; "
            "gplace-run's threads for MatMul, Gemm and Conv: oneDNN's "
            f"OpenMP pool, {omp_threads()} (OpenBLAS, for f64 only: "
            f"{blas_threads}). Ratio: ONNX "
            "Runtime / gplace (above 1: gplace is faster).\n")
        out("| model | gplace-run (median / best) | ONNX Runtime (median / "
            "best) | ONNX Runtime / gplace (median / best) | outputs: max "
            "\\|diff\\| (max \\|value\\|) |")
        out("|---|---:|---:|---:|---|")
        for m in models:
            if m.failure or not m.gplace or not m.ort:
                out(f"| {m.title} | failed | | | |")
                continue
            check = ("—" if m.diff is None else
                     f"{m.diff:.2e} ({m.scale:.3g}): "
                     + ("agree" if m.agree else "**differ**"))
            out(f"| {m.title} | {pair(m.gplace)} | {pair(m.ort)} | "
                f"**{median(m.ort) / median(m.gplace):.2f} / "
                f"{min(m.ort) / min(m.gplace):.2f}** | {check} |")
        out("")
        out("Beside the samples, in the same processes (not part of the "
            "ratios):\n")
        out("| model | gplace-run: fastest single run (min over processes) "
            "| ONNX Runtime: fastest single run | gplace-run: first run "
            "(median) | process wall, gplace-run / run_model.mjs (median) |")
        out("|---|---:|---:|---:|---:|")
        for m in models:
            if m.failure or not m.gplace or not m.ort:
                continue
            out(f"| {m.key} | {ms(min(m.gplace_best_run))} ms | "
                f"{ms(min(m.ort_best_run))} ms | {ms(median(m.gplace_first))}"
                f" ms | {median(m.gplace_wall):.2f} / "
                f"{median(m.ort_wall):.2f} s |")
        out("")
        for m in models:
            if not m.gplace:
                continue
            out(f"- {m.key}: samples (ms) gplace "
                + ", ".join(ms(s) for s in m.gplace) + "; ONNX Runtime "
                + ", ".join(ms(s) for s in m.ort) + ".")
            out(f"  What gplace-run runs (`--log-device-placement`): "
                + ", ".join(f"{kind} {count}" for kind, count in
                            sorted(m.kernels.items(),
                                   key=lambda item: (-item[1], item[0])))
                + (f"; {'; '.join(m.fusion)}" if m.fusion else "") + ".")
        out("")

    if failures:
        out("### What failed\n")
        out("`$WORK` is the script's temporary directory.\n")
        for failure in failures:
            out(failure.markdown(shown))
    return not failures and all(m.agree for m in models if not m.failure)


if __name__ == "__main__":
    main()
