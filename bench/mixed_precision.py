#!/usr/bin/env python3
"""--mixed-precision=bf16 against f32: the training step of a matmul-bound
MLP (784-H-H-10, Adam; bench/accumulate.py's model) on the CPU, or on the
devices the extra flags give (issue R3-6/7 asks for at least 1.8x on an
H100/H200 with batch 1024 and H = 4096). Per round, in turn: f32; bf16
(on the CPU: oneDNN's bf16 matmul only with AMX, else computed in f32,
docs/runtime.md); and, on the CPU, bf16 with GPLACE_ONEDNN_BF16=native
(oneDNN's bf16 matmul wherever the CPU has AVX512_BF16). A sample is one process's
median run after the first (--print-timing); ratios are f32's step over
each side's, median of the rounds' medians against the same and best
against best (higher is faster).

  bench/mixed_precision.py [--batch 256] [--hidden 1024] [--iterations 30]
                           [--rounds 5] [--gplace-run build/bin/gplace-run]
                           [-- extra gplace-run flags, e.g. --emulate-gpus=1]
"""
import argparse
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'bench'))
import accumulate  # noqa: E402
import benchenv  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch', type=int, default=256)
    parser.add_argument('--hidden', type=int, default=1024)
    parser.add_argument('--iterations', type=int, default=30)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--gplace-run',
                        default=os.path.join(ROOT, 'build/bin/gplace-run'))
    parser.add_argument('extra', nargs='*')
    args = parser.parse_args()
    listing = benchenv.command_output([args.gplace_run, '--list-devices'])
    matmul = [l for l in listing.splitlines() if l.startswith('Matmul: ')]
    print(f'- CPU: {benchenv.cpu_model()}; gplace '
          f'{benchenv.checkout_state(ROOT)[0]}; '
          f'{matmul[0] if matmul else "Matmul: not reported"}; '
          f'{benchenv.env_variables(["OMP_NUM_THREADS", "DNNL_MAX_CPU_ISA", "GPLACE_ONEDNN_BF16", "OPENBLAS_CORETYPE"])}; '
          f'load {benchenv.load()} at the start')
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, 'mlp.mlir')
        open(path, 'w').write(accumulate.model(args.batch, args.hidden))
        base = ([args.gplace_run, path, '--entry=train', '--print-timing',
                 f'--iterations={args.iterations}']
                + accumulate.inputs(directory, args.batch) + args.extra)
        sides = [('f32', base, {}),
                 ('bf16', base + ['--mixed-precision=bf16'], {})]
        if not any(a.startswith('--emulate-gpus') for a in args.extra):
            sides.append(('bf16, GPLACE_ONEDNN_BF16=native',
                          base + ['--mixed-precision=bf16'],
                          {'GPLACE_ONEDNN_BF16': 'native'}))
        samples = {name: [] for name, _, _ in sides}
        for r in range(args.rounds):
            line = []
            for name, cmd, env in sides:
                median, best, _ = accumulate.run(cmd, env)
                samples[name].append((median, best))
                line.append(f'{name} {median:.3f} ms (best {best:.3f})')
            print(f'round {r + 1}: ' + '; '.join(line))
    f32_median = statistics.median(m for m, _ in samples['f32'])
    f32_best = min(b for _, b in samples['f32'])
    print(f'\nMLP 784-{args.hidden}-{args.hidden}-10, batch {args.batch}, '
          f'Adam; {args.rounds} rounds of {args.iterations} steps\n')
    print('| side | step median ms | step best ms | speed-up over f32 '
          '(median / best) |\n|---|---:|---:|---:|')
    for name, _, _ in sides:
        median = statistics.median(m for m, _ in samples[name])
        best = min(b for _, b in samples[name])
        print(f'| {name} | {median:.3f} | {best:.3f} | '
              f'{f32_median / median:.2f} / {f32_best / best:.2f} |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
