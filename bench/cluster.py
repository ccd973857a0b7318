#!/usr/bin/env python3
"""Clusters: gplace's send/recv between two MPI ranks against a plain MPI
ping-pong, and training on 2 tasks x 2 emulated GPUs against one process
with 4.

Two figures, each measured side by side in one run (bench/README.md):

1. Send/recv against MPI. Both sides run under the same
   `mpirun --allow-run-as-root --oversubscribe -np 2` (Open MPI's default
   binding: one core per rank), at each of --sizes (default 8 B, 64 KiB,
   1 MiB, 16 MiB, 64 MiB):

   - MPI: bench/mpi_pingpong.c, compiled here with `mpicc -O2`: rank 0
     MPI_Send's N bytes to rank 1, which MPI_Recv's them and sends them
     back (osu_latency's pattern, in place, no copies); one-way time = half
     the mean round trip over K round trips after 10 untimed ones. One
     process per round covers every size; a sample is its figure for a size.
   - gplace, a round trip: a generated graph
         %c = gplace.constant dense<1.0> : tensor<Nxf32>  on task 0's CPU
         %n = gplace.neg %c                               on task 1's CPU
         %s = gplace.slice %n begin = [0] size = [1]      on task 0's CPU
     so each run sends N bytes from task 0 to task 1 and N bytes back (the
     two tasks run in lock-step, as the MPI ping-pong does), run by
     `gplace-run --cluster=worker:2 --iterations=1+K --print-timing`; a
     sample is rank 0's "then mean", the mean run after the first.
   - gplace, local: the same graph with all three ops on task 0 (same
     mpirun, same --cluster; task 1 has nothing to run): the constant, the
     neg of N bytes, the slice and the executor's per-run cost, without the
     transfers.
   - gplace's one-way time = (round trip - local) / 2, median from the
     medians and best from the bests; bandwidth = N / one-way time; the
     ratio gplace / MPI is MPI's time over gplace's (median / median and
     best / best). The issue's goal is >= 0.9 at 64 MiB.
   - gplace, one way (for the record): the graph with the constant and the
     neg on task 1 and the slice on task 0, one transfer per run. Sends do
     not wait for their receives, so task 1 runs ahead of task 0 and rank
     0's time per run is a streaming rate, not a transfer's time (and no
     latency at small sizes); shown raw, not compared with the ping-pong.
   - Beside them, in the same process as this script: a host memcpy of N
     bytes between two buffers touched before (ctypes.memmove), and what a
     send does to copy its tensor: a malloc of N bytes, the memcpy into it
     and the free (libc through ctypes), each the mean of as many calls as
     the gplace side's runs after one untimed call, with the minor page
     faults per call (getrusage). And per gplace graph, the minor page
     faults per run of both ranks (getrusage of mpirun's reaped children:
     the difference between a timed sample and the untimed warm-up, which
     runs the same graph twice).

2. Training. test/Tools/gplace-run/Inputs/train.mlir's @train (a logistic
   regression, batch 16, gradient descent) on make_idx.py's 64 samples
   (4 steps per epoch) for --epochs epochs, `--shuffle=5`:
   - one process, `--emulate-gpus=4 --replicas=4` (mirrored variables), and
     with `--replica-variables=host`;
   - 2 tasks x 2 emulated GPUs: `mpirun -np 2 gplace-run ... --emulate-gpus=2
     --cluster=worker:2 --replicate='devices=/job:worker/task:0/gpu:0,
     /job:worker/task:0/gpu:1,/job:worker/task:1/gpu:0,/job:worker/task:1/
     gpu:1'`, and with ` variables=host`; and the mirrored one again with
     `mpirun --bind-to none` (by default each rank is bound to one core,
     its emulated GPUs' threads included).
   A sample is one process's "then mean" step (--print-timing, every step
   after the first; a step includes filling its batch). Every
   configuration must end on the same loss; the report gives each.
   --tcp runs the cluster sides over TCP too (`mpirun --mca btl tcp,self`,
   Open MPI without shared memory, as between hosts), bound as by default
   and with `--bind-to none` (Horovod's mpirun line), in place of the
   shared-memory `--bind-to none` side; --model fashion trains the README's Fashion-MNIST
   MLP (examples/train_fashion_mnist.mlir, --fashion-dir) instead;
   --baseline-run runs every training side of a second gplace-run (the
   build before a change) in the same rounds, each binary's cluster against
   its own one process; --mirrored-only leaves out the host-variable sides.

Samples: every gplace configuration and the MPI process take one untimed
sample first, then --repeat (default 5) rounds, every side one sample per
round in a fixed order, so that a drift of the machine reaches every side.
Figures are median / best of the samples. gplace-run is copied into a
temporary directory before anything runs and only that copy is used.

A command that fails is reported (command, exit code, last lines of its
stderr) in the output and the run goes on. Python 3's standard library
only; needs mpirun and mpicc (Open MPI: openmpi-bin libopenmpi-dev).

Usage: bench/cluster.py [--gplace-run build/bin/gplace-run] [--repeat 5]
                        [--sizes 8,65536,1048576,16777216,67108864]
                        [--epochs 500] [--skip-transfer] [--skip-train]
                        [--skip-one-way] [--tcp] [--model train|fashion]
                        [--fashion-dir DIR] [--baseline-run GPLACE_RUN]
                        [--mirrored-only]
The report (Markdown) goes to stdout, progress to stderr; about 4.5
minutes on 2 cores (2026-11-24, 2-vCPU EPYC).
"""
import argparse
import ctypes
import datetime
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchenv import (command_output, cpu_model, load, machine_times,
                      sha256)
