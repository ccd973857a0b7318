#!/usr/bin/python3
"""Soak test of resuming killed trainings (not in CI; R3-2/7 deliverable 4).

Starts --runs training processes (examples/train_fashion_mnist.mlir, the
784-256-128-10 MLP with Adam, its slots and beta powers, on the first
--samples Fashion-MNIST training images, --epochs epochs with
`--shuffle=S`, a checkpoint saved after each epoch), kills each with
SIGKILL at random moments and resumes it from its checkpoint, as a job
scheduler that restarts a preempted job would:

    gplace-run ... --epochs=E --shuffle=S --save=ckpt.npz [--restore=ckpt.npz]

(`--restore` once the checkpoint exists), until a process exits by itself.
Each run is planned 1 to --max-kills kills (seeded RNG, --seed); each kill
lands either at a uniformly random moment of the process's expected life
("timed"), or while the process writes a checkpoint ("in a save": the
script polls for the partial file `.ckpt.npz.tmp<pid>` and kills after a
random 0-2 ms). A timed kill falls in the first 90% of the fastest
uninterrupted run's time, scaled to the epochs the process has left; a run
that exits before its first kill starts over (at most 5 times), so that
every run is killed at least once. Then it checks, per run:

- the final checkpoint equals the uninterrupted reference run's of the same
  shuffle seed byte for byte (`cmp`), and array for array with
  np.array_equal on np.load (the same names, dtypes, shapes and values);
- its global_step is epochs x steps per epoch;
- nothing but the checkpoint is left in the run's directory (no partial
  file of a killed writer);
- every process exited 0 or was killed by the script.

Kills "landed in a save" when the killed process left a partial file.
Results (Markdown, with the environment) go to --out and stdout; progress
to stderr.

Usage: bench/soak.py [--gplace-run build/bin/gplace-run] [--runs 200]
                     [--jobs 2] [--epochs 4] [--samples 1024]
                     [--seeds 4] [--max-kills 3] [--seed 1]
                     [--out bench/results/2026-11-29-soak.md]
"""
import argparse
import collections
import concurrent.futures
import datetime
import filecmp
import gzip
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLE = os.path.join(ROOT, "examples", "train_fashion_mnist.mlir")
DATA = "/usr/share/datasets/fashion-mnist"
CKPT = "ckpt.npz"
BATCH = 128  # The example's batch.


def slice_idx(source, target, n):
    """Writes the first n samples of the IDX file `source` to `target`."""
    with gzip.open(source, "rb") as f:
        data = f.read()
    rank = data[3]
    dims = list(struct.unpack(">" + "I" * rank, data[4:4 + 4 * rank]))
    per = 1
    for d in dims[1:]:
        per *= d
    header = data[:4] + struct.pack(">" + "I" * rank, n, *dims[1:])
    with open(target, "wb") as f:
        f.write(header + data[4 + 4 * rank:4 + 4 * rank + n * per])


def partials(directory):
    """The partial files of killed writers in `directory`."""
    return [f for f in os.listdir(directory) if f.startswith("." + CKPT + ".tmp")]


