#!/usr/bin/python3
"""gplace-run against ONNX Runtime on ONNX's backend test models (issue 49's
performance item): every test of the conformance suites (Debian's
libonnx-testdata: node, pytorch-converted, pytorch-operator) that both run
and get right, timed on its own test data, on the CPU.

For each test directory (model.onnx, test_data_set_0/{input,output}_K.pb):

- The inputs and expected outputs are converted to .npy
  (onnx.numpy_helper) for ONNX Runtime; gplace-run reads the .pb files
  itself (`--input=@input_K.pb`).
- Round 1, which also checks: one gplace-run process with
  `--iterations=1+F --print-timing --log-device-placement --output=@...`
  (F = --first-runs, 20), whose outputs are compared here with the
  expected ones (ONNX's backend tolerances, rtol 1e-3, atol 1e-7, as
  gplace-onnx-test) and which gives the kernels it ran; then ONNX
  Runtime's first run in bench/onnx/ort_server.mjs, compared there the
  same way, and F timed runs. A test that either side cannot run or gets
  wrong is listed with the reason and not timed further.
- K, the runs each later sample times, is --target-ms over gplace-run's
  median run in round 1, from --min-runs to --max-runs.
- --repeat samples a side in all (round 1's included), in turn (gplace,
  ONNX Runtime, gplace, ...):
  - gplace-run: one process, `--iterations=1+K --print-timing
    --trace=trace.json`; the sample is the **median** of its K runs after
    the first, each run's time its `run` slice in the trace (the run from
    its first step issued until its results are in host memory; µs with
    three decimals, where `--print-timing` rounds to the µs and reads 0 for
    the many tests whose run is under a microsecond; `--print-timing`'s
    median is kept in the JSON beside it). Importing, compiling, loading
    and staging the inputs come before the first run; the placement log is
    printed before it. The trace also gives where the run goes (steps and
    their time, for the report's slow models); tracing adds two clock reads
    a step to gplace's side;
  - ONNX Runtime: in the one ort_server.mjs process, a fresh session
    (created and run once untimed), then K
    timed `session.run` calls; the sample is their **median**.
  A median per sample rather than a mean: gplace-run's last run also copies
  its results out (docs/gplace-run.md), and a few slow runs (page faults,
  another job) would otherwise move a sub-millisecond mean.
- Per test: best (min over samples) and median (over samples) of each
  side; ratio = ONNX Runtime / gplace (above 1: gplace is faster), best
  over best and median over median.

With --cnn, `gplace-onnx-gen cnn` at batch --cnn-batch (the imported CNN of
bench/onnx_import.py) is timed the same way, its outputs checked against
ONNX Runtime's instead of expected files.

The binaries (gplace-run, gplace-onnx-gen) are copied into a temporary
directory first. Results: a JSON file (--json) and a Markdown report on
stdout (--report JSON rewrites the report from a JSON file without
measuring). Progress goes to stderr.

--diagnose F.json reruns F's models slower than ONNX Runtime with
gplace-run's default (adaptive) threads and with one thread, in turn, and
prints their median runs: whether the slowness is the team of threads.

Usage: bench/onnx_suite.py [--bin build/bin] [--suite node,...]
           [--filter REGEX] [--repeat 3] [--target-ms 40] [--json F]
           [--cnn] | --report F.json | --diagnose F.json
"""
import argparse
import datetime
import glob
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchenv import (checkout_state, command_output, cpu_model,  # noqa: E402
                      env_variables, gplace_matmul, load, sha256)
from benchlib import BUILD, ROOT, TIMING, log  # noqa: E402

ONNX_DIR = os.path.join(HERE, "onnx")
SERVER = os.path.join(ONNX_DIR, "ort_server.mjs")
DATA = "/usr/include/onnx/backend/test/data"
SUITES = ("node", "pytorch-converted", "pytorch-operator")
BLAS_ENV = ["OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
            "GOTO_NUM_THREADS"]
PLACED = re.compile(r"^(\S+): \(([\w.]+)\): /job:\S+$", re.MULTILINE)
RTOL, ATOL = 1e-3, 1e-7