from benchlib import HERE, ROOT, TIMING
INPUTS = os.path.join(ROOT, "test", "Tools", "gplace-run", "Inputs")
TRAIN = os.path.join(INPUTS, "train.mlir")
MAKE_IDX = os.path.join(INPUTS, "make_idx.py")
PINGPONG_C = os.path.join(HERE, "mpi_pingpong.c")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2"]
TCP = ["--mca", "btl", "tcp,self"]
FASHION = os.path.join(ROOT, "examples", "train_fashion_mnist.mlir")
KIB, MIB = 1 << 10, 1 << 20
RESULT = re.compile(r"^result\[0\]: (.*)$", re.MULTILINE)
FOUR_GPUS = ("devices=/job:worker/task:0/gpu:0,/job:worker/task:0/gpu:1,"
             "/job:worker/task:1/gpu:0,/job:worker/task:1/gpu:1")
START = time.monotonic()


def log(message):
    print(f"[{time.monotonic() - START:6.1f} s] {message}", file=sys.stderr,
          flush=True)


def other_load(before, after, seconds):
    others = max(0.0, (after[0] - before[0]) - (after[2] - before[2]))
    steal = after[1] - before[1]
    return (f"other processes used {others:.0f} CPU-seconds during the "
            f"run's {seconds:.0f} s ({others / max(seconds, 1e-3):.2f} "
            "cores on "
            f"average; /proc/stat's busy time less this benchmark's "
            f"getrusage), and the hypervisor stole {steal:.0f} s")


def size_name(n):
    if n >= MIB and n % MIB == 0:
        return f"{n // MIB} MiB"
    if n >= KIB and n % KIB == 0:
        return f"{n // KIB} KiB"
    return f"{n} B"


def us(seconds):
    return f"{seconds * 1e6:.1f}" if seconds < 1e-2 else \
        f"{seconds * 1e6:.0f}"


def ms(seconds):
    return f"{seconds * 1e3:.3f}"


def rate(nbytes, seconds):
    """Bytes per second as GB/s (10^9), or '-' where the time is not
    positive."""
    if seconds is None or seconds <= 0:
        return "-"
    value = nbytes / seconds / 1e9
    return f"{value:.3f}" if value >= 0.01 else f"{value:.2g}"


def ratio(a, b):
    if a is None or b is None or a <= 0 or b <= 0:
        return "-"
    return f"{a / b:.2f}"


class Failure(Exception):
    def __init__(self, cmd, code, stderr, why):
        super().__init__(why)
        self.cmd, self.code, self.stderr, self.why = cmd, code, stderr, why

    def markdown(self):
        lines = [l for l in self.stderr.strip().splitlines()
                 if not l.startswith("CUDA: no GPU")]
        tail = "\n".join(lines[-8:]) or "(empty)"
        return (f"- **{self.why}**: `{shlex.join(self.cmd)}` exited "
                f"{self.code}; stderr ends:\n\n  ```\n" +
                "\n".join("  " + line for line in tail.splitlines()) +
                "\n  ```\n")


