#!/usr/bin/env python3
"""Automatic placement (policy=auto, R2-7/8): its step time against hand
placements, the cost model's prediction against the measurement, and the
time it takes to place a 100k-op graph.

1. Step time. Each graph runs on emulated GPUs (`gplace-run FILE
   --emulate-gpus=N --gpu-memory-limit=M`) under five placements:
   - all on one device: the default placement (every op on GPU:0);
   - `--policy=round-robin-gpu` (variables spread over the GPUs, the ops
     on GPU:0: a parameter-server setup);
   - an expert's hand split: a copy of the graph with an explicit
     `device = "/gpu:K"` on every op, contiguous layers per GPU (the MLP),
     or one tower per GPU (the towers), the default policy for the rest;
   - `--policy=auto --placement-profile=PROF`, PROF measured on this
     machine by `gplace-run --profile=PROF --emulate-gpus=N` at the start;
   - `--policy=auto` with the built-in rates (no profile: GPUs 200x the CPU).
   Configurations: examples/auto_placement_towers.mlir on 2 emulated GPUs;
   a scaled-down examples/auto_placement_mlp.mlir (--mlp-layers layers of
   --mlp-width^2 f32 weights of value 1/width, batch --mlp-batch, written to
   the temporary directory) on 4 emulated GPUs with --small-limit MiB each
   (all-on-one does not fit) and with --large-limit MiB (it fits).
   Measured: a sample is one gplace-run process's mean run after its first
   (`--iterations=1+K --print-timing`, "then mean"); every process's
   `result[0]:` must be the graph's value (towers 2, MLP 1). Each placement
   takes one untimed sample (with --log-device-placement, which gives the
   placement it ran), then the placements take --repeat samples each in
   turn, round after round.
   Predicted: `gplace-opt FILE --gplace-assign-devices="devices=cpu:1,gpu:N
   gpu-memory-limit=M" --gplace-place="policy=... [profile=PROF]"
   --gplace-estimate="profile=PROF"`, the same placement estimated with the
   measured rates. The script checks that gplace-opt placed every op where
   gplace-run ran it. Prediction error = (predicted - measured median) /
   measured median.
2. Placement time: bench/gen_graph.py's graph of --ops ops (matmuls pinned
   to /gpu:K, variables and add_n to /cpu:0) and the same graph with every
   `device` removed (auto decides every op), each placed by `gplace-opt
   graph.mlir --gplace-place="devices=cpu:1,gpu:4[ policy=auto]" -o
   /dev/null --mlir-timing`; the pass's own time from --mlir-timing
   (PlacePass), the process's wall time and peak RSS; --place-repeat runs
   each, taken in turn, no warm-up (as bench/placement.py).

Times are median / best; ratios median over median, best over best.
gplace-run and gplace-opt are copied into a temporary directory first and
only the copies run, so a rebuild of build/ during the run cannot change
them. The report (Markdown) goes to stdout, progress to stderr.

Usage: bench/autoplace.py [--build build] [--repeat 5] [--runs-towers 5]
                          [--runs-mlp 10] [--mlp-layers 12]
                          [--mlp-width 2048] [--mlp-batch 64]
                          [--small-limit 64] [--large-limit 16384]
                          [--ops 100000] [--place-repeat 3]
                          [--skip-step] [--skip-placement]
"""
import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchenv import (checkout_state, command_line, command_output,
                      cpu_family, env_variables, environment_section,  # noqa: E402
                      load, sha256)
from benchlib import log  # noqa: E402
from replicate import Side, cpu_times, other_load  # noqa: E402
from suite import BLAS_ENV, BLAS_FLAGS, cpu, openblas  # noqa: E402

ROOT = os.path.dirname(HERE)
TOWERS = os.path.join(ROOT, "examples", "auto_placement_towers.mlir")
MLP = os.path.join(ROOT, "examples", "auto_placement_mlp.mlir")
PREFIX = "/job:localhost/replica:0/task:0/device:"
PLACED_LOG = re.compile(r"^(\S+): \((\w+)\): (/job:\S+)", re.MULTILINE)
PREDICTED = re.compile(r"^@main: predicted step time ([0-9.]+) ms",
                       re.MULTILINE)
NO_FIT = re.compile(r"error: device (\S+) needs \d+ bytes \((\d+) MiB\).*"
                    r"memory limit is \d+ bytes \((\d+) MiB\)")
