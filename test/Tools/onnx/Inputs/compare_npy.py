#!/usr/bin/env python3
"""Compares two float32 .npy files (C order) element by element with ONNX's
backend tolerances: |a - b| <= atol + rtol * |b|, b the reference.

Usage: compare_npy.py ACTUAL.npy REFERENCE.npy [--rtol 1e-3] [--atol 1e-7]
Prints "match: N elements, max abs diff D" and exits 0, or the first element
that differs and exits 1.
"""
import argparse
import ast
import struct
import sys


def read(path):
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    major = data[6]
    if major == 1:
        (length,) = struct.unpack("<H", data[8:10])
        start = 10
    else:
        (length,) = struct.unpack("<I", data[8:12])
        start = 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        sys.exit(f"{path}: expected little-endian float32 in C order")
    body = data[start + length:]
    return tuple(header["shape"]), struct.unpack(f"<{len(body) // 4}f", body)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("actual")
    parser.add_argument("reference")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-7)
    args = parser.parse_args()
    shape_a, a = read(args.actual)
    shape_b, b = read(args.reference)
    if shape_a != shape_b:
        print(f"shape {shape_a} differs from the reference's {shape_b}")
        return 1
    worst = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        if not abs(x - y) <= args.atol + args.rtol * abs(y):
            print(f"element {i}: {x!r}, reference {y!r}")
            return 1
        worst = max(worst, abs(x - y))
    print(f"match: {len(b)} elements, max abs diff {worst:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