def run(cmd, timeout=300):
    """Runs `cmd`: (stdout, stderr, minor page faults of its reaped
    descendants); raises Failure on a non-zero exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    try:
        done = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise Failure(cmd, "(killed)", (e.stderr or b"").decode()
                      if isinstance(e.stderr, bytes) else (e.stderr or ""),
                      f"timed out after {timeout} s")
    faults = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - before
    if done.returncode != 0:
        raise Failure(cmd, done.returncode, done.stdout + done.stderr,
                      "command failed")
    return done.stdout, done.stderr, faults


class Side:
    """One configuration of gplace-run: samples of its "then mean" run."""

    def __init__(self, label, cmd, runs=None, expect=None):
        self.label, self.cmd, self.runs, self.expect = label, cmd, runs, expect
        self.means, self.bests, self.results = [], [], []
        self.faults, self.warm_faults = [], None
        self.failure = None
        self.ref = self

    def sample(self, timed=True):
        if self.failure:
            return
        cmd = list(self.cmd)
        if self.runs is not None:
            # The untimed warm-up runs twice: its page faults, less a timed
            # sample's, are the faults of runs 3..K+1.
            cmd.append(f"--iterations={1 + self.runs if timed else 2}")
        try:
            out, err, faults = run(cmd)
            match = TIMING.search(err)
            if not match:
                raise Failure(cmd, 0, err, "no `timing: ... then mean` line "
                              "on rank 0's stderr")
            result = RESULT.search(out)
            if self.expect and (not result or result.group(1) != self.expect):
                raise Failure(cmd, 0, out + err,
                              f"result is not `{self.expect}`")
        except Failure as failure:
            log(f"    FAILED: {self.label}: {failure.why}")
            self.failure = failure
            return
        if not timed:
            self.warm_faults = faults
            return
        self.means.append(float(match.group(3)) / 1e3)
        self.bests.append(float(match.group(4)) / 1e3)
        self.faults.append(faults)
        self.results.append(result.group(1) if result else None)

    def median(self):
        return statistics.median(self.means) if self.means else None

    def best(self):
        return min(self.means) if self.means else None

    def faults_per_run(self):
        """Minor page faults per run after the second (both ranks)."""
        if not self.faults or self.warm_faults is None or not self.runs:
            return None
        extra = statistics.median(self.faults) - self.warm_faults
        return extra / (self.runs - 1) if self.runs > 1 else None


# --- Send/recv ---------------------------------------------------------------

def transfer_graph(elements, constant_task, neg_task):
    t = f"tensor<{elements}xf32>"
    device = "/job:worker/task:{}/cpu:0"
    return (
        "// bench/cluster.py: a constant, its negation and one element of it\n"
        f"func.func @main() -> tensor<1xf32> {{\n"
        f"  %c = gplace.constant dense<1.0> : {t} "
        f"{{device = \"{device.format(constant_task)}\"}}\n"
        f"  %n = gplace.neg %c {{device = \"{device.format(neg_task)}\"}} : "
        f"{t}\n"
        f"  %s = gplace.slice %n begin = [0] size = [1] "
        f"{{device = \"{device.format(0)}\"}} : {t} -> tensor<1xf32>\n"
        f"  return %s : tensor<1xf32>\n"
        f"}}\n")


def gplace_runs(size):
    """gplace runs per sample: about 256 MiB sent, 8 to 1000 runs."""
    return max(8, min(1000, (256 * MIB) // size))


def mpi_trips(size):
    """MPI round trips per sample: about 1 GiB sent, 16 to 10000."""
    return max(16, min(10000, (1 << 30) // size))


class PingPong:
    """The MPI baseline: one process per sample covers every size."""

    def __init__(self, binary, sizes, mpirun):
        self.cmd = mpirun + [binary] + [f"{s}:{mpi_trips(s)}" for s in sizes]
        self.samples = {s: [] for s in sizes}
        self.version = None
        self.failure = None

    def sample(self, timed=True):
        if self.failure:
            return
        try:
            out, _, _ = run(self.cmd)
        except Failure as failure:
            log(f"    FAILED: MPI ping-pong: {failure.why}")
            self.failure = failure
            return
        for line in out.splitlines():
            if line.startswith("#"):
                self.version = line[1:].strip()
                continue
            size, _, seconds = line.split()
            if timed:
                self.samples[int(size)].append(float(seconds))

    def median(self, size):
        s = self.samples[size]
        return statistics.median(s) if s else None

    def best(self, size):
        s = self.samples[size]
        return min(s) if s else None


class Memcpy:
    """Host copies of `size` bytes in this process: a memcpy between two
    buffers touched before, and malloc + memcpy + free (what a send does
    with std::vector::assign), each the mean of `calls` calls after one
    untimed call, with the minor page faults per call."""

    libc = None

    def __init__(self, size, calls):
        self.size, self.calls = size, calls
        self.warm, self.fresh, self.fresh_faults = [], [], []
        if Memcpy.libc is None:
            Memcpy.libc = ctypes.CDLL("libc.so.6")
            Memcpy.libc.malloc.restype = ctypes.c_void_p
            Memcpy.libc.malloc.argtypes = [ctypes.c_size_t]
            Memcpy.libc.free.argtypes = [ctypes.c_void_p]

    def sample(self, timed=True):
        src, dst = bytearray(b"\x01" * self.size), bytearray(self.size)
        s = (ctypes.c_char * self.size).from_buffer(src)
        d = (ctypes.c_char * self.size).from_buffer(dst)
        ctypes.memmove(d, s, self.size)
        start = time.perf_counter()
        for _ in range(self.calls):
            ctypes.memmove(d, s, self.size)
        warm = (time.perf_counter() - start) / self.calls
        libc = Memcpy.libc

        def fresh_copy():
            p = libc.malloc(self.size)
            ctypes.memmove(p, s, self.size)
            libc.free(p)

        fresh_copy()
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        start = time.perf_counter()
        for _ in range(self.calls):
            fresh_copy()
        fresh = (time.perf_counter() - start) / self.calls
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
        del s, d
        if timed:
            self.warm.append(warm)
            self.fresh.append(fresh)
            self.fresh_faults.append(faults / self.calls)


def transfer_bench(args, work, run_binary):
    sizes = args.sizes
    for s in sizes:
        if s % 4:
            sys.exit(f"--sizes: {s} is not a multiple of 4 bytes (f32)")
    pingpong = os.path.join(work, "mpi_pingpong")
    compile_cmd = ["mpicc", "-O2", "-o", pingpong, PINGPONG_C]
    log("compiling " + shlex.join(compile_cmd))
    subprocess.run(compile_cmd, check=True)
    mpi = PingPong(pingpong, sizes, MPIRUN)
    cluster = ["--cluster=worker:2", "--print-timing"]
    graphs = {}
    for s in sizes:
        n = s // 4
        graphs[s] = {}
        for kind, (ct, nt) in (("round", (0, 1)), ("oneway", (1, 1)),
                               ("local", (0, 0))):
            if kind == "oneway" and args.skip_one_way:
                continue
            path = os.path.join(work, f"{kind}-{s}.mlir")
            with open(path, "w") as f:
                f.write(transfer_graph(n, ct, nt))
            graphs[s][kind] = Side(
                f"{kind} {size_name(s)}",
                MPIRUN + [run_binary, path] + cluster, gplace_runs(s),
                expect="1xf32=[-1]")
    copies = {s: Memcpy(s, gplace_runs(s)) for s in sizes}
    order = [mpi] + [side for s in sizes for side in
                     list(graphs[s].values()) + [copies[s]]]
    log("send/recv: warm-up (untimed)")
    for side in order:
        side.sample(timed=False)
    for r in range(args.repeat):
        log(f"send/recv: round {r + 1}/{args.repeat}")
        for side in order:
            side.sample()
    return mpi, graphs, copies, pingpong


def report_transfer(args, mpi, graphs, copies, out):
    sizes = args.sizes
    out("## 1. Send/recv between two ranks against an MPI ping-pong\n")
    out(f"Both under `{shlex.join(MPIRUN)}` (one core per rank). MPI: "
        "`mpi_pingpong` (bench/mpi_pingpong.c, `mpicc -O2`), blocking "
        "MPI_Send/MPI_Recv of N bytes there and back, one-way = half the "
        "mean round trip; round trips per sample: " +
        ", ".join(f"{size_name(s)} {mpi_trips(s)}" for s in sizes) +
        ". gplace: rank 0's \"then mean\" run of the generated graph "
        "(`gplace.constant` on task 0, `gplace.neg` on task 1, a one-element "
        "`gplace.slice` on task 0: N bytes to task 1 and N bytes back per "
        "run), `--cluster=worker:2 --iterations=1+K --print-timing`, K = " +
        ", ".join(f"{gplace_runs(s)}" for s in sizes) +
        "; the same graph all on task 0 (\"local\") is what a run costs "
        "without the transfers; gplace one-way = (round trip − local) / 2, "
        "median from medians, best from bests. Bandwidth = N / one-way "
        "time (GB/s = 10⁹ B/s). Ratio = gplace's bandwidth over MPI's "
        "(MPI's time over gplace's), median / best; higher is better. "
        f"{args.repeat} samples a side, in turn, after one untimed sample "
        "each.\n")
    if mpi.failure:
        out(mpi.failure.markdown())
    out("| size | MPI one-way µs (median / best) | gplace round trip µs "
        "(median / best) | gplace local µs (median / best) | gplace one-way "
        "µs (median / best) | MPI GB/s (median / best) | gplace GB/s "
        "(median / best) | ratio gplace / MPI (median / best) |")
    out("|---|---:|---:|---:|---:|---:|---:|---:|")
    oneway = {}
    for s in sizes:
        rnd, loc = graphs[s]["round"], graphs[s]["local"]
        mm, mb = mpi.median(s), mpi.best(s)
        if rnd.means and loc.means:
            gm = (rnd.median() - loc.median()) / 2
            gb = (rnd.best() - loc.best()) / 2
        else:
            gm = gb = None
        oneway[s] = (gm, gb)

        def pair(a, b, f=us):
            return "-" if a is None else f"{f(a)} / {f(b)}"

        out(f"| {size_name(s)} | {pair(mm, mb)} | "
            f"{pair(rnd.median(), rnd.best())} | "
            f"{pair(loc.median(), loc.best())} | {pair(gm, gb)} | "
            f"{rate(s, mm)} / {rate(s, mb)} | {rate(s, gm)} / {rate(s, gb)} | "
            f"{ratio(mm, gm)} / {ratio(mb, gb)} |")
    big = max(sizes)
    gm, gb = oneway[big]
    mm, mb = mpi.median(big), mpi.best(big)
    if gm and mm:
        met = (mm / gm >= 0.9, mb / gb >= 0.9)
        verdict = ("met" if all(met) else "not met" if not any(met)
                   else "met best / best only" if met[1]
                   else "met median / median only")
        out(f"\nGoal (issue R2-5/8): gplace's bandwidth ≥ 0.9× MPI's at "
            f"{size_name(big)}: **{verdict}** ({ratio(mm, gm)} median / "
            f"median, {ratio(mb, gb)} best / best).\n")
    for s in sizes:
        for side in graphs[s].values():
            if side.failure:
                out(side.failure.markdown())

    out("### Where gplace's time goes beyond MPI's\n")
    out("Per one-way transfer: gplace's one-way time less MPI's (median / "
        "best); a send's copy of its tensor as this script's process does it "
        "with libc (malloc N, memcpy, free: `std::vector::assign` in "
        "`MpiTransport::send`) and a memcpy between buffers touched before, "
        "each the mean over K calls (median / best of the samples); minor "
        "page faults per malloc+memcpy+free call; and gplace's minor page "
        "faults per round trip, both ranks, round-trip graph and local graph "
        "(getrusage of mpirun's reaped children: a timed sample less the "
        "untimed warm-up of 2 runs, over the K − 1 runs between them), "
        "against the N / 4096 pages of one tensor.\n")
    out("| size | gplace − MPI one-way µs | malloc+memcpy+free µs | "
        "memcpy µs | faults per malloc+memcpy+free | gplace faults per "
        "round trip (round / local) | pages of N |")
    out("|---|---:|---:|---:|---:|---:|---:|")
    for s in sizes:
        c = copies[s]
        gm, gb = oneway[s]
        mm, mb = mpi.median(s), mpi.best(s)
        diff = "-" if gm is None or mm is None else \
            f"{us(gm - mm)} / {us(gb - mb)}"
        fr, fl = (graphs[s]["round"].faults_per_run(),
                  graphs[s]["local"].faults_per_run())
        faults = "-" if fr is None or fl is None else \
            f"{round(fr)} / {round(fl)}"
        out(f"| {size_name(s)} | {diff} | "
            f"{us(statistics.median(c.fresh))} / {us(min(c.fresh))} | "
            f"{us(statistics.median(c.warm))} / {us(min(c.warm))} | "
            f"{round(statistics.median(c.fresh_faults))} | {faults} | "
            f"{max(1, s // 4096)} |")
    out("")
    for s in sizes:
        c = copies[s]
        faults = statistics.median(c.fresh_faults)
        if faults >= 1:
            extra = statistics.median(c.fresh) - statistics.median(c.warm)
            out(f"At {size_name(s)}, malloc+memcpy+free faults on "
                f"{faults:.0f} pages per call and takes {us(extra)} µs more "
                f"than the memcpy alone: {extra / faults * 1e6:.2f} µs per "
                "minor page fault on this machine.\n")

    if not args.skip_one_way:
        out("### The one-way graph (for the record)\n")
        out("The constant and the neg on task 1, the slice on task 0: one "
            "transfer per run. A send returns once MPI_Isend is posted, so "
            "task 1 does not wait for task 0 and runs ahead; rank 0's time "
            "per run is then the rate of a stream of transfers (and its "
            "receives find small messages already there), not the time of "
            "one: it is not comparable with the ping-pong. Raw figures; "
            "rate = N / time per run.\n")
        out("| size | one-way graph, rank 0's run µs (median / best) | "
            "local µs (median / best) | rate GB/s (median / best) | "
            "faults per run (both ranks) |")
        out("|---|---:|---:|---:|---:|")
        for s in sizes:
            side, loc = graphs[s]["oneway"], graphs[s]["local"]
            if not side.means:
                out(f"| {size_name(s)} | failed | | | |")
                continue
            f = side.faults_per_run()
            out(f"| {size_name(s)} | {us(side.median())} / {us(side.best())} "
                f"| {us(loc.median())} / {us(loc.best())} | "
                f"{rate(s, side.median())} / {rate(s, side.best())} | "
                f"{'-' if f is None else round(f)} |")
        out("")

    out("Samples, one-way µs: " + "; ".join(
        f"{size_name(s)}: MPI " +
        ", ".join(us(x) for x in mpi.samples[s]) + ", gplace round trip " +
        ", ".join(us(x) for x in graphs[s]["round"].means) + ", local " +
        ", ".join(us(x) for x in graphs[s]["local"].means)
        for s in sizes) + " (round trip and local: per run).\n")


# --- Training ----------------------------------------------------------------

def train_commands(args, work, binary):
    """The training model's command, less the devices, for `binary`."""
    if args.model == "fashion":
        return [binary, FASHION, "--entry=train", "--init=init",
                f"--input=@{os.path.join(args.fashion_dir, 'train-images-idx3-ubyte.gz')}",
                f"--input=@{os.path.join(args.fashion_dir, 'train-labels-idx1-ubyte.gz')}",
                f"--epochs={args.epochs}", "--shuffle=1", "--print-timing"]
    return [binary, TRAIN, "--entry=train", "--init=init",
            f"--input=@{os.path.join(work, 'x.idx')}",
            f"--input=@{os.path.join(work, 'y.idx.gz')}",
            f"--epochs={args.epochs}", "--shuffle=5", "--print-timing"]