class Runner:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.steps_per_epoch = args.samples // BATCH
        self.data = [os.path.join(work, "images.idx"),
                     os.path.join(work, "labels.idx")]

    def command(self, directory, shuffle, restore):
        ckpt = os.path.join(directory, CKPT)
        cmd = [self.args.gplace_run, EXAMPLE, "--entry=train", "--init=init",
               "--input=@" + self.data[0], "--input=@" + self.data[1],
               f"--epochs={self.args.epochs}", f"--shuffle={shuffle}",
               "--save=" + ckpt]
        if restore:
            cmd.append("--restore=" + ckpt)
        return cmd

    def reference(self, shuffle):
        """Trains uninterrupted; returns (directory, seconds)."""
        directory = os.path.join(self.work, f"reference-{shuffle}")
        os.makedirs(directory)
        start = time.monotonic()
        subprocess.run(self.command(directory, shuffle, False), check=True,
                       stdout=subprocess.DEVNULL)
        return directory, time.monotonic() - start

    def soak_one(self, index, shuffle, expected_seconds):
        """One run: killed, resumed until it finishes. Returns a dict."""
        rng = random.Random(self.args.seed * 1_000_003 + index)
        directory = os.path.join(self.work, f"run-{index:03d}")
        os.makedirs(directory)
        ckpt = os.path.join(directory, CKPT)
        planned = rng.randint(1, self.args.max_kills)
        kills = []        # (mode, landed in a save, seconds into the process)
        missed = 0        # planned kills the process outlived (it finished)
        nothing_left = 0  # resumed processes that found every epoch done
        redone = 0        # started over: finished before its first kill
        attempts = 0
        errors = []
        start = time.monotonic()
        while True:
            attempts += 1
            restore = os.path.exists(ckpt)
            left = self.args.epochs
            if restore:
                with np.load(ckpt) as z:
                    left -= int(z["global_step"]) // self.steps_per_epoch
            proc = subprocess.Popen(self.command(directory, shuffle, restore),
                                    stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE)
            began = time.monotonic()
            killed = False
            if len(kills) < planned:
                mode = "save" if rng.random() < self.args.save_fraction else "timed"
                if mode == "timed":
                    # A moment of the process's expected life: the fastest
                    # uninterrupted run's, for the epochs it has left
                    # (start-up, compiling and --init take about 40%).
                    life = expected_seconds * (0.4 + 0.6 * left / self.args.epochs)
                    delay = rng.uniform(0, life)
                    try:
                        proc.wait(timeout=delay)
                    except subprocess.TimeoutExpired:
                        proc.send_signal(signal.SIGKILL)
                        killed = True
                else:
                    # The n-th save of this process, of the epochs it has
                    # left (the last one included).
                    mine = f".{CKPT}.tmp{proc.pid}"
                    wait_for = rng.randint(1, max(1, left))
                    seen = 0
                    was_there = False
                    while proc.poll() is None:
                        there = any(f.startswith(mine) for f in os.listdir(directory))
                        if there and not was_there:
                            seen += 1
                            if seen == wait_for:
                                time.sleep(rng.uniform(0, 0.002))
                                if proc.poll() is None:
                                    proc.send_signal(signal.SIGKILL)
                                    killed = True
                                break
                        was_there = there
                        time.sleep(0.0003)
                if killed:
                    proc.wait()
                    # The process may exit by itself between the script's
                    # last look and the signal: then it was not killed.
                    killed = proc.returncode == -signal.SIGKILL
                if killed:
                    landed = any(f.startswith(f".{CKPT}.tmp{proc.pid}")
                                 for f in partials(directory))
                    kills.append((mode, landed, time.monotonic() - began))
            stderr = proc.communicate()[1].decode(errors="replace")
            if killed:
                continue
            if len(kills) < planned:
                missed += 1
                if not kills and redone < 5:
                    # Finished before its first kill: every run is killed
                    # at least once, so it starts over with a new moment.
                    redone += 1
                    os.remove(ckpt)
                    continue
                planned = len(kills)  # It finished first: that plan is spent.
            if proc.returncode != 0:
                errors.append(f"attempt {attempts}: exit {proc.returncode}: "
                              + stderr.strip()[-300:])
            if "nothing left to run" in stderr:
                nothing_left += 1
            break
        seconds = time.monotonic() - start
        return {"index": index, "shuffle": shuffle, "kills": kills,
                "missed": missed, "attempts": attempts, "errors": errors,
                "nothing_left": nothing_left, "redone": redone,
                "seconds": seconds,
                "directory": directory}


