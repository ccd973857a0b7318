"""Writes dnnl-layouts.mlir's inputs into the directory argv[1]: x, w,
dy, g, xc and dy in NCHW (dyc), float32 .npy files whose elements are
multiples of 1/64 in [-63/64, 63/64] that differ from their neighbours (a
reorder that moves an element shows; no 2x2 window of x has two equal
maxima), so that every sum of products the kernels form is exact in
float32, in any order."""
import os
import struct
import sys

SHAPES = {"x": (4, 12, 12, 8), "w": (3, 3, 8, 16), "dy": (4, 10, 10, 16),
          "g": (4, 6, 6, 8), "xc": (4, 8, 12, 12), "dyc": (4, 16, 10, 10)}

for k, (name, shape) in enumerate(sorted(SHAPES.items())):
    n = 1
    for d in shape:
        n *= d
    values = [((i * 37 + k) % 127 - 63) / 64.0 for i in range(n)]
    header = ("{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }"
              % ", ".join(str(d) for d in shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(os.path.join(sys.argv[1], name + ".npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
                header.encode("latin1"))
        f.write(struct.pack(f"<{n}f", *values))
