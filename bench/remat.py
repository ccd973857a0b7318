#!/usr/bin/env python3
"""--rematerialize=auto against no limit: the planned peak of a device and
the step time (median of gplace-run --print-timing's runs), interleaved
rounds.

  bench/remat.py --model test/Transforms/rematerialize-auto.mlir --entry train \
      --limit-mib 10 --iterations 50 --rounds 5 [-- extra gplace-run flags]

--limited='--accumulate-steps=2 --in-place' adds flags to the limited run
only. Each run's median and best step (after the first) are compared
median vs median and best vs best over the rounds.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args, extra, limit):
    if limit:
        extra = extra + args.limited.split()
    cmd = [args.gplace_run, args.model, '--entry=' + args.entry,
           '--emulate-gpus=1', '--print-memory-plan', '--print-timing'] + \
        (['--iterations=%d' % args.iterations] if args.iterations else []) + \
        extra
    if limit:
        cmd += ['--gpu-memory-limit=%d' % limit, '--rematerialize=auto']
    out = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        last = [l for l in out.stderr.splitlines() if 'error' in l]
        return None, None, (last[-1] if last else out.stderr[-300:])
    peak = int(re.search(r'device:GPU:0: peak (\d+)', out.stderr).group(1))
    median = float(re.search(r'median ([0-9.]+) ms', out.stderr).group(1))
    best = float(re.search(r'best ([0-9.]+) ms', out.stderr).group(1))
    return peak, (median, best), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--model', required=True)
    parser.add_argument('--entry', default='train')
    parser.add_argument('--limit-mib', type=int, required=True)
    parser.add_argument('--iterations', type=int, default=50,
                        help='0: none (a data set input gives the steps)')
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--gplace-run',
                        default=os.path.join(ROOT, 'build/bin/gplace-run'))
    parser.add_argument('--limited', default='',
                        help='gplace-run flags for the limited run only')
    parser.add_argument('extra', nargs='*')
    args = parser.parse_args()
    kept, remat = [], []
    for r in range(args.rounds):
        peak0, t0, err0 = run(args, args.extra, 0)
        peak1, t1, err1 = run(args, args.extra, args.limit_mib)
        if err0 or err1:
            print('round %d: %s' % (r + 1, err0 or err1))
            return 1
        kept.append(t0)
        remat.append(t1)
        print('round %d: kept %d bytes %.3f ms (best %.3f); limit %d MiB: '
              '%d bytes %.3f ms (best %.3f)'
              % (r + 1, peak0, t0[0], t0[1], args.limit_mib, peak1, t1[0],
                 t1[1]), flush=True)
    m0 = statistics.median(t[0] for t in kept)
    m1 = statistics.median(t[0] for t in remat)
    b0, b1 = min(t[1] for t in kept), min(t[1] for t in remat)
    print('peak %d -> %d bytes (%.1f%%); step median of medians %.3f -> '
          '%.3f ms (%.2fx); best %.3f -> %.3f ms (%.2fx)'
          % (peak0, peak1, 100.0 * peak1 / peak0, m0, m1, m1 / m0, b0, b1,
             b1 / b0))
    return 0


if __name__ == '__main__':
    sys.exit(main())