def check(result, reference, steps_per_epoch, epochs):
    """Appends to result["errors"] what differs from the reference."""
    directory = result["directory"]
    ckpt = os.path.join(directory, CKPT)
    ref = os.path.join(reference, CKPT)
    errors = result["errors"]
    if not os.path.exists(ckpt):
        errors.append("no checkpoint")
        return
    result["bytes_equal"] = filecmp.cmp(ckpt, ref, shallow=False)
    with np.load(ckpt) as a, np.load(ref) as b:
        same_names = sorted(a.files) == sorted(b.files)
        arrays_equal = same_names and all(
            a[n].dtype == b[n].dtype and np.array_equal(a[n], b[n])
            for n in a.files)
        step = int(a["global_step"]) if "global_step" in a.files else None
    result["arrays_equal"] = arrays_equal
    if not result["bytes_equal"]:
        errors.append("checkpoint bytes differ from the reference")
    if not arrays_equal:
        errors.append("checkpoint arrays differ from the reference")
    if step != epochs * steps_per_epoch:
        errors.append(f"global_step {step}, expected {epochs * steps_per_epoch}")
    stray = sorted(set(os.listdir(directory)) - {CKPT})
    result["stray"] = stray
    if stray:
        errors.append("left beside the checkpoint: " + ", ".join(stray))


def environment(args):
    from benchenv import cpu_model, load, command_output  # noqa: E402
    commit = command_output(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    dirty = command_output(["git", "-C", ROOT, "status", "--porcelain",
                            "--untracked-files=no"])
    return [
        f"- CPU: {cpu_model()}; os.cpu_count() {os.cpu_count()}, "
        f"{len(os.sched_getaffinity(0))} usable by this process",
        f"- gplace-run: {args.gplace_run}, the checkout at {commit}"
        + (" (with uncommitted changes)" if dirty else ""),
        f"- Python {sys.version.split()[0]}, NumPy {np.__version__}",
        f"- Load average at the start: {load()}",
        f"- OMP_NUM_THREADS {os.environ.get('OMP_NUM_THREADS', 'unset')}, "
        f"OPENBLAS_NUM_THREADS {os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}",
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gplace-run",
                        default=os.path.join(ROOT, "build", "bin", "gplace-run"))
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--samples", type=int, default=1024)
    parser.add_argument("--seeds", type=int, default=4,
                        help="distinct shuffle seeds (one reference each)")
    parser.add_argument("--max-kills", type=int, default=3)
    parser.add_argument("--save-fraction", type=float, default=0.4,
                        help="the share of kills aimed at a save")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true",
                        help="keep the work directory")
    parser.add_argument("--out", default=None,
                        help="results file (Markdown); default: print only")
    args = parser.parse_args()
    args.gplace_run = os.path.abspath(args.gplace_run)
    sys.path.insert(0, HERE)
    env = environment(args)
    for line in env:
        print(line, file=sys.stderr)
    work = tempfile.mkdtemp(prefix="gplace-soak-")
    begun = time.monotonic()
    try:
        slice_idx(os.path.join(DATA, "train-images-idx3-ubyte.gz"),
                  os.path.join(work, "images.idx"), args.samples)
        slice_idx(os.path.join(DATA, "train-labels-idx1-ubyte.gz"),
                  os.path.join(work, "labels.idx"), args.samples)
        runner = Runner(args, work)
        references, ref_seconds = {}, []
        for s in range(1, args.seeds + 1):
            references[s], sec = runner.reference(s)
            ref_seconds.append(sec)
            print(f"reference --shuffle={s}: {sec:.2f} s", file=sys.stderr)
        expected = 0.9 * min(ref_seconds)
        results = []
        lock = threading.Lock()

        def one(i):
            r = runner.soak_one(i, 1 + i % args.seeds, expected)
            check(r, references[r["shuffle"]], args.samples // BATCH,
                  args.epochs)
            with lock:
                results.append(r)
                done = len(results)
                ok = "identical" if not r["errors"] else "FAILED: " + "; ".join(r["errors"])
                print(f"[{done}/{args.runs}] run {i}: {len(r['kills'])} kills "
                      f"({sum(k[1] for k in r['kills'])} in a save), "
                      f"{r['seconds']:.1f} s, {ok}", file=sys.stderr)
            if not r["errors"] and not args.keep:
                shutil.rmtree(r["directory"])
            return r

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(one, range(args.runs)))
        elapsed = time.monotonic() - begun
        report = summarize(args, env, results, ref_seconds, elapsed)
    finally:
        if not args.keep and all(not r["errors"] for r in locals().get("results", [])):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}", file=sys.stderr)
    print(report)
    if args.out:
        with open(args.out, "w") as f:
            f.write(report)
    return 0 if all(not r["errors"] for r in results) else 1