def first_error(text):
    """The first line of `text` that says what went wrong, shortened."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for line in lines:
        if "error" in line.lower():
            return line[:200]
    return (lines[-1] if lines else "(no message)")[:200]


class Ort:
    """The ort_server.mjs process."""

    def __init__(self):
        self.process = subprocess.Popen(
            ["node", SERVER], cwd=ONNX_DIR, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, request):
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            sys.exit("ort_server.mjs exited")
        return json.loads(line)

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def npy_for_ort(array):
    """The array as ort_server.mjs reads it, or None where it cannot
    (strings, objects)."""
    import numpy as np
    if array.dtype.kind not in "fiub" or array.dtype == np.float128:
        return None
    # np.require, not np.ascontiguousarray: the latter makes a scalar (0-d)
    # array of shape (1,).
    return np.require(array, requirements="C")


def numbered_pbs(data, prefix):
    """The files `prefix`_0.pb, `prefix`_1.pb, ... in `data`, in order."""
    return sorted(glob.glob(os.path.join(data, f"{prefix}_*.pb")),
                  key=lambda p: int(re.search(r"_(\d+)\.pb$", p).group(1)))


def pb_as_npy(pb, path):
    """Saves the TensorProto in `pb` as the .npy `path`; None, or the
    tensor's ONNX data type where it is not numeric (nothing saved)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    tensor = onnx.TensorProto()
    with open(pb, "rb") as f:
        tensor.ParseFromString(f.read())
    array = npy_for_ort(numpy_helper.to_array(tensor))
    if array is None:
        return tensor.data_type
    np.save(path, array)
    return None


def prepare(test_dir, work):
    """(inputs, expected): [(name, .pb, .npy)] and [(.pb, .npy)] of the
    test's first data set, or a string saying why the bench cannot run it."""
    import onnx
    model = onnx.load(os.path.join(test_dir, "model.onnx"),
                      load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in initializers]
    for i in graph_inputs:
        if not i.type.HasField("tensor_type"):
            return f"input '{i.name}' is not a tensor"
    data = os.path.join(test_dir, "test_data_set_0")
    inputs, expected = [], []
    pbs = numbered_pbs(data, "input")
    if len(pbs) != len(graph_inputs):
        return (f"{len(pbs)} input files for {len(graph_inputs)} graph "
                "inputs")
    for k, pb in enumerate(pbs):
        path = os.path.join(work, f"in{k}.npy")
        data_type = pb_as_npy(pb, path)
        if data_type is not None:
            return f"input {k} is {data_type} (not numeric)"
        inputs.append((graph_inputs[k].name, pb, path))
    outs = numbered_pbs(data, "output")
    if not outs:
        return "no output files"
    for k, pb in enumerate(outs):
        path = os.path.join(work, f"out{k}.npy")
        data_type = pb_as_npy(pb, path)
        if data_type is not None:
            return f"output {k} is {data_type} (not numeric)"
        expected.append((pb, path))
    return inputs, expected


def agree(actual, expected):
    """None if the arrays agree (ONNX's tolerances), else why not."""
    import numpy as np
    if actual.shape != expected.shape:
        return f"shape {actual.shape}, expected {expected.shape}"
    if expected.dtype.kind == "f":
        a = actual.astype(np.float64)
        e = expected.astype(np.float64)
        both_nan = np.isnan(a) & np.isnan(e)
        ok = both_nan | (np.abs(a - e) <= ATOL + RTOL * np.abs(e))
    else:
        ok = actual == expected
    if not np.all(ok):
        i = int(np.argmin(ok.reshape(-1)))
        return (f"element {i} is {actual.reshape(-1)[i]}, expected "
                f"{expected.reshape(-1)[i]}")
    return None


def run_gplace(cmd, timeout, trace):
    """(stderr, timing match, trace_stats) of one gplace-run process run
    with --trace=`trace`, or raises RuntimeError with its error."""
    try:
        done = subprocess.run(cmd + [f"--trace={trace}"],
                              capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"timed out after {timeout} s")
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: "
                           f"{first_error(done.stderr)}")
    match = TIMING.search(done.stderr)
    if not match:
        raise RuntimeError("no timing line")
    return done.stderr, match, trace_stats(trace)


