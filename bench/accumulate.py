#!/usr/bin/env python3
"""Gradient accumulation against small steps (issue R3-6/7's goal: one step
with --accumulate-steps=K on a batch of B takes at most 1.1x the time of K
steps on batches of B/K).

The model is generated here: a ReLU MLP 784-H-H-10 with a softmax
cross-entropy loss and Adam, TensorFlow 1's training step, its batch size
a parameter. Per round, in turn:

- accumulate: gplace-run --accumulate-steps=K on the batch-B model (one
  Adam update per step, K micro-batches of B/K);
- small: gplace-run on the batch-B/K model (one Adam update per step);

each for --iterations runs on the same random inputs (a process's
--print-timing gives its median, best and mean run after the first). The
ratio is accumulate's step over K small steps: the median of the rounds'
medians against the same, the best against the best, and the median of
the rounds' means (on a loaded machine a preemption, a time slice of a
few ms, falls in a long step more often than in a short one, so the
medians of steps of different lengths differ by more than their work;
the means count every preemption in proportion to the time). Both sides
run with the machine's default threads.

  bench/accumulate.py [--batch 128] [--k 4] [--hidden 512] [--iterations 50]
                      [--rounds 5] [--gplace-run build/bin/gplace-run]
                      [-- extra gplace-run flags, e.g. --emulate-gpus=1]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'bench'))
import benchenv  # noqa: E402


def model(batch, hidden):
    """The MLP's @train on a batch of `batch`: x (batch x 784, f32), labels
    (batch, i32) -> loss."""
    dims = [784, hidden, hidden, 10]
    lines = [f'func.func @train(%x: tensor<{batch}x784xf32>, '
             f'%labels: tensor<{batch}xi32>) -> tensor<f32> {{']
    params = []
    for i in range(3):
        n, m = dims[i], dims[i + 1]
        for kind, shape in (('w', f'{n}x{m}'), ('b', f'{m}')):
            init = '0.01' if kind == 'w' else '0.0'
            v = f'%{kind}{i}'
            lines.append(f'  {v} = gplace.variable dense<{init}> : '
                         f'tensor<{shape}xf32> {{name = "l{i}/{kind}"}}')
            for slot in ('m', 'v'):
                lines.append(f'  {v}_{slot} = gplace.variable dense<0.0> : '
                             f'tensor<{shape}xf32> '
                             f'{{name = "l{i}/{kind}/Adam_{slot}"}}')
            lines.append(f'  {v}r = gplace.read {v} : '
                         f'!gplace.resource<tensor<{shape}xf32>>')
            params.append((v, shape))
    h = '%x'
    for i in range(3):
        n, m = dims[i], dims[i + 1]
        lines.append(f'  %mm{i} = gplace.matmul {h}, %w{i}r : '
                     f'(tensor<{batch}x{n}xf32>, tensor<{n}x{m}xf32>) -> '
                     f'tensor<{batch}x{m}xf32>')
        lines.append(f'  %z{i} = gplace.bias_add %mm{i}, %b{i}r : '
                     f'tensor<{batch}x{m}xf32>, tensor<{m}xf32>')
        if i < 2:
            lines.append(f'  %h{i} = gplace.relu %z{i} : '
                         f'tensor<{batch}x{m}xf32>')
            h = f'%h{i}'
    lines.append(f'  %xent, %backprop = '
                 f'gplace.sparse_softmax_cross_entropy_with_logits %z2, '
                 f'%labels : tensor<{batch}x10xf32>, tensor<{batch}xi32>')
    lines.append(f'  %loss = gplace.reduce_mean %xent axes = [0] : '
                 f'tensor<{batch}xf32> -> tensor<f32>')
    grads = [f'%g{j}' for j in range(len(params))]
    lines.append(f'  {", ".join(grads)} = gplace.gradients %loss wrt '
                 + ', '.join(f'{v}r' for v, _ in params) + ' : tensor<f32> wrt '
                 + ', '.join(f'tensor<{s}xf32>' for _, s in params))
    for name, value in (('lr', '0.001'), ('beta1', '0.9'),
                        ('beta2', '0.999'), ('eps', '1.0e-7'),
                        ('b1p', '0.9'), ('b2p', '0.999')):
        lines.append(f'  %{name} = gplace.constant dense<{value}> : '
                     'tensor<f32>')
    updates = []
    for j, (v, shape) in enumerate(params):
        t = f'!gplace.resource<tensor<{shape}xf32>>'
        lines.append(f'  %u{j} = gplace.apply_adam {v}, {v}_m, {v}_v, %b1p, '
                     f'%b2p, %lr, %beta1, %beta2, %eps, %g{j} : {t}, {t}, '
                     f'{t}, ' + 'tensor<f32>, ' * 6 + f'tensor<{shape}xf32>')
        updates.append(f'%u{j}')
    lines.append(f'  %done = gplace.group {", ".join(updates)} : '
                 + ', '.join(['!gplace.control'] * len(updates)))
    lines.append('  %result = gplace.identity %loss after(%done) : '
                 'tensor<f32>')
    lines.append('  return %result : tensor<f32>')
    lines.append('}')
    return '\n'.join(lines) + '\n'


def write_npy(path, dtype, shape, values):
    """A .npy file (format 1.0) of `values` (a bytes object)."""
    header = ("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }"
              % (dtype, ''.join(f'{d}, ' for d in shape)))
    header += ' ' * (63 - (len(header) + 10) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + len(header).to_bytes(2, 'little'))
        f.write(header.encode() + values)


def inputs(directory, batch):
    import random
    import struct
    rng = random.Random(batch)
    x = os.path.join(directory, f'x{batch}.npy')
    y = os.path.join(directory, f'y{batch}.npy')
    write_npy(x, '<f4', (batch, 784),
              struct.pack(f'<{batch * 784}f',
                          *(rng.random() for _ in range(batch * 784))))
    write_npy(y, '<i4', (batch,),
              struct.pack(f'<{batch}i',
                          *(rng.randrange(10) for _ in range(batch))))
    return [f'--input=@{x}', f'--input=@{y}']


def run(cmd, env=None):
    """Runs gplace-run's cmd (with the variables in env added to this
    process's environment) and returns its step times in ms: (median, best,
    mean), parsed from --print-timing."""
    out = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True,
                         env={**os.environ, **(env or {})})
    if out.returncode != 0:
        sys.exit(' '.join(cmd) + '\n' + out.stderr[-2000:])
    match = re.search(r'mean ([0-9.]+) ms, best ([0-9.]+) ms, median ([0-9.]+) ms',
                      out.stderr)
    return float(match.group(3)), float(match.group(2)), float(match.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch', type=int, default=128)
    parser.add_argument('--k', type=int, default=4)
    parser.add_argument('--hidden', type=int, default=512)
    parser.add_argument('--iterations', type=int, default=50)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--gplace-run',
                        default=os.path.join(ROOT, 'build/bin/gplace-run'))
    parser.add_argument('extra', nargs='*')
    args = parser.parse_args()
    small = args.batch // args.k
    with tempfile.TemporaryDirectory() as directory:
        big_model = os.path.join(directory, 'big.mlir')
        small_model = os.path.join(directory, 'small.mlir')
        open(big_model, 'w').write(model(args.batch, args.hidden))
        open(small_model, 'w').write(model(small, args.hidden))
        common = ['--entry=train', '--print-timing',
                  f'--iterations={args.iterations}'] + args.extra
        accumulate_cmd = ([args.gplace_run, big_model] + common
                          + inputs(directory, args.batch)
                          + [f'--accumulate-steps={args.k}'])
        small_cmd = ([args.gplace_run, small_model] + common
                     + inputs(directory, small))
        print(f'- CPU: {benchenv.cpu_model()}; gplace '
              f'{benchenv.checkout_state(ROOT)[0]}; BLAS '
              f'{benchenv.loaded_blas(args.gplace_run)}; '
              f'{benchenv.env_variables(["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE"])}; '
              f'load {benchenv.load()} at the start')
        print(f'accumulate: {" ".join(accumulate_cmd)}')
        print(f'small: {" ".join(small_cmd)}')
        accumulated, smalls = [], []
        for r in range(args.rounds):
            a = run(accumulate_cmd)
            s = run(small_cmd)
            accumulated.append(a)
            smalls.append(s)
            print(f'round {r + 1}: accumulate {args.k}x{small}: median '
                  f'{a[0]:.3f} ms, best {a[1]:.3f}, mean {a[2]:.3f}; '
                  f'{args.k} small steps: median {args.k * s[0]:.3f} ms, '
                  f'best {args.k * s[1]:.3f}, mean {args.k * s[2]:.3f}')
    med_a = statistics.median(a[0] for a in accumulated)
    med_s = statistics.median(s[0] for s in smalls)
    best_a = min(a[1] for a in accumulated)
    best_s = min(s[1] for s in smalls)
    mean_a = statistics.median(a[2] for a in accumulated)
    mean_s = statistics.median(s[2] for s in smalls)
    print(f'\n| side | median ms | best ms | mean ms |\n|---|---:|---:|---:|\n'
          f'| one step, --accumulate-steps={args.k}, batch {args.batch} | '
          f'{med_a:.3f} | {best_a:.3f} | {mean_a:.3f} |\n'
          f'| {args.k} steps of batch {small} | {args.k * med_s:.3f} | '
          f'{args.k * best_s:.3f} | {args.k * mean_s:.3f} |\n'
          f'| ratio (goal at most 1.1) | {med_a / (args.k * med_s):.3f} | '
          f'{best_a / (args.k * best_s):.3f} | '
          f'{mean_a / (args.k * mean_s):.3f} |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