def summarize(args, env, results, ref_seconds, elapsed):
    from benchenv import load  # noqa: E402
    results.sort(key=lambda r: r["index"])
    n = len(results)
    identical = sum(1 for r in results if r.get("bytes_equal") and r.get("arrays_equal"))
    for r in results:
        if not r["kills"]:
            r["errors"].append("never killed")
    failed = [r for r in results if r["errors"]]
    kills = [k for r in results for k in r["kills"]]
    per_run = collections.Counter(len(r["kills"]) for r in results)
    timed = [k for k in kills if k[0] == "timed"]
    aimed = [k for k in kills if k[0] == "save"]
    landed = sum(1 for k in kills if k[1])
    attempts = sum(r["attempts"] for r in results)
    missed = sum(r["missed"] for r in results)
    nothing_left = sum(r["nothing_left"] for r in results)
    redone = sum(r["redone"] for r in results)
    stray = sum(1 for r in results if r.get("stray"))
    run_seconds = sorted(r["seconds"] for r in results)
    lines = [f"# Soak: killed and resumed trainings — {datetime.date.today()}", "",
             "## Environment", ""] + env + [
        f"- Load average at the end: {load()}; the soak took {elapsed:.0f} s "
        f"({args.jobs} runs at a time)", "",
        "## Results", "",
        f"Command: `bench/soak.py --runs {args.runs} --jobs {args.jobs} "
        f"--epochs {args.epochs} --samples {args.samples} --seeds {args.seeds} "
        f"--max-kills {args.max_kills} --save-fraction {args.save_fraction} "
        f"--seed {args.seed}`. Each run: examples/train_fashion_mnist.mlir "
        f"(Adam with slots and beta powers), {args.samples} images, "
        f"{args.samples // BATCH} steps of {BATCH} per epoch, {args.epochs} "
        f"epochs with `--shuffle=S` (S = 1 + run mod {args.seeds}), a "
        f"checkpoint after each epoch, killed with SIGKILL and resumed with "
        f"`--restore` until it exits by itself; compared with the "
        f"uninterrupted run of its S.", "",
        "| | |", "|---|---:|",
        f"| runs | {n} |",
        f"| final checkpoint identical to the uninterrupted run's (cmp and np.array_equal) | **{identical}/{n}** |",
        f"| runs with a file left beside the checkpoint | {stray} |",
        f"| processes started | {attempts} |",
        f"| kills | {len(kills)} ({len(timed)} at a random moment, {len(aimed)} aimed at a save) |",
        f"| kills that landed in a save (a partial file left) | {landed} |",
        "| kills per run: " + ", ".join(f"{k}: {per_run[k]} runs" for k in sorted(per_run)) + " | |",
        f"| planned kills the process outlived (it had finished) | {missed} |",
        f"| runs started over (finished before their first kill) | {redone} |",
        f"| resumed processes that found every epoch done | {nothing_left} |",
        "| uninterrupted run (per seed) | " + ", ".join(f"{s:.2f}" for s in ref_seconds) + " s |",
        f"| a run with its kills and resumes: median / max | {run_seconds[n // 2]:.2f} / {run_seconds[-1]:.2f} s |",
        f"| the soak's wall time | {elapsed:.0f} s |",
        ""]
    if failed:
        lines += ["## Failures", ""]
        for r in failed:
            lines.append(f"- run {r['index']} (--shuffle={r['shuffle']}, kills "
                         f"{r['kills']}): " + "; ".join(r["errors"]))
        lines.append("")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