def measure(args, tools, ort, name, suite, model, gplace_inputs, ort_inputs,
            expected, work, extra=()):
    """One test's record (a dict): status, kernels, samples."""
    import numpy as np
    record = {"suite": suite, "test": name, "status": "ok"}
    g_outs = [os.path.join(work, f"g{k}.npy") for k in range(len(expected
                                                               or [None]))]
    base = [tools["gplace-run"], model, *extra] + [
        f"--input=@{p}" for p in gplace_inputs]
    record.update(gplace=[], ort=[], gplace_best_run=[], ort_best_run=[],
                  gplace_timing=[], runs=[args.first_runs])
    trace = os.path.join(work, "trace.json")
    try:
        err, match, stats = run_gplace(
            base + [f"--iterations={1 + args.first_runs}", "--print-timing",
                    "--log-device-placement"] +
            [f"--output=@{p}" for p in g_outs], args.timeout, trace)
    except RuntimeError as e:
        record.update(status="gplace fails", why=str(e))
        return record
    kernels = {}
    for _, kind in PLACED.findall(err):
        kernels[kind] = kernels.get(kind, 0) + 1
    record["kernels"] = kernels
    record["fusion"] = [l for l in err.splitlines()
                        if l.startswith("Fusion:")]
    record["first_ms"] = float(match.group(2))
    if expected is not None:
        for k, (_, npy) in enumerate(expected):
            why = agree(np.load(g_outs[k]), np.load(npy))
            if why:
                record.update(status="gplace differs",
                              why=f"output {k}: {why}")
                return record
    check = ort.ask({"op": "check", "model": model, "inputs": ort_inputs,
                     "expected": [npy for _, npy in expected]
                     if expected is not None else g_outs,
                     "rtol": RTOL if expected is not None else 1e-4,
                     "atol": ATOL if expected is not None else 1e-4})
    if "error" in check or not check.get("ok"):
        record.update(status="ORT fails",
                      why=check.get("error") or check.get("why"))
        return record
    # The check is gplace's first sample (its median run is not moved by
    # the last run's copy out, nor by the placement log, printed before).
    record["gplace"].append(stats["run_us"] / 1e3)
    record["gplace_best_run"].append(stats["best_us"] / 1e3)
    record["gplace_timing"].append(float(match.group(5)))
    record["profile"] = stats

    def ort_sample(runs):
        sample = ort.ask({"op": "sample", "runs": runs})
        if "error" in sample:
            record.update(status="ORT fails",
                          why=f"in a sample: {sample['error']}")
            return False
        record["ort"].append(sample["ms_median"])
        record["ort_best_run"].append(sample["ms_best"])
        return True

    if not ort_sample(args.first_runs):
        return record
    estimate = stats["run_us"] / 1e3
    runs = int(min(args.max_runs, max(args.min_runs,
                                      args.target_ms / max(estimate, 1e-3))))
    for _ in range(args.repeat - 1):
        record["runs"].append(runs)
        try:
            _, match, stats = run_gplace(
                base + [f"--iterations={1 + runs}", "--print-timing"],
                args.timeout, trace)
        except RuntimeError as e:
            record.update(status="gplace fails", why=f"in a sample: {e}")
            return record
        record["gplace"].append(stats["run_us"] / 1e3)
        record["gplace_best_run"].append(stats["best_us"] / 1e3)
        record["gplace_timing"].append(float(match.group(5)))
        record["profile"] = stats
        if not ort_sample(runs):
            return record
    return record


def trace_stats(trace):
    """From gplace-run's --trace file, over the runs after the first: the
    median and the least run time (its `run` slices, µs), and the median
    run's steps: their count, summed time and the three that take most."""
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    run_time, step_time, by_step = {}, {}, {}
    for e in events:
        if e.get("ph") != "X" or e.get("args", {}).get("run", 0) == 0:
            continue
        run = e["args"]["run"]
        if e.get("cat") == "run":
            run_time[run] = e["dur"]
        else:
            step_time[run] = step_time.get(run, 0) + e["dur"]
            by_step.setdefault(e["name"], {}).setdefault(run, 0)
            by_step[e["name"]][run] += e["dur"]
    runs = sorted(run_time)
    if not runs:
        raise RuntimeError("no runs after the first in the trace")
    top = sorted(((statistics.median(v.get(r, 0) for r in runs), name)
                  for name, v in by_step.items()), reverse=True)[:3]
    return {
        "run_us": statistics.median(run_time[r] for r in runs),
        "best_us": min(run_time[r] for r in runs),
        "steps_us": statistics.median(step_time.get(r, 0) for r in runs),
        "steps": len(by_step),
        "top": [[name, us] for us, name in top],
    }


