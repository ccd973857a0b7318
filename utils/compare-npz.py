#!/usr/bin/env python3
"""Compares two .npz checkpoints (gplace-run --save) array by array with a
tolerance: |a - b| <= atol + rtol * |b|, as numpy.allclose. Both files must
hold the same arrays, of the same dtype and shape. Prints the first
difference and exits 1 if they differ, else prints "N arrays match" and the
largest absolute difference.

Standard library only: lit may run under a Python without numpy.

Usage: compare-npz.py A.npz B.npz [--rtol=1e-5] [--atol=1e-6]
"""
import array
import ast
import math
import struct
import sys
import zipfile

# .npy dtype descriptors (little-endian, as gplace writes them) -> array codes.
CODES = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "|i1": "b",
         "|u1": "B", "<i2": "h", "<u2": "H", "<u4": "I", "|b1": "B"}


def read_npy(data, name):
    """Returns (descr, shape, values) of one .npy file's bytes."""
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{name}: not a .npy file")
    major = data[6]
    if major == 1:
        (length,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (length,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    descr, shape = header["descr"], tuple(header["shape"])
    body = data[start + length:]
    if descr == "<f2":
        return descr, shape, struct.unpack(f"<{len(body) // 2}e", body)
    if descr not in CODES:
        sys.exit(f"{name}: dtype {descr} not handled")
    values = array.array(CODES[descr])
    values.frombytes(body[:len(body) // values.itemsize * values.itemsize])
    return descr, shape, values


def read_npz(path):
    with zipfile.ZipFile(path) as z:
        return {n: read_npy(z.read(n), f"{path}:{n}") for n in z.namelist()}


def main(argv):
    files = [a for a in argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=") for a in argv[1:] if a.startswith("--"))
    rtol, atol = float(opts.get("rtol", 1e-5)), float(opts.get("atol", 1e-6))
    a, b = read_npz(files[0]), read_npz(files[1])
    if sorted(a) != sorted(b) or not a:
        sys.exit(f"different arrays: {sorted(a)} and {sorted(b)}")
    worst = 0.0
    for name in sorted(a):
        (da, sa, xs), (db, sb, ys) = a[name], b[name]
        if da != db or sa != sb or len(xs) != len(ys):
            sys.exit(f"{name}: {da}{list(sa)} and {db}{list(sb)} differ")
        for i, (x, y) in enumerate(zip(xs, ys)):
            if x == y or (math.isnan(x) and math.isnan(y)):
                continue
            diff = abs(x - y)
            if not diff <= atol + rtol * abs(y):
                sys.exit(f"{name}[{i}]: {x} and {y} differ by {diff}")
            worst = max(worst, diff)
    print(f"{len(a)} arrays match (largest difference {worst:g})")


if __name__ == "__main__":
    main(sys.argv)
