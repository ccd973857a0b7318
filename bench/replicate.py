#!/usr/bin/env python3
"""Replication: --replicas on emulated GPUs, and gplace.all_reduce's bandwidth.

Two figures, each a ratio of two sides measured in turn in one run:

1. Replication overhead. examples/train_fashion_mnist.mlir's @train (the
   784-256-128-10 ReLU MLP, one Adam step on a global batch of 128) on one
   fixed batch of random images and labels (IDX files this script writes),
   run by gplace-run with `--emulate-gpus=4 --replicas=N` for N = 2 and 4,
   `--replica-variables=mirrored` and `host`, against the same step on one
   emulated GPU (`--emulate-gpus=1`, no --replicas; and, a row of its own,
   `--emulate-gpus=1 --replicas=1`). The global batch stays 128: N replicas
   take 128/N each. A sample is one gplace-run process's mean step over
   --steps steps after its first (`--iterations=1+K --print-timing`, "then
   mean"; parsing, compiling, --init and staging the batch come before the
   first step and are not timed). Every configuration ends on the same loss
   (the replicas compute the single-device update); the script checks it.

2. All-reduce throughput. A graph with one `gplace.all_reduce`
   (reduction "sum", as nccl-tests' default) of an f32 tensor of each
   --sizes MiB, one per emulated GPU, over 2 and 4 emulated GPUs: each GPU's
   input is a variable on it, and each result is assigned to another
   variable on the same GPU (so nothing is copied to the host and nothing
   is dead). A sample is one gplace-run process's mean run after its first
   (`--iterations=1+K --print-timing`). Beside it, in the same rounds: the
   same graph without the all-reduce (each input variable assigned to the
   output variable: the N copies of S bytes the all-reduce's graph also
   ends with, and the per-run overhead), and a host memcpy of the same S
   bytes: glibc's memmove through Python's ctypes (`ctypes.memmove`)
   between two bytearrays touched beforehand, a sample being the mean of K
   calls after one untimed call. algbw = S / time; busbw = algbw * 2(n-1)/n
   (nccl-tests' definition: what each device sends and receives in a ring);
   the ratio is busbw over memcpy's S / time.

Samples and ratios follow bench/README.md: each configuration first takes
one untimed sample (with --log-device-placement, which the report reads for
the plan's shape), then the configurations take --repeat samples each in
turn, round after round; figures are median / best over the samples and
ratios median over median, best over best. gplace-run is copied into a
temporary directory before anything runs and only that copy is used, so a
rebuild of build/ during the run cannot change the binary under it.

A gplace-run that fails is reported (command, exit code, last lines of its
stderr) in the output, and the run goes on with the other configurations.

Usage: bench/replicate.py [--gplace-run build/bin/gplace-run] [--repeat 5]
                          [--steps 100] [--sizes 1,16,64] [--gpus 2,4]
                          [--ar-mib 512] [--skip-train] [--skip-allreduce]
The report (Markdown) goes to stdout, progress to stderr.
"""
import argparse
import ctypes
import datetime
import os
import random
import re
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

from benchenv import (checkout_state, command_output, cpu_model,
                      env_variables, load, loaded_blas,
                      machine_times, sha256, train_batch_size)
from benchlib import ROOT, Failure, log, parse_timing

EXAMPLE = os.path.join(ROOT, "examples", "train_fashion_mnist.mlir")
BLAS_ENV = ["OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
            "GOTO_NUM_THREADS"]
MIB = 1 << 20
PLACED = re.compile(r"^(\S+): \((\w+)\): (/job:\S+/device:(\w+:\d+))$",
                    re.MULTILINE)