def suite_tests(args):
    """[(suite, test name, directory)] selected by --suite and --filter."""
    tests = []
    pattern = re.compile(args.filter) if args.filter else None
    for suite in args.suite.split(","):
        if suite not in SUITES:
            sys.exit(f"unknown suite '{suite}' (one of {', '.join(SUITES)})")
        for d in sorted(glob.glob(os.path.join(args.data, suite, "test_*"))):
            name = os.path.basename(d)
            if pattern and not pattern.search(name):
                continue
            if os.path.isfile(os.path.join(d, "model.onnx")):
                tests.append((suite, name, d))
    return tests


def environment(tools, ort):
    info = ort.ask({"op": "info"})
    run_bin = tools["gplace-run"]
    head, dirty = checkout_state(ROOT)
    listing = command_output([run_bin, "--list-devices"]).splitlines()
    blas = [l[len("BLAS: "):] for l in listing if l.startswith("BLAS: ")]
    return {
        "date": datetime.date.today().isoformat(),
        "cpu": cpu_model(), "nproc": os.cpu_count(),
        "usable": len(os.sched_getaffinity(0)),
        "load_start": load(),
        "gplace": f"copies of {args_bin()}/gplace-run (sha256 "
                  f"{sha256(run_bin)[:16]}); the checkout was at {head}"
                  + (" with uncommitted changes" if dirty else ""),
        "matmul": gplace_matmul(run_bin),
        "blas_kernels": blas[0] if blas else "not reported",
        "ort": f"onnxruntime-node {info['ort_version']} (CPU execution "
               "provider; graph optimization \"all\"), Node.js "
               f"{info['node']}; intraOpNumThreads "
               f"{info['intra_op_threads']}, interOpNumThreads 1, "
               "sequential",
        "variables": env_variables(BLAS_ENV),
    }


_BIN = None


def args_bin():
    return _BIN


