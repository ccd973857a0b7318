#!/usr/bin/env python3
"""Writes a NumPy .npy file without NumPy, for tests of gplace-run's reader
and for the benchmarks' inputs (bench/peers.py imports write_npy).

Usage: write-npy.py OUT DESCR SHAPE VALUES [--version=N] [--fortran]
                    [--header-shape=SHAPE] [--extra=TEXT]
  DESCR   a NumPy dtype string such as '<f4', '<i8', '|b1', '>f4'
  SHAPE   comma-separated dimensions ('' for a scalar)
  VALUES  comma-separated numbers, packed with the dtype's struct format
  --header-shape  the shape the header claims, if not SHAPE (malformed files)
  --header-descr  the dtype the header's 'descr' claims, if not DESCR
  --extra         text added at the end of the header's dict, as
                  "'descr': '<f4', " (a repeated key: NumPy keeps the last)
"""
import struct
import sys

FORMATS = {"f2": "e", "f4": "f", "f8": "d", "i4": "i", "i8": "q", "b1": "?",
           "u1": "B", "u2": "H", "i1": "b", "i2": "h", "u4": "I"}


def write_npy(out, descr, shape, data, version=1, fortran=False, extra=""):
    """Writes `data` (bytes, already packed as `descr`) with `shape`, and
    `extra` at the end of the header's dict."""
    shape_repr = "(" + "".join(f"{d}," if len(shape) == 1 else f"{d}, "
                               for d in shape).rstrip(", ")
    shape_repr += ",)" if len(shape) == 1 else ")"
    header = ("{'descr': '%s', 'fortran_order': %s, 'shape': %s, %s}"
              % (descr, "True" if fortran else "False", shape_repr, extra))
    prefix = 10 if version == 1 else 12
    header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([version, 0]))
        f.write(struct.pack("<H" if version == 1 else "<I", len(header)))
        f.write(header.encode("latin1"))
        f.write(data)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    version, header_shape, header_descr, extra = 1, None, None, ""
    for a in argv[1:]:
        if a.startswith("--version="):
            version = int(a.split("=")[1])
        elif a.startswith("--header-shape="):
            header_shape = a.split("=", 1)[1]
        elif a.startswith("--header-descr="):
            header_descr = a.split("=", 1)[1]
        elif a.startswith("--extra="):
            extra = a.split("=", 1)[1]
    fortran = "--fortran" in argv
    out, descr, shape_text, values_text = args
    shape = tuple(int(d) for d in shape_text.split(",") if d)
    order = ">" if descr[0] == ">" else "<"
    fmt = FORMATS[descr[1:]]
    values = [v for v in values_text.split(",") if v]
    cast = float if fmt in "efd" else int
    data = struct.pack(order + fmt * len(values), *[cast(v) for v in values])
    if header_shape is not None:
        shape = tuple(int(d) for d in header_shape.split(",") if d)
    write_npy(out, header_descr or descr, shape, data, version, fortran,
              extra)


if __name__ == "__main__":
    main(sys.argv)