def train_bench(args, work, binaries):
    """Sides for each (name, binary) of `binaries`; every side's `ref` is the
    one-process side of its binary and variable mode."""
    if args.model == "train":
        subprocess.run([sys.executable, MAKE_IDX, work], check=True)
    sides = []
    for name, binary in binaries:
        common = train_commands(args, work, binary)
        tag = f" [{name}]" if len(binaries) > 1 else ""
        mine = [
            Side("1 process, 4 emulated GPUs, mirrored" + tag,
                 common + ["--emulate-gpus=4", "--replicas=4"]),
            Side("2 tasks × 2 emulated GPUs, mirrored" + tag,
                 MPIRUN + common + ["--emulate-gpus=2", "--cluster=worker:2",
                                    f"--replicate={FOUR_GPUS}"]),
        ]
        if args.tcp:
            mine.append(
                Side("2 tasks × 2 emulated GPUs, mirrored, over TCP "
                     "(`--mca btl tcp,self`)" + tag,
                     MPIRUN + TCP + common +
                     ["--emulate-gpus=2", "--cluster=worker:2",
                      f"--replicate={FOUR_GPUS}"]))
            # Horovod's mpirun line: ranks not bound to one core each, so
            # a rank's threads (streams, MPI's progress) spread over the
            # cores as one process's do.
            mine.append(
                Side("2 tasks × 2 emulated GPUs, mirrored, over TCP, "
                     "`--bind-to none`" + tag,
                     MPIRUN + ["--bind-to", "none"] + TCP + common +
                     ["--emulate-gpus=2", "--cluster=worker:2",
                      f"--replicate={FOUR_GPUS}"]))
        if not args.tcp:
            mine.append(
                Side("2 tasks × 2 emulated GPUs, mirrored, `mpirun --bind-to "
                     "none`" + tag,
                     MPIRUN + ["--bind-to", "none"] + common +
                     ["--emulate-gpus=2", "--cluster=worker:2",
                      f"--replicate={FOUR_GPUS}"]))
        for side in mine:
            side.ref = mine[0]
        if not args.mirrored_only:
            host = [
                Side("1 process, 4 emulated GPUs, variables on the host" + tag,
                     common + ["--emulate-gpus=4", "--replicas=4",
                               "--replica-variables=host"]),
                Side("2 tasks × 2 emulated GPUs, variables on the host" + tag,
                     MPIRUN + common + ["--emulate-gpus=2",
                                        "--cluster=worker:2",
                                        f"--replicate={FOUR_GPUS} "
                                        "variables=host"]),
            ]
            if args.tcp:
                host.append(
                    Side("2 tasks × 2 emulated GPUs, variables on the host, "
                         "over TCP (`--mca btl tcp,self`)" + tag,
                         MPIRUN + TCP + common +
                         ["--emulate-gpus=2", "--cluster=worker:2",
                          f"--replicate={FOUR_GPUS} variables=host"]))
            for side in host:
                side.ref = host[0]
            mine += host
        sides += mine
    log("training: warm-up (untimed)")
    for side in sides:
        side.sample(timed=False)
    for r in range(args.repeat):
        log(f"training: round {r + 1}/{args.repeat}")
        for side in sides:
            side.sample()
    return sides