def main():
    global _BIN
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(BUILD, "bin"))
    parser.add_argument("--data", default=DATA)
    parser.add_argument("--suite", default=",".join(SUITES))
    parser.add_argument("--filter", help="regex on the test's name")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--target-ms", type=float, default=40.0)
    parser.add_argument("--first-runs", type=int, default=20)
    parser.add_argument("--min-runs", type=int, default=3)
    parser.add_argument("--max-runs", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--cnn", action="store_true")
    parser.add_argument("--cnn-batch", type=int, default=64)
    parser.add_argument("--json", help="write the records here")
    parser.add_argument("--report", help="only print the report of this JSON")
    parser.add_argument("--diagnose", help="rerun this JSON's slower models "
                        "(median ratio < 1) with gplace-run's default "
                        "threads and with --intra-op-parallelism-threads=1, "
                        "in turn, and print both")
    args = parser.parse_args()
    if args.report:
        with open(args.report) as f:
            report(json.load(f))
        return
    if args.diagnose:
        with open(args.diagnose) as f:
            diagnose(args, json.load(f))
        return
    if args.repeat < 1 or args.min_runs < 1 or args.max_runs < args.min_runs:
        sys.exit("--repeat and --min-runs must be positive, --max-runs at "
                 "least --min-runs")
    if not os.path.isdir(os.path.join(ONNX_DIR, "node_modules",
                                      "onnxruntime-node")):
        sys.exit("no bench/onnx/node_modules/onnxruntime-node: run `cd "
                 "bench/onnx && npm install --ignore-scripts` first")
    _BIN = os.path.abspath(args.bin)
    work = tempfile.mkdtemp(prefix="gplace-onnx-suite-")
    tools = {}
    for tool in ("gplace-run", "gplace-onnx-gen"):
        source = os.path.join(args.bin, tool)
        if os.path.isfile(source):
            tools[tool] = os.path.join(work, tool)
            shutil.copy2(source, tools[tool])
    if "gplace-run" not in tools:
        sys.exit(f"no gplace-run in {args.bin}")
    ort = Ort()
    started = time.monotonic()
    data = {"env": environment(tools, ort), "command": " ".join(sys.argv),
            "records": []}
    loads = []
    try:
        tests = suite_tests(args)
        for n, (suite, name, d) in enumerate(tests):
            case = os.path.join(work, "case")
            shutil.rmtree(case, ignore_errors=True)
            os.mkdir(case)
            try:
                prepared = prepare(d, case)
            except Exception as e:  # a file onnx cannot read
                prepared = f"cannot read: {e}"
            if isinstance(prepared, str):
                record = {"suite": suite, "test": name,
                          "status": "not benched", "why": prepared}
            else:
                inputs, expected = prepared
                record = measure(args, tools, ort, name, suite,
                                 os.path.join(d, "model.onnx"),
                                 [pb for _, pb, _ in inputs],
                                 [[nm, npy] for nm, _, npy in inputs],
                                 expected, case)
            data["records"].append(record)
            if n % 25 == 0:
                loads.append(os.getloadavg()[0])
                if args.json:  # what is done so far, should the run stop
                    with open(args.json, "w") as f:
                        json.dump(data, f, indent=1)
            log(f"[{n + 1}/{len(tests)}] {suite}/{name}: {summary(record)}")
        if args.cnn:
            data["records"].append(measure_cnn(args, tools, ort, work))
            log(f"cnn: {summary(data['records'][-1])}")
    finally:
        ort.close()
        shutil.rmtree(work, ignore_errors=True)
    data["env"]["load_end"] = load()
    data["env"]["load_samples"] = loads
    data["env"]["elapsed_s"] = time.monotonic() - started
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=1)
    report(data)


def measure_cnn(args, tools, ort, work):
    """The imported CNN (gplace-onnx-gen cnn) at batch --cnn-batch, checked
    against ONNX Runtime's output (1e-4 both ways)."""
    import numpy as np
    name = f"cnn (gplace-onnx-gen, batch {args.cnn_batch})"
    if "gplace-onnx-gen" not in tools:
        return {"suite": "imported", "test": name, "status": "not benched",
                "why": "no gplace-onnx-gen"}
    case = os.path.join(work, "cnn")
    os.makedirs(case, exist_ok=True)
    model = os.path.join(case, "cnn.onnx")
    subprocess.run([tools["gplace-onnx-gen"], "cnn", model], check=True)
    n = args.cnn_batch * 28 * 28
    x = ((np.arange(n, dtype=np.int64) * 7919 % 1000) / 1000.0).astype(
        np.float32).reshape(args.cnn_batch, 1, 28, 28)
    path = os.path.join(case, "x.npy")
    np.save(path, x)
    import onnx
    graph = onnx.load(model).graph
    inits = {i.name for i in graph.initializer}
    names = [i.name for i in graph.input if i.name not in inits]
    return measure(args, tools, ort, name, "imported", model, [path],
                   [[names[0], path]], None, case,
                   extra=[f"--dim=batch={args.cnn_batch}"])


