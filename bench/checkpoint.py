#!/usr/bin/python3
"""Saving a large variable: gplace-run --save against dd with fsync.

A graph with one variable of --mib MiB (f32) runs once without --save and
once with it, alternately, --repeat times; the save's time is the
difference of the two medians (and of the two bests). dd writes the same
number of bytes with conv=fsync, interleaved with them, as the peer: the
checkpoint is an uncompressed .npz written to a temporary file, fsynced and
renamed, so dd with fsync is what the disk allows. Prints a Markdown
section (environment, figures, the ratio dd/save: 1.0 is dd's speed) and
writes it to --write if given.

    bench/checkpoint.py --gplace-run build/bin/gplace-run --mib 512
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchenv  # noqa: E402


def timed(cmd):
    """Seconds `cmd` takes (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gplace-run", default="build/bin/gplace-run")
    parser.add_argument("--mib", type=int, default=512)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", default=None,
                        help="where to write (default: a folder in TMPDIR)")
    parser.add_argument("--write", default=None, help="results file")
    args = parser.parse_args()

    elements = args.mib * (1 << 20) // 4
    work = tempfile.mkdtemp(dir=args.dir, prefix="gplace-ckpt-bench.")
    graph = os.path.join(work, "big.mlir")
    with open(graph, "w") as f:
        f.write(f"""func.func @main(%x: tensor<f32>) -> tensor<f32> {{
  %v = gplace.variable dense<0.0> : tensor<{elements}xf32> {{name = "big"}}
  %b = gplace.broadcast_to %x : tensor<f32> -> tensor<{elements}xf32>
  %t = gplace.assign_add %v, %b : !gplace.resource<tensor<{elements}xf32>>
  return %x : tensor<f32>
}}
""")
    checkpoint = os.path.join(work, "big.npz")
    dd_file = os.path.join(work, "dd.bin")
    run = [args.gplace_run, graph, "--input=f32=1.5"]
    dd = ["dd", "if=/dev/zero", f"of={dd_file}", "bs=1M",
          f"count={args.mib}", "conv=fsync", "status=none"]
    plain, saving, dds = [], [], []
    for _ in range(args.repeat):
        plain.append(timed(run))
        saving.append(timed(run + [f"--save={checkpoint}"]))
        dds.append(timed(dd))
    size = os.path.getsize(checkpoint)
    for path in (checkpoint, dd_file, graph):
        os.remove(path)
    os.rmdir(work)

    save_median = statistics.median(saving) - statistics.median(plain)
    save_best = min(saving) - min(plain)
    head, dirty = benchenv.checkout_state(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    lines = [
        f"## Checkpoint save: {args.mib} MiB variable ({size} bytes .npz)",
        "",
        f"- CPU: {benchenv.cpu_model()}, {os.cpu_count()} cores; load "
        f"{benchenv.load()} at the end; gplace {head}"
        f"{' (with local changes)' if dirty else ''}; written under "
        f"{args.dir or tempfile.gettempdir()}; {args.repeat} rounds, "
        "interleaved",
        f"- gplace-run without --save: median {statistics.median(plain):.2f}"
        f" s, best {min(plain):.2f} s; with --save: median "
        f"{statistics.median(saving):.2f} s, best {min(saving):.2f} s",
        f"- the save (difference): median {save_median:.2f} s, best "
        f"{save_best:.2f} s",
        f"- dd bs=1M conv=fsync of the same size: median "
        f"{statistics.median(dds):.2f} s, best {min(dds):.2f} s",
        f"- speed against dd (dd's time / the save's): median "
        f"{statistics.median(dds) / save_median:.2f}x, best "
        f"{min(dds) / save_best:.2f}x",
        "",
    ]
    benchenv.emit("\n".join(lines), args.write)


if __name__ == "__main__":
    main()