MLIR_TIMING = re.compile(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(\w+)$",
                         re.MULTILINE)


def short(device):
    return device.replace(PREFIX, "")


# --- The graphs -------------------------------------------------------------

def scaled_mlp(layers, width, batch):
    """examples/auto_placement_mlp.mlir with `layers` layers of width^2
    weights of value 1/width and a batch of `batch` ones: its result is
    still 1."""
    with open(MLP) as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        if re.search(r"dense_(\d+)/", line) and \
                int(re.search(r"dense_(\d+)/", line).group(1)) >= layers:
            continue
        line = line.replace("tensor<64x8192xf32>", f"tensor<{batch}x{width}xf32>")
        line = line.replace("8192", str(width))
        line = line.replace("1.220703125e-04", repr(1.0 / width))
        out.append(line)
    text = "\n".join(out) + "\n"
    # The last layer's relu feeds the mean.
    last = layers - 1
    text = re.sub(r"(gplace\.reduce_mean )%h\d+", rf"\1%h{last}", text)
    return text


def with_devices(text, device_of):
    """`text` with `device = "..."` added to every op whose name
    `device_of` maps to a device."""
    def add(match):
        device = device_of(match.group(1))
        if device is None:
            return match.group(0)
        return f'{{name = "{match.group(1)}", device = "{device}"'
    return re.sub(r'\{name = "([^"]+)"', add, text)


def towers_expert(name):
    """One tower per GPU; the input and the sum on GPU:0."""
    if name.startswith("tower_b/"):
        return "/gpu:1"
    return "/gpu:0"


def mlp_expert(layers, gpus):
    """Contiguous layers per GPU: layer i on GPU i * gpus // layers; the
    input on GPU:0, the mean on the last GPU."""
    def device(name):
        match = re.match(r"dense_(\d+)/", name)
        if match:
            return f"/gpu:{int(match.group(1)) * gpus // layers}"
        return "/gpu:0" if name == "input" else f"/gpu:{gpus - 1}"
    return device


# --- Profiles ---------------------------------------------------------------