def diagnose(args, data):
    """For the models slower than ONNX Runtime in `data`: --repeat pairs of
    gplace-run processes, the default threads then one thread, in turn; a
    Markdown table of their median runs (from --trace) and the ratios to
    ONNX Runtime's median in `data`. A diagnosis, not a setting of the
    benchmark: one thread is what the adaptive count would settle on."""
    work = tempfile.mkdtemp(prefix="gplace-onnx-diagnose-")
    run_bin = os.path.join(work, "gplace-run")
    shutil.copy2(os.path.join(args.bin, "gplace-run"), run_bin)
    trace = os.path.join(work, "trace.json")
    slow = sorted((r for r in data["records"]
                   if r["status"] == "ok" and ratios(r)[1] < 1
                   and r["suite"] in SUITES), key=lambda r: ratios(r)[1])
    print(f"Load average {load()} at the start.\n")
    print("| suite | test | K | default threads: median run (samples) | "
          "1 thread: median run (samples) | ratio to ORT's median, "
          "default / 1 thread |")
    print("|---|---|---:|---:|---:|---:|")
    try:
        for r in slow:
            d = os.path.join(args.data, r["suite"], r["test"])
            pbs = numbered_pbs(os.path.join(d, "test_data_set_0"), "input")
            runs = min(r["runs"][-1], 50)
            cmd = [run_bin, os.path.join(d, "model.onnx")] + [
                f"--input=@{p}" for p in pbs] + [
                f"--iterations={1 + runs}", "--print-timing"]
            times = {"default": [], "one": []}
            for _ in range(args.repeat):
                for key, extra in (("default", []),
                                   ("one", ["--intra-op-parallelism-"
                                            "threads=1"])):
                    try:
                        _, _, stats = run_gplace(cmd + extra, args.timeout,
                                                 trace)
                        times[key].append(stats["run_us"] / 1e3)
                    except RuntimeError as e:
                        log(f"{r['test']}: {e}")
            if not times["default"] or not times["one"]:
                continue
            ort = statistics.median(r["ort"])
            d_med = statistics.median(times["default"])
            o_med = statistics.median(times["one"])
            print(f"| {r['suite']} | {r['test']} | {runs} | {fmt_ms(d_med)} "
                  f"({', '.join(fmt_ms(t) for t in times['default'])}) | "
                  f"{fmt_ms(o_med)} "
                  f"({', '.join(fmt_ms(t) for t in times['one'])}) | "
                  f"{ort / d_med:.2f} / {ort / o_med:.2f} |", flush=True)
        print(f"\nLoad average {load()} at the end.")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def summary(record):
    if record["status"] != "ok":
        return f"{record['status']}: {record.get('why', '')}"
    g, o = record["gplace"], record["ort"]
    return (f"K={record['runs'][-1]} gplace {statistics.median(g):.4f} ms, ORT "
            f"{statistics.median(o):.4f} ms, ratio "
            f"{statistics.median(o) / statistics.median(g):.2f} (median) "
            f"{min(o) / min(g):.2f} (best)")


# --- The report -------------------------------------------------------------

def ratios(record):
    g, o = record["gplace"], record["ort"]
    return min(o) / min(g), statistics.median(o) / statistics.median(g)


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def fmt_ms(value):
    return f"{value * 1e3:.1f} µs" if value < 1 else f"{value:.3f} ms"


