#!/usr/bin/env python3
"""Writes a synthetic gplace graph of about N ops to stdout.

The graph is a chain of blocks shaped like a data-parallel model: per block a
variable on /cpu:0 and its read (a colocation group), a constant, a matmul
pinned to one of four GPU towers, a bias add, an activation, a reshape
(placed by the producer heuristic) and an add_n on the CPU every few blocks.
Every op kind placement treats differently appears, so the placer's cost per
op is representative.

Usage: gen_graph.py N > graph.mlir
"""
import sys

BLOCK = [
    '  %w{i} = gplace.variable dense<0.5> : tensor<8x8xf32> {{device = "/cpu:0"}}',
    '  %r{i} = gplace.read %w{i} : !gplace.resource<tensor<8x8xf32>>',
    '  %c{i} = gplace.constant dense<1.0> : tensor<8xf32>',
    '  %m{i} = gplace.matmul %x{p}, %r{i} {{device = "/gpu:{tower}"}} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>',
    '  %b{i} = gplace.bias_add %m{i}, %c{i} : tensor<8x8xf32>, tensor<8xf32>',
    '  %t{i} = gplace.tanh %b{i} : tensor<8x8xf32>',
    '  %s{i} = gplace.reshape %t{i} : tensor<8x8xf32> -> tensor<64xf32>',
    '  %x{i} = gplace.reshape %s{i} : tensor<64xf32> -> tensor<8x8xf32>',
]


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    ops = int(sys.argv[1])
    blocks = max(1, ops // (len(BLOCK) + 1))
    out = sys.stdout
    out.write("func.func @main(%x0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n")
    for i in range(1, blocks + 1):
        for line in BLOCK:
            out.write(line.format(i=i, p=i - 1, tower=i % 4) + "\n")
        # Every block ends with a sum on the CPU of its result and the last.
        out.write(f'  %n{i} = gplace.add_n %x{i}, %x{i - 1} {{device = "/cpu:0"}} '
                  ": tensor<8x8xf32>, tensor<8x8xf32>\n")
    out.write(f"  return %n{blocks} : tensor<8x8xf32>\n}}\n")


if __name__ == "__main__":
    main()