def measure_profile(run, path, gpus):
    done = subprocess.run([run, f"--profile={path}", f"--emulate-gpus={gpus}"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"gplace-run --profile failed ({done.returncode}): "
                 f"{done.stderr}")
    with open(path) as f:
        return json.load(f)


def profile_summary(profile):
    """One line per device (GFLOP/s, GB/s, launch) and the links' range."""
    parts = []
    for name, rates in profile["devices"].items():
        if not name.startswith("/job:"):
            continue
        parts.append(f"{short(name)} {rates['flops_per_second'] / 1e9:.1f} "
                     f"GFLOP/s, {rates['bytes_per_second'] / 1e9:.1f} GB/s, "
                     f"launch {rates['launch_seconds'] * 1e6:.3f} µs")
    links = [link for link in profile["links"]
             if link["from"].startswith("/job:")]
    if links:
        bw = [link["bytes_per_second"] / 1e9 for link in links]
        lat = [link["latency_seconds"] * 1e6 for link in links]
        parts.append(f"{len(links)} links {min(bw):.1f}-{max(bw):.1f} GB/s, "
                     f"latency {min(lat):.3f}-{max(lat):.3f} µs")
    return "; ".join(parts)


# --- Step time: one configuration -------------------------------------------

class Placement(Side):
    """One placement of one configuration: gplace-run's command (Side) and
    gplace-opt's prediction."""

    def __init__(self, label, run_cmd, opt_cmd, hand):
        super().__init__(label, run_cmd)
        self.opt_cmd, self.hand = opt_cmd, hand
        self.predicted, self.predicted_fits = None, None
        self.busy_sum = None
        self.opt_placement, self.opt_error = {}, None

    def predict(self, placed_path):
        done = subprocess.run(self.opt_cmd + ["-o", placed_path],
                              capture_output=True, text=True)
        match = PREDICTED.search(done.stderr)
        if done.returncode != 0 or not match:
            self.opt_error = (f"exit {done.returncode}: " +
                              " ".join(done.stderr.strip().splitlines()[-3:]))
            return
        self.predicted = float(match.group(1)) / 1e3
        # The devices' busy times: their sum is the step on devices that
        # cannot run at the same time (emulated GPUs on shared cores).
        self.busy_sum = sum(float(m.group(1)) / 1e3 for m in re.finditer(
            r"^\s+/job:\S+\s+([0-9.]+)\s", done.stderr, re.MULTILINE))
        self.predicted_fits = "the memory plan fails" not in done.stderr
        with open(placed_path) as f:
            for line in f:
                name = re.search(r'\bname = "([^"]+)"', line)
                device = re.search(r'assigned_device = "([^"]+)"', line)
                if name and device:
                    self.opt_placement[name.group(1)] = device.group(1)

    def run_placement(self):
        """name -> device from the untimed sample's log."""
        return {m.group(1): m.group(3) for m in PLACED_LOG.finditer(self.log)}

    def ops_per_device(self):
        placed = self.run_placement() or self.opt_placement
        counts = {}
        for device in placed.values():
            counts[short(device)] = counts.get(short(device), 0) + 1
        return ", ".join(f"{d} {n}" for d, n in sorted(counts.items()))

    def same_placement(self, other):
        """Whether two placements put every op on the same device (as
        gplace-run ran them, else as gplace-opt placed them)."""
        mine = self.run_placement() or self.opt_placement
        theirs = other.run_placement() or other.opt_placement
        return bool(mine) and mine == theirs

    def placement_check(self):
        """Whether gplace-run ran every op where gplace-opt placed it."""
        ran = self.run_placement()
        if not ran or not self.opt_placement:
            return "not compared"
        differ = [name for name, device in self.opt_placement.items()
                  if ran.get(name) not in (None, device)]
        missing = [name for name in self.opt_placement if name not in ran]
        if not differ and not missing:
            return "same"
        return (f"{len(differ)} ops differ" +
                (f" (e.g. {differ[0]}: gplace-opt "
                 f"{short(self.opt_placement[differ[0]])}, gplace-run "
                 f"{short(ran[differ[0]])})" if differ else "") +
                (f", {len(missing)} not in gplace-run's log"
                 if missing else ""))


class Config:
    def __init__(self, key, title, path, gpus, limit, expected, runs):
        self.key, self.title, self.path = key, title, path
        self.gpus, self.limit, self.expected, self.runs = (gpus, limit,
                                                           expected, runs)
        self.placements = []


def build_config(config, run, opt, work, expert_path, profile):
    base = [run, config.path, f"--emulate-gpus={config.gpus}",
            f"--gpu-memory-limit={config.limit}",
            f"--iterations={1 + config.runs}", "--print-timing"]
    assign = (f"--gplace-assign-devices=devices=cpu:1,gpu:{config.gpus} "
              f"gpu-memory-limit={config.limit}")
    estimate = f"--gplace-estimate=profile={profile}"

    def opt_cmd(path, place):
        return [opt, path, assign, f"--gplace-place={place}", estimate]

    sides = [
        ("all on GPU:0 (default placement)", base, opt_cmd(config.path, ""),
         True),
        ("`--policy=round-robin-gpu`", base + ["--policy=round-robin-gpu"],
         opt_cmd(config.path, "policy=round-robin-gpu"), True),
        ("expert split (explicit `/gpu:K`)",
         [run, expert_path] + base[2:], opt_cmd(expert_path, ""), True),
        ("**auto**, measured profile",
         base + ["--policy=auto", f"--placement-profile={profile}"],
         opt_cmd(config.path, f"policy=auto profile={profile}"), False),
        ("auto, built-in rates", base + ["--policy=auto"],
         opt_cmd(config.path, "policy=auto"), False),
    ]
    config.placements = [Placement(*side) for side in sides]
    for i, placement in enumerate(config.placements):
        placement.predict(os.path.join(work, f"placed_{config.key}_{i}.mlir"))


def take_samples(config, repeat):
    log(f"{config.title}")
    for side in config.placements:
        log(f"  warm-up: {side.label}")
        side.sample(timed=False, extra=["--log-device-placement"])
    for round_ in range(repeat):
        log(f"  round {round_ + 1}/{repeat}")
        for side in config.placements:
            side.sample()


def results_ok(side, expected):
    """The distinct result values of a placement's samples, and whether all
    are the expected one."""
    values = []
    for out in side.outputs:
        match = re.search(r"^result\[0\]: f32=(\S+)$", out, re.MULTILINE)
        values.append(match.group(1) if match else "none")
    distinct = sorted(set(values))
    ok = all(v != "none" and abs(float(v) - expected) <= 1e-5 * expected
             for v in values)
    return distinct, ok


def no_fit(side):
    match = NO_FIT.search(side.failure.stderr) if side.failure else None
    if match:
        return (f"does not fit: {short(match.group(1))} needs "
                f"{match.group(2)} MiB of {match.group(3)} MiB")
    return None


# --- Placement time ---------------------------------------------------------

def timed_opt(cmd):
    """Wall seconds, PlacePass seconds (--mlir-timing) and peak RSS (MiB)
    of one gplace-opt process."""
    with tempfile.TemporaryFile(mode="w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read()
    if process.returncode != 0:
        sys.exit(f"`{' '.join(cmd)}` failed ({process.returncode}): "
                 f"{text[-2000:]}")
    passes = {m.group(2): float(m.group(1))
              for m in MLIR_TIMING.finditer(text)}
    return elapsed, passes.get("PlacePass"), usage.ru_maxrss / 1024


def placement_time(opt, work, ops, repeat):
    pinned = os.path.join(work, "graph_pinned.mlir")
    free = os.path.join(work, "graph_free.mlir")
    with open(pinned, "w") as f:
        subprocess.run([sys.executable, os.path.join(HERE, "gen_graph.py"),
                        str(ops)], check=True, stdout=f)
    with open(pinned) as f:
        text = f.read()
    with open(free, "w") as f:
        f.write(re.sub(r' \{device = "[^"]*"\}', "", text))
    count = sum(1 for line in text.splitlines() if "gplace." in line)
    sides = []
    for graph, path in (("gen_graph.py (pinned)", pinned),
                        ("no `device` at all", free)):
        for policy in ("", "policy=auto"):
            cmd = [opt, path,
                   f"--gplace-place=devices=cpu:1,gpu:4"
                   + (f" {policy}" if policy else ""),
                   "-o", os.devnull, "--mlir-timing"]
            sides.append({"graph": graph, "path": path,
                          "policy": policy or "default", "cmd": cmd,
                          "samples": []})
    for round_ in range(repeat):
        log(f"placement time: round {round_ + 1}/{repeat}")
        for side in sides:
            side["samples"].append(timed_opt(side["cmd"]))
    # Where auto put the ops (one more run, untimed, its output kept).
    for side in sides:
        out = os.path.join(work, "placed_graph.mlir")
        subprocess.run(side["cmd"][:3] + ["-o", out], check=True,
                       stderr=subprocess.DEVNULL)
        counts = {}
        with open(out) as f:
            for device in re.findall(r'assigned_device = "([^"]+)"',
                                     f.read()):
                counts[short(device)] = counts.get(short(device), 0) + 1
        side["devices"] = ", ".join(f"{d} {n}"
                                    for d, n in sorted(counts.items()))
        os.remove(out)
    return count, sides


# --- Report -------------------------------------------------------------------

def ms(seconds):
    return f"{seconds * 1e3:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--repeat", type=int, default=5,
                        help="samples per placement (default 5)")
    parser.add_argument("--runs-towers", type=int, default=5,
                        help="timed runs per towers sample (default 5)")
    parser.add_argument("--runs-mlp", type=int, default=10,
                        help="timed runs per MLP sample (default 10)")
    parser.add_argument("--mlp-layers", type=int, default=12)
    parser.add_argument("--mlp-width", type=int, default=2048)
    parser.add_argument("--mlp-batch", type=int, default=64)
    parser.add_argument("--small-limit", type=int, default=64,
                        help="MiB per GPU where all-on-one does not fit "
                             "(default 64)")
    parser.add_argument("--large-limit", type=int, default=16384,
                        help="MiB per GPU where it fits (default 16384)")
    parser.add_argument("--ops", type=int, default=100000,
                        help="ops of the placement-time graph (default "
                             "100000)")
    parser.add_argument("--place-repeat", type=int, default=3)
    parser.add_argument("--skip-step", action="store_true")
    parser.add_argument("--skip-placement", action="store_true")
    args = parser.parse_args()
    if min(args.repeat, args.runs_towers, args.runs_mlp, args.mlp_layers,
           args.mlp_width, args.mlp_batch, args.small_limit,
           args.large_limit, args.ops, args.place_repeat) < 1:
        sys.exit("every count, size and limit must be positive")

    work = tempfile.mkdtemp(prefix="gplace-autoplace-")
    binaries = {}
    for tool in ("gplace-run", "gplace-opt"):
        source = os.path.join(args.build, "bin", tool)
        if not os.path.isfile(source):
            sys.exit(f"no {tool} at {source}")
        binaries[tool] = os.path.join(work, tool)
        shutil.copy2(source, binaries[tool])
    run, opt = binaries["gplace-run"], binaries["gplace-opt"]

    def shown(cmd):
        return " ".join(shlex.quote(c.replace(work, "$WORK")) for c in cmd)

    start_load, started, start_cpu = load(), time.monotonic(), cpu_times()
    model, flags = cpu()
    family = cpu_family()
    blas, _, _ = openblas(run)
    head, dirty = checkout_state(ROOT)
    variables = env_variables(BLAS_ENV)
    env = [
        f"- CPU: {model} (family {family.get('cpu family', '?')}, model "
        f"{family.get('model', '?')}); `nproc` {command_output(['nproc'])}, "
        f"{len(os.sched_getaffinity(0))} usable by this process; flags "
        + " ".join(f for f in BLAS_FLAGS if f in flags)
        + f"; load average {start_load} at the start",
        "- gplace-run and gplace-opt: copies of `"
        + os.path.abspath(os.path.join(args.build, "bin"))
        + f"/` (sha256 {sha256(run)[:16]} and {sha256(opt)[:16]}); the "
        f"checkout was at {head}" +
        (" with uncommitted changes to tracked files" if dirty else "") +
        " when the run started (the binaries may have been built from "
        "another state)",
        f"- BLAS of gplace-run: {blas}",
        f"- Environment variables: {variables}",
        "- Emulated GPUs are host memory and host kernels, one thread per "
        "stream (docs/runtime.md): all of them, and the CPU device, share "
        "this machine's cores and one OpenBLAS, so N emulated GPUs do not "
        "give N times the compute."]
    if "OPENBLAS_CORETYPE" in os.environ:
        env.append("- **Warning: OPENBLAS_CORETYPE is set** (bench/README.md)")
    log("\n".join(env))

    configs, profiles, phases = [], {}, []
    if not args.skip_step:
        for gpus in (2, 4):
            path = os.path.join(work, f"prof{gpus}.json")
            log(f"profile: gplace-run --profile --emulate-gpus={gpus}")
            profiles[gpus] = (path, measure_profile(run, path, gpus))
        mlp_path = os.path.join(work, "mlp.mlir")
        mlp_text = scaled_mlp(args.mlp_layers, args.mlp_width,
                              args.mlp_batch)
        with open(mlp_path, "w") as f:
            f.write(mlp_text)
        with open(TOWERS) as f:
            towers_text = f.read()
        towers_expert_path = os.path.join(work, "towers_expert.mlir")
        with open(towers_expert_path, "w") as f:
            f.write(with_devices(towers_text, towers_expert))
        mlp_expert_path = os.path.join(work, "mlp_expert.mlir")
        with open(mlp_expert_path, "w") as f:
            f.write(with_devices(mlp_text, mlp_expert(args.mlp_layers, 4)))
        weights = args.mlp_width ** 2 * 4 * args.mlp_layers / 2 ** 20
        mlp_name = (f"MLP {args.mlp_layers}x{args.mlp_width}², batch "
                    f"{args.mlp_batch} ({weights:.0f} MiB of weights)")
        configs = [
            Config("towers", "towers (examples/auto_placement_towers.mlir), "
                   f"2 GPUs of {args.large_limit} MiB", TOWERS, 2,
                   args.large_limit, 2.0, args.runs_towers),
            Config("mlp_small", f"{mlp_name}, 4 GPUs of {args.small_limit} "
                   "MiB", mlp_path, 4, args.small_limit, 1.0, args.runs_mlp),
            Config("mlp_large", f"{mlp_name}, 4 GPUs of {args.large_limit} "
                   "MiB", mlp_path, 4, args.large_limit, 1.0, args.runs_mlp),
        ]
        experts = {"towers": towers_expert_path, "mlp_small": mlp_expert_path,
                   "mlp_large": mlp_expert_path}
        phase = time.monotonic()
        for config in configs:
            build_config(config, run, opt, work, experts[config.key],
                         profiles[config.gpus][0])
            take_samples(config, args.repeat)
        phases.append(f"step time {time.monotonic() - phase:.0f} s")
    placement = None
    if not args.skip_placement:
        phase = time.monotonic()
        placement = placement_time(opt, work, args.ops, args.place_repeat)
        phases.append(f"placement time {time.monotonic() - phase:.0f} s")

    elapsed = time.monotonic() - started
    others = other_load(start_cpu, cpu_times(), elapsed)
    out = print
    out(f"# Automatic placement (policy=auto) — "
        f"{datetime.date.today().isoformat()}\n")
    for line in environment_section(env, elapsed, phases, others):
        out(line)
    out("## Results\n")
    out(f"Command: `{command_line()}`.\n")

    failures = []
    if configs:
        out("### Step time: auto against hand placements\n")
        out(f"Profiles (`gplace-run --profile=PROF --emulate-gpus=N`, "
            "measured at the start of this run):\n")
        for gpus, (_, profile) in sorted(profiles.items()):
            out(f"- N = {gpus}: {profile_summary(profile)}")
        out("")
        out("Measured: a sample is one gplace-run process's mean run after "
            "its first (`--iterations=1+K --print-timing`); median / best "
            f"of {args.repeat} samples per placement, taken in turn after "
            "one untimed sample each. Predicted: `--gplace-estimate` with "
            "the measured profile on gplace-opt's placement of the same "
            "graph (the built-in-rates auto is placed with the built-in "
            "rates and estimated with the profile). Error = (predicted − "
            "measured median) / measured median. The devices' busy time, "
            "summed, is the estimate's per-device busy_ms added up: the "
            "step if the devices could not run at the same time (its "
            "error likewise). Ratios are auto's time "
            "over the row's (below 1: auto is faster), median / median "
            "and best / best; predicted over predicted.\n")
        verdicts = []
        for config in configs:
            out(f"#### {config.title}\n")
            out(f"K = {config.runs} runs a sample; expected "
                f"`result[0]: f32={config.expected:g}`.\n")
            out("| placement | ops per device | predicted | measured "
                "(median / best) | prediction error | devices' busy "
                "time, summed (error) | auto (profile) / "
                "this: measured | predicted | auto (built-in) / this: "
                "measured | result | gplace-opt = gplace-run placement |")
            out("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
            auto, auto_builtin = config.placements[3], config.placements[4]

            def against(a, side):
                if a.failure or side.failure or not a.means or \
                        not side.means:
                    return "—"
                return (f"{a.median() / side.median():.2f} / "
                        f"{a.best() / side.best():.2f}")

            for side in config.placements:
                predicted = ("failed: " + side.opt_error if side.opt_error
                             else f"{ms(side.predicted)} ms" +
                             ("" if side.predicted_fits else
                              " (memory plan fails)"))
                pred_ratio = ("—" if not (auto.predicted and side.predicted)
                              else f"{auto.predicted / side.predicted:.2f}")
                if side.failure:
                    why = no_fit(side) or f"failed ({side.failure.why})"
                    if not no_fit(side):
                        failures.append(side.failure)
                    out(f"| {side.label} | {side.ops_per_device()} | "
                        f"{predicted} | {why} | | | | {pred_ratio} | | | |")
                    continue
                values, ok = results_ok(side, config.expected)
                error = (side.predicted - side.median()) / side.median() \
                    if side.predicted else None
                out(f"| {side.label} | {side.ops_per_device()} | {predicted} "
                    f"| {ms(side.median())} / {ms(side.best())} ms | "
                    + (f"{error:+.0%}" if error is not None else "—") +
                    (f" | {ms(side.busy_sum)} ms ("
                     f"{(side.busy_sum - side.median()) / side.median():+.0%})"
                     if side.busy_sum else " | —") +
                    f" | {against(auto, side)} | {pred_ratio} | "
                    f"{against(auto_builtin, side)} | "
                    + ("f32=" + ", ".join(values) +
                       ("" if ok else " **wrong**")) +
                    f" | {side.placement_check()} |")
            out("")
            out("Samples (ms per run): " + "; ".join(
                f"{side.label}: " + ", ".join(ms(s) for s in side.means)
                for side in config.placements if side.means) + ".\n")
            verdicts.append((config, auto, auto_builtin))

        out("#### Goals\n")
        out("Auto within 10% of the best hand placement (the fastest of "
            "all-on-one, round-robin-gpu and the expert split that ran, by "
            "median; by best for the best column) and never worse than "
            "all-on-one where that fits: ratios auto / hand, median / "
            "best; the verdict is on the medians (≤ 1.10 and ≤ 1.00).\n")
        out("| configuration | auto | best hand placement | auto / best "
            "hand (median / best) | ≤ 1.10 | auto / all-on-one (median / "
            "best) | ≤ 1.00 | predicted auto / best hand (predicted) |")
        out("|---|---|---|---:|---|---:|---|---:|")
        for config, auto, auto_builtin in verdicts:
            hands = [s for s in config.placements if s.hand and s.means]
            for label, side in (("profile", auto), ("built-in rates",
                                                    auto_builtin)):
                if side.failure or not side.means or not hands:
                    out(f"| {config.title} | {label} | | failed | | | | |")
                    continue
                best_hand = min(hands, key=lambda s: s.median())
                best_best = min(s.best() for s in hands)
                r_med = side.median() / best_hand.median()
                r_best = side.best() / best_best
                one = config.placements[0]
                if one.means:
                    o_med = side.median() / one.median()
                    o_cell = f"{o_med:.2f} / {side.best() / one.best():.2f}"
                    if side.same_placement(one):
                        o_goal = "met: the same placement (the ratio is noise)"
                    elif round(o_med, 2) <= 1.0:
                        o_goal = "met"
                    elif o_med <= 1.05:
                        o_goal = (f"not met: {o_med - 1:.0%} slower (within "
                                  "this machine's noise?)")
                    else:
                        o_goal = "**not met**"
                else:
                    o_cell, o_goal = "all-on-one does not fit", "met (runs)"
                predicted_hands = [s for s in config.placements
                                   if s.hand and s.predicted and
                                   s.predicted_fits]
                p_cell = "—"
                if side.predicted and predicted_hands:
                    p_best = min(predicted_hands, key=lambda s: s.predicted)
                    p_cell = (f"{side.predicted / p_best.predicted:.2f} "
                              f"({p_best.label})")
                same = [s.label for s in hands if side.same_placement(s)]
                out(f"| {config.title} | {label} | {best_hand.label}"
                    + (f" (auto's placement is the same as: "
                       f"{', '.join(same)})" if same else "") + " | "
                    f"{r_med:.2f} / {r_best:.2f} | "
                    f"{'met' if r_med <= 1.10 else '**not met**'} | "
                    f"{o_cell} | {o_goal} | {p_cell} |")
        out("")

    if placement:
        count, sides = placement
        out(f"### Placement time: {count} ops\n")
        out(f"`gplace-opt graph.mlir --gplace-place=\"devices=cpu:1,gpu:4"
            "[ policy=auto]\" -o /dev/null --mlir-timing`; the pass is "
            "`PlacePass` from --mlir-timing; median / best of "
            f"{args.place_repeat} processes per row, taken in turn. Goal: "
            "auto's pass ≤ 1 s.\n")
        out("| graph | policy | PlacePass (median / best) | µs per op "
            "(median) | process wall (median / best) | peak RSS | auto / "
            "default, pass (median / best) | ops per device | goal ≤ 1 s |")
        out("|---|---|---:|---:|---:|---:|---:|---|---|")
        for side in sides:
            passes = [p for _, p, _ in side["samples"]]
            walls = [w for w, _, _ in side["samples"]]
            rss = max(r for _, _, r in side["samples"])
            default = next(s for s in sides if s["graph"] == side["graph"]
                           and s["policy"] == "default")
            d_passes = [p for _, p, _ in default["samples"]]
            med, best = statistics.median(passes), min(passes)
            rel = ("" if side is default else
                   f"{med / statistics.median(d_passes):.2f} / "
                   f"{best / min(d_passes):.2f}")
            goal = ("" if side["policy"] == "default" else
                    ("met" if med <= 1.0 else "**not met**"))
            out(f"| {side['graph']} | {side['policy']} | {med:.3f} / "
                f"{best:.3f} s | {med / count * 1e6:.2f} | "
                f"{statistics.median(walls):.2f} / {min(walls):.2f} s | "
                f"{rss:.0f} MiB | {rel} | {side['devices']} | {goal} |")
        out("")

    if failures:
        out("### What failed\n")
        out("`$WORK` is the script's temporary directory.\n")
        for failure in failures:
            out(failure.markdown(shown))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
