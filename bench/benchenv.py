"""What the benchmarks report about their environment, shared by the
bench/ scripts (train.py, replicate.py, cluster.py): the CPU, the BLAS a
binary loads, the load, which binary ran, and commands' output."""

import hashlib
import os
import re
import resource
import shlex
import subprocess
import sys


def command_output(cmd):
    """`cmd`'s stdout, stripped; "unknown" if it cannot run or fails."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cpu_model():
    """The first processor's model name from /proc/cpuinfo."""
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                return value.strip()
    return "unknown CPU"


def loaded_library(binary, name):
    """The real path of the shared library `name` (e.g. "libdnnl") that
    `binary` loads (from ldd), its Debian package and version; None if it
    loads none."""
    for line in command_output(["ldd", binary]).splitlines():
        if name in line and "=>" in line:
            real = os.path.realpath(line.split("=>")[1].split("(")[0].strip())
            package = command_output(["dpkg-query", "-S", real]).split(":")[0]
            version = command_output(
                ["dpkg-query", "-W", "-f=${Version}", package])
            return f"{real} ({package} {version})"
    return None


def allocator(binary):
    """The malloc `binary` runs on: jemalloc with its path, Debian package
    and version where it loads libjemalloc (gplace_link_allocator in
    cmake/GPlaceUtils.cmake), else glibc's."""
    jemalloc = loaded_library(binary, "libjemalloc")
    return f"jemalloc, {jemalloc}" if jemalloc else "glibc's malloc"


def transparent_huge_pages():
    """The kernel's transparent huge page mode (`always`, `madvise` or
    `never`, from /sys/kernel/mm/transparent_hugepage/enabled), which
    decides whether gplace-opt's jemalloc option thp:always takes effect
    (tools/common/CompilerMallocConf.c): it does under `always` and
    `madvise`. None where the file is missing."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            text = f.read()
    except OSError:
        return None
    chosen = re.search(r"\[(\w+)\]", text)
    return chosen.group(1) if chosen else text.strip()


def loaded_blas(binary):
    """The real path of the libopenblas `binary` loads (from ldd), its
    Debian package and version; or a note that it loads none."""
    return loaded_library(binary, "libopenblas") or (
        f"no shared libopenblas in `ldd {binary}` (linked statically?)")


def gplace_matmul(run_bin):
    """Which libraries gplace-run's CPU matrix products run on (its
    `--list-devices` "Matmul:" line), with the oneDNN it loads."""
    listing = command_output([run_bin, "--list-devices"]).splitlines()
    lines = [l[len("Matmul: "):] for l in listing if l.startswith("Matmul: ")]
    dnnl = loaded_library(run_bin, "libdnnl")
    return (lines[0] if lines else "not reported") + (
        f" ({dnnl})" if dnnl else "")


def environment_section(env, elapsed, phases, others):
    """A results file's Environment section, as lines to print: the lines
    of `env`, then the load average at the end, the run's `elapsed`
    seconds by phase, and `others`, what the rest of the machine used
    (replicate.other_load)."""
    return ["## Environment\n", "\n".join(env),
            f"- Load average {load()} at the end; the run took {elapsed:.0f} "
            f"s ({', '.join(phases)})",
            f"- Besides this benchmark, {others} (from /proc/stat and this "
            "process's getrusage)\n"]


def command_line():
    """This script's invocation as the results file shows it:
    `bench/<script> <its arguments>`, quoted for a shell."""
    script = os.path.basename(sys.argv[0])
    return " ".join(["bench/" + script] + [shlex.quote(a) for a in sys.argv[1:]])


def cpu_family():
    """/proc/cpuinfo's first "cpu family" and "model" values, by key."""
    family = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() in ("cpu family", "model") and \
                    key.strip() not in family:
                family[key.strip()] = value.strip()
    return family


def sha256(path):
    """The hex SHA-256 of the file at `path` (which binary was measured)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load():
    """The 1, 5 and 15 minute load averages, as text."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def machine_times():
    """The machine's busy and stolen seconds (/proc/stat), and this
    process's and its reaped children's (getrusage): (busy, steal, ours)."""
    hz = os.sysconf("SC_CLK_TCK")
    with open("/proc/stat") as f:
        # user nice system idle iowait irq softirq steal ...
        jiffies = [int(x) for x in f.readline().split()[1:9]]
    busy = (sum(jiffies[0:3]) + jiffies[5] + jiffies[6]) / hz
    steal = jiffies[7] / hz
    ours = sum(getattr(resource.getrusage(who), field)
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for field in ("ru_utime", "ru_stime"))
    return busy, steal, ours


def train_batch_size(example):
    """The batch of @train's images argument in the MLP example `example`."""
    with open(example) as f:
        match = re.search(r"@train\(%\w+: tensor<(\d+)x28x28xui8>", f.read())
    if not match:
        sys.exit(f"no @train(%images: tensor<Bx28x28xui8>) in {example}")
    return int(match.group(1))


def checkout_state(root):
    """(short HEAD, True if tracked files differ from it) of the checkout
    at `root`, for a results file's environment."""
    head = command_output(["git", "-C", root, "rev-parse", "--short", "HEAD"])
    dirty = command_output(["git", "-C", root, "status", "--porcelain",
                            "--untracked-files=no"])
    return head, bool(dirty)


def env_variables(names):
    """`NAME=value` or `NAME unset` for each of `names`, comma-separated."""
    return ", ".join(f"{name}={os.environ[name]}" if name in os.environ
                     else f"{name} unset" for name in names)


def emit(text, path):
    """Prints `text` (a results section) and appends it to the file `path`
    too, if given."""
    print(text)
    if path:
        with open(path, "a") as f:
            f.write(text + "\n")