def report_train(args, sides, work, out):
    steps = 4 * args.epochs
    out("## 2. Training on 2 tasks × 2 emulated GPUs against 1 process with "
        "4\n")
    if args.model == "fashion":
        model = ("`examples/train_fashion_mnist.mlir`'s `@train` (the "
                 "README's 784-256-128-10 MLP, Adam, batch 128; 4 replicas "
                 f"of 32) on Fashion-MNIST's 60,000 images "
                 f"({args.fashion_dir}), {args.epochs} epoch(s) in batches "
                 "of 128, `--shuffle=1`.")
    else:
        model = ("`test/Tools/gplace-run/Inputs/train.mlir`'s `@train` "
                 "(logistic regression 4→2, batch 16, gradient descent; 4 "
                 "replicas of 4 samples) on make_idx.py's 64 samples, "
                 f"{args.epochs} epochs of 4 steps ({steps} steps), "
                 "`--shuffle=5`.")
    out(model + " A sample is one process's "
        "\"then mean\" step (`--print-timing`: every step after the first, "
        "each including filling its batch); the ratio is the cluster's "
        "throughput over one process's of the same variable mode (one "
        "process's step time over the cluster's; median / median, best / "
        "best; higher is better). The single process runs without mpirun "
        "(unbound, both cores); under mpirun each rank is bound to one core "
        "unless `--bind-to none`. Over TCP, `--mca btl tcp,self` keeps "
        "Open MPI off shared memory, as between hosts. "
        f"{args.repeat} samples each, in turn, after one untimed sample "
        "each. Commands (DIR: the script's temporary directory):\n")
    for side in sides:
        out(f"- {side.label}: `{shown(side.cmd, work)}`")
    out("")
    out("| configuration | step µs (median / best) | best single step µs "
        "| steps/s (median) | throughput ratio vs 1 process (median / best) "
        "| final loss |")
    out("|---|---:|---:|---:|---:|---:|")
    for side in sides:
        if not side.means:
            out(f"| {side.label} | failed | | | | |")
            continue
        ref = side.ref
        if not ref.means:
            ref = None
        r = ("(reference)" if side is ref else "-" if ref is None else
             f"{ratio(ref.median(), side.median())} / "
             f"{ratio(ref.best(), side.best())}")
        losses = sorted(set(x for x in side.results if x))
        out(f"| {side.label} | {us(side.median())} / {us(side.best())} | "
            f"{us(min(side.bests))} | {1 / side.median():.0f} | {r} | "
            f"{', '.join(losses) or '-'} |")
    out("")
    for side in sides:
        if side.failure:
            out(side.failure.markdown())
    out("Samples (µs per step): " + "; ".join(
        f"{side.label}: " + ", ".join(us(x) for x in side.means)
        for side in sides) + ".\n")