def kernels_text(record):
    kinds = record.get("kernels") or {}
    text = ", ".join(f"{k} {v}" for k, v in
                     sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    return text or "—"


def report(data):
    env, records = data["env"], data["records"]
    out = print
    out(f"# ONNX conformance models: gplace-run against ONNX Runtime — "
        f"{env['date']}\n")
    out("## Environment\n")
    loads = env.get("load_samples") or []
    out(f"- CPU: {env['cpu']}; `os.cpu_count()` {env['nproc']}, "
        f"{env['usable']} usable by this process")
    out(f"- Load average {env['load_start']} at the start, "
        f"{env.get('load_end', '?')} at the end"
        + (f"; the 1-minute load every 25 tests ranged {min(loads):.1f} to "
           f"{max(loads):.1f} (median {statistics.median(loads):.1f})"
           if loads else "")
        + f"; the run took {env.get('elapsed_s', 0):.0f} s")
    out(f"- gplace: {env['gplace']}; matmul: {env['matmul']}; BLAS kernels "
        f"(`--list-devices`): {env['blas_kernels']}")
    out(f"- ONNX Runtime: {env['ort']}")
    out(f"- Environment variables: {env['variables']}")
    out(f"- Command: `{data['command']}`")
    if data.get("rerun"):
        rerun = data["rerun"]
        out(f"- {rerun['count']} tests (marked ↻) were measured again in a "
            f"second run, `{rerun['command']}`, load average "
            f"{rerun['env']['load_start']} at its start, and their records "
            "replace the first run's")
    out("")

    ok = [r for r in records if r["status"] == "ok"]
    out("## Summary\n")
    out("Ratio = ONNX Runtime's time / gplace-run's (above 1: gplace is "
        "faster); best = best sample over best sample, median = median "
        "over median.\n")
    out("| suite | tests | timed (both run and agree) | ≥ 1.0× by best | "
        "≥ 1.0× by median | geometric mean ratio (best / median) | "
        "worst (median) |")
    out("|---|---:|---:|---:|---:|---:|---:|")
    suites = []
    for r in records:
        if r["suite"] not in suites:
            suites.append(r["suite"])
    for suite in suites + ["all"]:
        rs = [r for r in records if suite == "all" or r["suite"] == suite]
        oks = [r for r in rs if r["status"] == "ok"]
        if not oks:
            out(f"| {suite} | {len(rs)} | 0 | | | | |")
            continue
        best = [ratios(r)[0] for r in oks]
        med = [ratios(r)[1] for r in oks]
        out(f"| {suite} | {len(rs)} | {len(oks)} | "
            f"{sum(b >= 1 for b in best)} | {sum(m >= 1 for m in med)} | "
            f"{geomean(best):.2f} / {geomean(med):.2f} | "
            f"{min(med):.2f} |")
    out("")
    statuses = {}
    for r in records:
        if r["status"] != "ok":
            statuses.setdefault(r["status"], []).append(r)
    if statuses:
        out("Not timed: " + "; ".join(
            f"{s} {len(v)}" for s, v in sorted(statuses.items())) +
            " (listed at the end).\n")

    out("## Slower than ONNX Runtime (median ratio < 1.0), slowest first\n")
    slow = sorted((r for r in ok if ratios(r)[1] < 1),
                  key=lambda r: ratios(r)[1])
    out("| suite | test | ratio (best / median) | gplace median | ORT "
        "median | what gplace-run runs (`--log-device-placement`) |")
    out("|---|---|---:|---:|---:|---|")
    for r in slow:
        b, m = ratios(r)
        out(f"| {r['suite']} | {r['test']} | {b:.2f} / {m:.2f} | "
            f"{fmt_ms(statistics.median(r['gplace']))} | "
            f"{fmt_ms(statistics.median(r['ort']))} | {kernels_text(r)} |")
    out("")
    profiled = [r for r in slow if r.get("profile")][:30]
    if profiled:
        out("Where gplace-run's run goes in the slowest (`--trace`, the runs "
            "after the first, medians, of the last sample): the run "
            "(first step issued to results in host memory), its steps' "
            "summed time, and the steps that take most.\n")
        out("| test | run | steps (count: summed time) | top steps |")
        out("|---|---:|---:|---|")
        for r in profiled:
            p = r["profile"]
            if "error" in p:
                out(f"| {r['test']} | {p['error']} | | |")
                continue
            top = "; ".join(f"{name.replace('|', '/')} {us:.1f} µs"
                            for name, us in p["top"])
            out(f"| {r['test']} | {p['run_us']:.1f} µs | {p['steps']}: "
                f"{p['steps_us']:.1f} µs | {top} |")
        out("")

    out("## Every timed model\n")
    out("Times per run: median / best of the samples (each sample the median "
        "of K runs in one process or session).\n")
    out("| suite | test | K | gplace-run | ONNX Runtime | ratio (best / "
        "median) |")
    out("|---|---|---:|---:|---:|---:|")
    for r in ok:
        b, m = ratios(r)
        mark = " ↻" if r.get("rerun") else ""
        out(f"| {r['suite']} | {r['test']}{mark} | {r['runs'][-1]} | "
            f"{fmt_ms(statistics.median(r['gplace']))} / "
            f"{fmt_ms(min(r['gplace']))} | "
            f"{fmt_ms(statistics.median(r['ort']))} / {fmt_ms(min(r['ort']))}"
            f" | {b:.2f} / {m:.2f} |")
    out("")
    if statuses:
        out("## Not timed\n")
        out("| suite | test | status | why |")
        out("|---|---|---|---|")
        for s, rs in sorted(statuses.items()):
            for r in rs:
                why = (r.get("why") or "").replace("|", "\\|")
                out(f"| {r['suite']} | {r['test']} | {s} | {why} |")
        out("")


if __name__ == "__main__":
    main()
