"""The timing and argument boilerplate the bench/ scripts share: where the
checkout and its gplace-run are, gplace-run's `--print-timing` line,
timed runs of a command, median / best of samples, logging, and float32
.npy inputs. (What they report about the machine is benchenv.py.)"""

import importlib.util
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections import namedtuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.join(ROOT, "build")
GPLACE_RUN = os.path.join(BUILD, "bin", "gplace-run")

# gplace-run --print-timing's line (formatRunTimes, lib/Tooling/Loop.cpp):
# groups 1 to 5 are the runs, the first run's ms, then the mean, best and
# median ms of the runs after the first (the median, and the p99 and max
# after it, only in newer builds).
TIMING = re.compile(r"^timing: (\d+) runs?, first ([0-9.]+) ms, then mean "
                    r"([0-9.]+) ms, best ([0-9.]+) ms"
                    r"(?:, median ([0-9.]+) ms)?", re.MULTILINE)

Timing = namedtuple("Timing", "runs first mean best median")
Timing.__doc__ = ("A --print-timing line in seconds: the runs, the first "
                  "run, and the mean, best and median (None where the line "
                  "has none) of the runs after the first.")


def parse_timing(text):
    """The first --print-timing line in `text` (gplace-run's stderr) as a
    Timing, or None where there is none."""
    match = TIMING.search(text)
    if not match:
        return None
    median_ms = match.group(5)
    return Timing(int(match.group(1)), float(match.group(2)) / 1e3,
                  float(match.group(3)) / 1e3, float(match.group(4)) / 1e3,
                  float(median_ms) / 1e3 if median_ms else None)


def log(message):
    """Progress on stderr (the results go to stdout)."""
    print(message, file=sys.stderr, flush=True)


class Failure(Exception):
    """A command (gplace-run, a peer) that exited non-zero or printed not
    what was expected of it."""

    def __init__(self, cmd, code, stderr, why):
        super().__init__(why)
        self.cmd, self.code, self.stderr, self.why = cmd, code, stderr, why

    def markdown(self, shown):
        """A results file's line for it, with the last lines of its stderr;
        `shown(cmd)` writes the command."""
        tail = "\n".join(self.stderr.strip().splitlines()[-8:]) or "(empty)"
        return (f"- **{self.why}**: `{shown(self.cmd)}` exited {self.code}; "
                f"stderr ends:\n\n  ```\n" +
                "\n".join("  " + line for line in tail.splitlines()) +
                "\n  ```\n")


def run(cmd, why, cwd=None):
    """Runs `cmd`; (wall seconds, peak RSS MiB, stdout, stderr), or raises
    Failure (`why`) on a non-zero exit. The wall time covers the process
    from fork to reaping; the RSS is the process's own (wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    if process.returncode != 0:
        raise Failure(cmd, process.returncode, stderr, why)
    return wall, usage.ru_maxrss / 1024, stdout, stderr


def gplace_timing(cmd, why="gplace-run failed"):
    """Runs a gplace-run `cmd` with --print-timing; (Timing, stdout,
    stderr), or raises Failure where it fails or prints no timing line."""
    _, _, out, err = run(cmd, why)
    timing = parse_timing(err)
    if not timing:
        raise Failure(cmd, 0, err,
                      "no `timing: ... then mean` line from gplace-run")
    return timing, out, err


def median(values):
    return statistics.median(values)


def ms(seconds):
    """Seconds as milliseconds with three decimals."""
    return f"{seconds * 1e3:.3f}"


def pair(values, unit_ms=True):
    """`median / best` of samples in seconds."""
    if unit_ms:
        return f"{ms(median(values))} / {ms(min(values))} ms"
    return f"{median(values):.3f} / {min(values):.3f} s"


_spec = importlib.util.spec_from_file_location(
    "write_npy", os.path.join(ROOT, "utils", "write-npy.py"))
_write_npy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_write_npy)


def write_npy(path, descr, shape, data):
    """A .npy file (format 1.0) of `data`, bytes already packed as the
    NumPy dtype `descr` ('<f4'), of `shape` (utils/write-npy.py)."""
    _write_npy.write_npy(path, descr, tuple(shape), data)


def write_f32(path, shape, values):
    """A little-endian float32 C-order .npy of `shape` holding `values` (a
    sequence of numbers, as many as the shape has elements)."""
    write_npy(path, "<f4", shape, struct.pack(f"<{len(values)}f", *values))