def shown(cmd, work):
    return shlex.join(cmd).replace(work, "DIR")


# --- Main ---------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gplace-run",
                        default=os.path.join(ROOT, "build", "bin",
                                             "gplace-run"))
    parser.add_argument("--repeat", type=int, default=5,
                        help="samples per side (default 5)")
    parser.add_argument("--sizes", default="8,65536,1048576,16777216,67108864",
                        help="transfer sizes in bytes, multiples of 4")
    parser.add_argument("--epochs", type=int,
                        help="training epochs (default 500 of 4 steps; 1 "
                        "of 469 with --model fashion)")
    parser.add_argument("--model", choices=("train", "fashion"),
                        default="train",
                        help="training model: train.mlir's logistic "
                        "regression (default) or the README's Fashion-MNIST "
                        "MLP")
    parser.add_argument("--fashion-dir",
                        default="/usr/share/datasets/fashion-mnist",
                        help="Fashion-MNIST's idx files (--model fashion)")
    parser.add_argument("--tcp", action="store_true",
                        help="train the cluster over TCP too (mpirun --mca "
                        "btl tcp,self; bound and --bind-to none), in place "
                        "of the shared-memory --bind-to none side")
    parser.add_argument("--mirrored-only", action="store_true",
                        help="leave out the variables-on-the-host sides")
    parser.add_argument("--baseline-run", metavar="GPLACE_RUN",
                        help="a second gplace-run (before a change) whose "
                        "training sides run in the same rounds")
    parser.add_argument("--skip-transfer", action="store_true")
    parser.add_argument("--skip-train", action="store_true")
    parser.add_argument("--skip-one-way", action="store_true",
                        help="leave out the one-way graph")
    args = parser.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    if args.epochs is None:
        args.epochs = 1 if args.model == "fashion" else 500
    if args.repeat < 1 or args.epochs < 1:
        sys.exit("--repeat and --epochs must be positive")
    for tool in ("mpirun", "mpicc"):
        if not shutil.which(tool):
            sys.exit(f"{tool} not found (Open MPI: apt-get install "
                     "openmpi-bin libopenmpi-dev)")

    with tempfile.TemporaryDirectory(prefix="gplace-cluster-") as work:
        run_binary = os.path.join(work, "gplace-run")
        shutil.copy2(args.gplace_run, run_binary)
        digest = sha256(run_binary)
        started_load = load()
        wall = time.monotonic()
        before = machine_times()

        # Environment: MPI's version, its point-to-point layer and binding.
        version = command_output(["mpirun", "--version"]).splitlines()
        vader = re.search(r'btl_vader_single_copy_mechanism" \(current '
                          r'value: "(\w+)"',
                          command_output(["ompi_info", "--param", "btl",
                                          "vader", "--level", "9"]))
        if not args.skip_transfer:
            mpi, graphs, copies, pingpong = transfer_bench(
                args, work, run_binary)
            probe = subprocess.run(
                MPIRUN + ["--report-bindings", "--mca", "pml_base_verbose",
                          "10", pingpong, "8:1"],
                capture_output=True, text=True)
            pml = sorted(set(re.findall(r"select: component (\w+) selected",
                                        probe.stdout + probe.stderr)))
            bindings = re.findall(r"(MCW rank \d+ bound to [^\n]*)",
                                  probe.stdout + probe.stderr)
        if not args.skip_train:
            binaries = [("after", run_binary)]
            if args.baseline_run:
                base_binary = os.path.join(work, "gplace-run.before")
                shutil.copy2(args.baseline_run, base_binary)
                binaries.insert(0, ("before", base_binary))
            sides = train_bench(args, work, binaries if args.baseline_run
                                else [("", run_binary)])
        after = machine_times()
        seconds = time.monotonic() - wall
        source_now = (sha256(args.gplace_run)
                      if os.path.exists(args.gplace_run) else None)

        print(f"# Clusters: send/recv and training on MPI — "
              f"{datetime.date.today().isoformat()}\n")
        print("## Environment\n")
        print(f"- CPU: {cpu_model()}; `nproc` {command_output(['nproc'])}, "
              f"{len(os.sched_getaffinity(0))} usable by this process; load "
              f"average {started_load} at the start; "
              f"{other_load(before, after, seconds)}")
        print(f"- MPI: `mpirun --version`: {version[0] if version else '?'}"
              + (f"; library: {mpi.version}" if not args.skip_transfer and
                 mpi.version else ""))
        if not args.skip_transfer:
            print(f"- Point-to-point: pml {', '.join(pml) or 'unknown'} "
                  f"(`--mca pml_base_verbose 10`), shared-memory btl vader "
                  f"with single-copy mechanism "
                  f"`{vader.group(1) if vader else 'unknown'}` "
                  "(`ompi_info --param btl vader --level 9`); bindings: " +
                  ("; ".join(bindings) or "none reported"))
        built = datetime.datetime.fromtimestamp(
            os.path.getmtime(run_binary)).isoformat(" ", "seconds")
        print(f"- gplace-run: a copy of `{args.gplace_run}` (sha256 "
              f"{digest[:16]}…, modified {built}); git HEAD when the run "
              "ended: "
              f"{command_output(['git', '-C', ROOT, 'log', '-1', '--format=%h (%ci)'])}"
              + ("; the source changed during the run (rebuilt?)"
                 if source_now and source_now != digest else ""))
        if args.baseline_run:
            print(f"- Baseline (\"before\"): a copy of `{args.baseline_run}` "
                  f"(sha256 {sha256(args.baseline_run)[:16]}…, modified "
                  + datetime.datetime.fromtimestamp(
                      os.path.getmtime(args.baseline_run)).isoformat(
                          " ", "seconds") + "); \"after\": the gplace-run "
                  "above")
        print(f"- Command: `bench/cluster.py "
              f"--gplace-run {args.gplace_run} --repeat {args.repeat} "
              f"--epochs {args.epochs} "
              f"--sizes {','.join(str(x) for x in args.sizes)}"
              + (" --skip-transfer" if args.skip_transfer else "")
              + (" --skip-train" if args.skip_train else "")
              + (" --skip-one-way" if args.skip_one_way else "")
              + (f" --model {args.model}" if args.model != "train" else "")
              + (" --tcp" if args.tcp else "")
              + (" --mirrored-only" if args.mirrored_only else "")
              + (f" --baseline-run {args.baseline_run}"
                 if args.baseline_run else "")
              + f"`; {seconds:.0f} s\n")
        if not args.skip_transfer:
            report_transfer(args, mpi, graphs, copies, print)
        if not args.skip_train:
            report_train(args, sides, work, print)
    log(f"done in {time.monotonic() - START:.0f} s")


if __name__ == "__main__":
    main()