def cpu_times():
    """A snapshot of where the CPU time went: the machine's busy and stolen
    seconds (/proc/stat), this process's and its reaped children's
    (getrusage), and each other process's own (/proc/PID/stat)."""
    busy, steal, ours = machine_times()
    hz = os.sysconf("SC_CLK_TCK")
    me, processes = os.getpid(), {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == me:
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        # utime and stime: fields 14 and 15 of proc(5)'s stat.
        processes[int(pid)] = (stat[stat.index("(") + 1:stat.rindex(")")],
                               (int(fields[11]) + int(fields[12])) / hz)
    return busy, steal, ours, processes


def other_load(before, after, seconds):
    """What the rest of the machine used of the CPU between two
    cpu_times(): the busy time that was not this benchmark's, the time the
    hypervisor stole, and the largest other processes seen alive."""
    others = max(0.0, (after[0] - before[0]) - (after[2] - before[2]))
    steal = after[1] - before[1]
    by_name = {}
    for pid, (name, t) in after[3].items():
        used = t - before[3][pid][1] if pid in before[3] else t
        if used > 0:
            by_name[name] = by_name.get(name, 0) + used
    top = [(name, t) for name, t in sorted(by_name.items(),
                                            key=lambda item: -item[1])[:4]
           if t >= 1]
    return (f"other processes used {others:.0f} CPU-seconds during the "
            f"run's {seconds:.0f} s ({others / seconds:.2f} cores on average"
            + ("; the largest seen: " +
               ", ".join(f"{name} {t:.0f} s" for name, t in top)
               if top else "") +
            f"), and the hypervisor stole {steal:.0f} s")


def run_gplace(cmd):
    """Runs a gplace-run command; (mean s, best s, stdout, stderr)."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise Failure(cmd, done.returncode, done.stderr, "gplace-run failed")
    timing = parse_timing(done.stderr)
    if not timing:
        raise Failure(cmd, done.returncode, done.stderr,
                      "no `timing: ... then mean` line from gplace-run")
    return timing.mean, timing.best, done.stdout, done.stderr


class Side:
    """One configuration: its command, its samples, its failure if any."""

    def __init__(self, label, cmd):
        self.label, self.cmd = label, cmd
        self.means, self.bests, self.outputs = [], [], []
        self.failure, self.log = None, ""

    def sample(self, timed=True, extra=()):
        if self.failure:
            return
        try:
            mean, best, out, err = run_gplace(self.cmd + list(extra))
        except Failure as failure:
            self.failure = failure
            log(f"  FAILED: {self.label}: {failure.why} "
                f"(exit {failure.code})")
            return
        if not timed:
            self.log = err
            return
        self.means.append(mean)
        self.bests.append(best)
        self.outputs.append(out)

    def median(self):
        return statistics.median(self.means)

    def best(self):
        return min(self.means)


def ms(seconds):
    return f"{seconds * 1e3:.3f}"


def ratio(a, b):
    return f"{a / b:.2f}"


DEVICE_PREFIX = "/job:localhost/replica:0/task:0/device:"


def shorten(line):
    """An executor line with device names shortened (GPU:0) and, past the
    first device, a CUDA-graphs reason cut."""
    line = line.replace(DEVICE_PREFIX, "")
    if line.startswith("CUDA graphs: off (") and "; " in line:
        first = line[:line.index("; ")]
        line = first + "; the other GPUs likewise"
        if "running step by step" not in line:
            line += "); running step by step"
    return line


def plan_notes(stderr):
    """From --log-device-placement: the ops per device, and the executor's
    CUDA graphs and fusion lines."""
    per_device = {}
    for match in PLACED.finditer(stderr):
        per_device[match.group(4)] = per_device.get(match.group(4), 0) + 1
    devices = ", ".join(f"{d} {n}" for d, n in sorted(per_device.items()))
    notes = [shorten(line) for line in stderr.splitlines()
             if line.startswith(("CUDA graphs:", "Fusion:"))]
    return devices, notes


# --- Figure 1: the training step ------------------------------------------

def write_idx(path, shape, data):
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 0x08, len(shape)]))
        for dim in shape:
            f.write(struct.pack(">I", dim))
        f.write(data)


# How N GPUs are made: emulated GPUs (the default), or, on a GPU machine,
# N logical GPUs of CUDA GPU 0 (--logical-gpus MIB: TensorFlow's logical
# device configuration; their all-reduce is the copy-based one).
LOGICAL_MIB = None


def gpus_flag(n):
    if LOGICAL_MIB:
        return f"--logical-gpus=0:{','.join([str(LOGICAL_MIB)] * n)}"
    return f"--emulate-gpus={n}"


def train_sides(run, work, steps):
    batch = train_batch_size(EXAMPLE)
    rng = random.Random(2026)
    images = os.path.join(work, "images.idx")
    labels = os.path.join(work, "labels.idx")
    write_idx(images, [batch, 28, 28], rng.randbytes(batch * 28 * 28))
    write_idx(labels, [batch], bytes(rng.randrange(10) for _ in range(batch)))
    base = [run, EXAMPLE, "--entry=train", "--init=init",
            f"--input=@{images}", f"--input=@{labels}",
            f"--iterations={1 + steps}", "--print-timing"]
    configs = [(f"1 GPU (`{gpus_flag(1)}`), reference", 1,
                [gpus_flag(1)]),
               ("1 GPU, `--replicas=1` (mirrored)", 1,
                [gpus_flag(1), "--replicas=1"])]
    for n in (2, 4):
        for variables in ("mirrored", "host"):
            configs.append(
                (f"4 GPUs, `--replicas={n} --replica-variables={variables}`",
                 n, [gpus_flag(4), f"--replicas={n}",
                     f"--replica-variables={variables}"]))
    sides = []
    for label, replicas, flags in configs:
        side = Side(label, base + flags)
        side.replicas = replicas
        sides.append(side)
    return batch, sides


def final_loss(stdout):
    match = re.search(r"^result\[0\]: f32=(\S+)$", stdout, re.MULTILINE)
    return float(match.group(1)) if match else None


# --- Figure 2: the all-reduce ---------------------------------------------

def allreduce_graph(n, elements, reduce):
    """@main: n variables of `elements` f32 on GPU:0..n-1, all-reduced (or,
    with reduce False, not), each result assigned to a second variable on
    the same GPU."""
    t = f"tensor<{elements}xf32>"
    r = f"!gplace.resource<{t}>"
    lines = ["func.func @main() {"]
    for i in range(n):
        dev = f'"/device:GPU:{i}"'
        lines += [
            f'  %x{i} = gplace.variable dense<1.0> : {t} '
            f'{{name = "x{i}", device = {dev}}}',
            f'  %y{i} = gplace.variable dense<0.0> : {t} '
            f'{{name = "y{i}", device = {dev}}}',
            f"  %r{i} = gplace.read %x{i} : {r}"]
    if reduce:
        devices = ", ".join(f'"/device:GPU:{i}"' for i in range(n))
        operands = ", ".join(f"%r{i}" for i in range(n))
        lines.append(f"  %s:{n} = gplace.all_reduce {operands} "
                     f'reduction = "sum" devices = [{devices}] '
                     f'{{name = "allreduce"}} : ' + ", ".join([t] * n))
        values = [f"%s#{i}" for i in range(n)]
    else:
        values = [f"%r{i}" for i in range(n)]
    for i in range(n):
        lines.append(f"  %a{i} = gplace.assign %y{i}, {values[i]} : {r}")
    lines += ["  return", "}", ""]
    return "\n".join(lines)


class Memcpy:
    """Host memcpy of `size` bytes: glibc's memmove through ctypes between
    two bytearrays, a sample the mean of `runs` calls after one untimed."""

    def __init__(self, size, runs):
        self.label, self.size, self.runs = "memcpy", size, runs
        self.src = bytearray(os.urandom(4096)) * (size // 4096)
        self.dst = bytearray(size)  # Touched: zeroed by bytearray().
        self.src_p = (ctypes.c_char * size).from_buffer(self.src)
        self.dst_p = (ctypes.c_char * size).from_buffer(self.dst)
        self.means, self.bests, self.failure = [], [], None

    def sample(self, timed=True, extra=()):
        memmove, dst, src, size = (ctypes.memmove, self.dst_p, self.src_p,
                                   self.size)
        memmove(dst, src, size)
        times = []
        for _ in range(self.runs):
            start = time.perf_counter()
            memmove(dst, src, size)
            times.append(time.perf_counter() - start)
        if self.dst[:4096] != self.src[:4096]:
            sys.exit("memmove did not copy")
        if timed:
            self.means.append(sum(times) / len(times))
            self.bests.append(min(times))

    median = Side.median
    best = Side.best


def runs_for(size, budget):
    """Runs per sample: about `budget` bytes of tensor, 10 to 200 runs."""
    return max(10, min(200, budget // size))


# --- Driving ----------------------------------------------------------------

def take_samples(sides, repeat, what):
    for side in sides:
        log(f"  warm-up: {side.label}")
        if isinstance(side, Memcpy):
            side.sample(timed=False)
        else:
            side.sample(timed=False, extra=["--log-device-placement"])
    for round_ in range(repeat):
        log(f"  {what}: round {round_ + 1}/{repeat}")
        for side in sides:
            side.sample()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gplace-run",
                        default=os.path.join(ROOT, "build", "bin",
                                             "gplace-run"))
    parser.add_argument("--repeat", type=int, default=5,
                        help="samples per configuration (default 5)")
    parser.add_argument("--steps", type=int, default=100,
                        help="timed training steps per sample (default 100)")
    parser.add_argument("--sizes", default="1,16,64",
                        help="all-reduce tensor sizes in MiB (default "
                             "1,16,64)")
    parser.add_argument("--gpus", default="2,4",
                        help="emulated GPUs of the all-reduce (default 2,4)")
    parser.add_argument("--ar-mib", type=int, default=512,
                        help="tensor MiB per all-reduce sample: runs = this "
                             "/ size, 10 to 200 (default 512)")
    parser.add_argument("--logical-gpus", type=int, metavar="MIB",
                        help="N logical GPUs of MIB each on CUDA GPU 0 "
                             "instead of N emulated GPUs")
    parser.add_argument("--skip-train", action="store_true")
    parser.add_argument("--skip-allreduce", action="store_true")
    args = parser.parse_args()
    global LOGICAL_MIB
    LOGICAL_MIB = args.logical_gpus
    sizes = [int(s) for s in args.sizes.split(",") if s]
    gpus = [int(n) for n in args.gpus.split(",") if n]
    if (args.repeat < 1 or args.steps < 1 or not sizes or not gpus
            or min(sizes) < 1 or min(gpus) < 2 or args.ar_mib < 1):
        sys.exit("--repeat, --steps, --sizes and --ar-mib must be positive, "
                 "--gpus at least 2")
    if not os.path.isfile(args.gplace_run):
        sys.exit(f"no gplace-run at {args.gplace_run}")

    work = tempfile.mkdtemp(prefix="gplace-replicate-")
    run = os.path.join(work, "gplace-run")
    shutil.copy2(args.gplace_run, run)
    source = os.path.abspath(args.gplace_run)

    def shown(cmd):
        return " ".join(shlex.quote(c.replace(work, "$WORK"))
                        for c in cmd)

    start_load, started, start_cpu = load(), time.monotonic(), cpu_times()
    head, dirty = checkout_state(ROOT)
    variables = env_variables(BLAS_ENV)
    env = [
        f"- CPU: {cpu_model()}; `nproc` {command_output(['nproc'])}, "
        f"{len(os.sched_getaffinity(0))} usable by this process; load "
        f"average {start_load} at the start",
        f"- gplace-run: a copy of `{source}` (sha256 "
        f"{sha256(run)[:16]}, built "
        f"{datetime.datetime.fromtimestamp(os.path.getmtime(source)):%Y-%m-%d %H:%M}"
        f"); the checkout was at {head}" +
        (" with uncommitted changes to tracked files" if dirty else "") +
        " when the run started (the binary may have been built from "
        "another state: its sha256 says which binary it was)",
        f"- BLAS of gplace-run: {loaded_blas(run)}",
        f"- Environment variables: {variables}",
        ("- GPUs: N logical GPUs of CUDA GPU 0 (`--logical-gpus`, "
         f"{LOGICAL_MIB} MiB each): they share the one GPU's compute and "
         "memory, so N of them do not give N times the compute; an "
         "all-reduce between them runs on the GPU, a kernel per member "
         "(docs/runtime.md, \"Collectives\")" if LOGICAL_MIB else
         "- Emulated GPUs are host memory and host kernels, one thread per "
         "stream (docs/runtime.md): all of them, and the CPU device, share "
         "this machine's cores, so N emulated GPUs do not give N times the "
         "compute, and an all-reduce's \"links\" are memcpy between host "
         "buffers.")]
    if "OPENBLAS_CORETYPE" in os.environ:
        env.append("- **Warning: OPENBLAS_CORETYPE is set**: OpenBLAS runs "
                   "that core type's kernels instead of the ones it picks "
                   "for this CPU (bench/README.md); unset it for figures "
                   "that compare with other results")
    log("\n".join(env))

    train, phases = None, []
    if not args.skip_train:
        log("training step")
        batch, sides = train_sides(run, work, args.steps)
        take_samples(sides, args.repeat, "training step")
        train = (batch, sides)
        phases.append(f"training step {time.monotonic() - started:.0f} s")
    allreduce = []
    if not args.skip_allreduce:
        phase = time.monotonic()
        for size_mib in sizes:
            size = size_mib * MIB
            runs = runs_for(size, args.ar_mib * MIB)
            log(f"all-reduce of {size_mib} MiB, {runs} runs a sample")
            sides = []
            for n in gpus:
                for reduce in (True, False):
                    path = os.path.join(
                        work, f"{'allreduce' if reduce else 'assign'}"
                              f"_{n}_{size_mib}.mlir")
                    with open(path, "w") as f:
                        f.write(allreduce_graph(n, size // 4, reduce))
                    side = Side(("all-reduce" if reduce else "assigns only")
                                + f", {n} GPUs",
                                [run, path, gpus_flag(n),
                                 f"--iterations={1 + runs}",
                                 "--print-timing"])
                    side.n, side.reduce = n, reduce
                    sides.append(side)
            memcpy = Memcpy(size, runs)
            sides.append(memcpy)
            take_samples(sides, args.repeat, f"all-reduce {size_mib} MiB")
            allreduce.append((size_mib, size, runs, sides, memcpy))
            del memcpy.src_p, memcpy.dst_p  # Then the buffers can go.
            memcpy.src = memcpy.dst = None
        phases.append(f"all-reduce {time.monotonic() - phase:.0f} s")

    elapsed = time.monotonic() - started
    others = other_load(start_cpu, cpu_times(), elapsed)
    quick = [f"--{name.replace('_', '-')} {getattr(args, name)}"
             for name in ("repeat", "steps", "sizes", "gpus", "ar_mib")
             if getattr(args, name) != parser.get_default(name)]
    quick += [flag for flag, on in (("--skip-train", args.skip_train),
                                    ("--skip-allreduce",
                                     args.skip_allreduce)) if on]

    out = print
    out(f"# Replication — {datetime.date.today().isoformat()}\n")
    out("## Environment\n")
    out("\n".join(env))
    out(f"- Load average {load()} at the end (the benchmark's own threads "
        f"count: 4 emulated GPUs and the CPU are 5 queues); the run took "
        f"{elapsed:.0f} s ({', '.join(phases)})")
    out(f"- Besides this benchmark, {others} (from /proc/stat "
        "and this process's getrusage: the machine's busy time less this "
        "benchmark's; a machine to itself is near 0)\n")
    out("## Results\n")
    out(f"Command: `bench/replicate.py{''.join(' ' + q for q in quick)} "
        f"--gplace-run {source}`. Every figure is median / best of "
        f"{args.repeat} samples per configuration, taken in turn, round "
        "after round, after one untimed sample each; ratios are median over "
        "median and best over best.\n")
    failures = []

    if train:
        batch, sides = train
        ref = sides[0]
        out("### Replication overhead: the training step\n")
        out(f"`examples/train_fashion_mnist.mlir`'s `@train` (784-256-128-10 "
            f"ReLU MLP, Adam), one global batch of {batch} random images "
            "and labels; a sample is one gplace-run process's mean step over "
            f"{args.steps} steps after its first (`--iterations="
            f"{1 + args.steps} --print-timing`). The ratio is the "
            "configuration's step over the reference's (one " +
            ("logical GPU, " if LOGICAL_MIB else "emulated GPU, ") +
            "no --replicas); above 1 is slower.\n")
        out("| configuration | batch per replica | step (median / best) | "
            "ratio to 1 GPU (median / best) | best single step | "
            "ops per device | loss after the last step |")
        out("|---|---:|---:|---:|---:|---|---:|")
        losses = []
        for side in sides:
            if side.failure:
                failures.append(side.failure)
                out(f"| {side.label} | {batch // side.replicas} | failed "
                    "(below) | | | | |")
                continue
            devices, _ = plan_notes(side.log)
            loss = final_loss(side.outputs[-1])
            losses.append((side.label, loss))
            rel = "—" if ref.failure or not ref.means else (
                f"{ratio(side.median(), ref.median())} / "
                f"{ratio(side.best(), ref.best())}")
            out(f"| {side.label} | {batch // side.replicas} | "
                f"{ms(side.median())} / {ms(side.best())} ms | {rel} | "
                f"{ms(min(side.bests))} ms | {devices} | "
                f"{'none printed' if loss is None else f'{loss:.7g}'} |")
        out("")
        out("Samples (ms per step): " + "; ".join(
            f"{side.label}: " + ", ".join(ms(s) for s in side.means)
            for side in sides if not side.failure) + ".\n")
        notes = []
        for side in sides:
            if side.failure:
                continue
            _, lines = plan_notes(side.log)
            if lines:
                notes.append(f"- {side.label}: " +
                             "; ".join(f"`{line}`" for line in lines))
        if notes:
            out("What the executor said (`--log-device-placement`; device "
                "names shortened):\n")
            out("\n".join(notes) + "\n")
        known = [loss for _, loss in losses if loss is not None]
        if known:
            spread = max(abs(loss - known[0]) for loss in known)
            out(f"Loss check: every configuration ran {1 + args.steps} "
                "steps per process on the same batch from the same --init; "
                f"the losses differ by at most {spread:.3g} "
                f"({spread / abs(known[0]):.2g} relative)" +
                (" (expected: f32 sums in another order)."
                 if spread <= 1e-4 * abs(known[0]) else
                 ": **more than 1e-4 relative: the replicas do not compute "
                 "the same update**.") + "\n")

    if allreduce:
        out("### All-reduce throughput\n")
        out("One `gplace.all_reduce` (reduction \"sum\") of one f32 tensor "
            "of S bytes per emulated GPU, each input a variable on its GPU "
            "and each result assigned to a second variable there "
            "(`--gplace-lower-all-reduce` makes it one "
            "`gplace.collective_reduce` per GPU, which the runtime runs "
            "together: each GPU's thread adds its slice of the inputs into "
            "every output, docs/runtime.md \"Collectives\"). A sample "
            "is one gplace-run process's mean run after its first. "
            "\"assigns only\" is the same graph without the all-reduce (each "
            "input assigned to the output variable): the N copies of S bytes "
            "that the all-reduce's graph also ends with, plus the per-run "
            "cost of the executor. memcpy: `ctypes.memmove` (glibc) of S "
            "bytes between two bytearrays, a sample the mean of the same "
            "number of calls after one untimed call. algbw = S / time, "
            "busbw = algbw · 2(n-1)/n (nccl-tests); the ratio is busbw over "
            "memcpy's S / time (median / best).\n")
        out("| S | GPUs | runs a sample | all-reduce time (median / best) | "
            "algbw (median / best) | busbw (median / best) | memcpy time "
            "(median / best) | memcpy (median / best) | busbw / memcpy "
            "(median / best) | assigns only (median / best) |")
        out("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

        def gbs(size, seconds):
            return f"{size / seconds / 1e9:.2f}"

        for size_mib, size, runs, sides, memcpy in allreduce:
            for n in gpus:
                ar = next(s for s in sides if getattr(s, "n", 0) == n
                          and s.reduce)
                ctrl = next(s for s in sides if getattr(s, "n", 0) == n
                            and not s.reduce)
                for side in (ar, ctrl):
                    if side.failure and side.failure not in failures:
                        failures.append(side.failure)
                control = ("failed (below)" if ctrl.failure else
                           f"{ms(ctrl.median())} / {ms(ctrl.best())} ms")
                mem = (f"{ms(memcpy.median())} / {ms(memcpy.best())} ms | "
                       f"{gbs(size, memcpy.median())} / "
                       f"{gbs(size, memcpy.best())} GB/s")
                if ar.failure:
                    out(f"| {size_mib} MiB | {n} | {runs} | failed (below) "
                        f"| | | {mem} | | {control} |")
                    continue
                bus = 2 * (n - 1) / n
                out(f"| {size_mib} MiB | {n} | {runs} | {ms(ar.median())} / "
                    f"{ms(ar.best())} ms | {gbs(size, ar.median())} / "
                    f"{gbs(size, ar.best())} GB/s | "
                    f"{gbs(size * bus, ar.median())} / "
                    f"{gbs(size * bus, ar.best())} GB/s | {mem} | "
                    f"{memcpy.median() * bus / ar.median():.2f} / "
                    f"{memcpy.best() * bus / ar.best():.2f} | {control} |")
        out("")
        out("GB/s are 10^9 bytes per second. Samples (ms per run): " +
            "; ".join(
                f"{size_mib} MiB {side.label}: " +
                ", ".join(ms(s) for s in side.means)
                for size_mib, _, _, sides, _ in allreduce
                for side in sides if not side.failure) + ".\n")
        notes = []
        for size_mib, _, _, sides, _ in allreduce[:1]:
            for side in sides:
                if isinstance(side, Memcpy) or side.failure:
                    continue
                devices, lines = plan_notes(side.log)
                notes.append(f"- {side.label}: ops per device "
                             f"{devices or 'none logged'}" +
                             "".join(f"; `{line}`" for line in lines))
        if notes:
            out(f"Plans (`--log-device-placement` at {allreduce[0][0]} MiB; "
                "the other sizes have the same ops; device names "
                "shortened):\n")
            out("\n".join(notes) + "\n")

    if failures:
        out("### What failed\n")
        out("`$WORK` is the script's temporary directory (the copy of "
            "gplace-run, the graphs and the inputs).\n")
        for failure in failures:
            out(failure.markdown(shown))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
