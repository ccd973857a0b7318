"""Writes OUT.npy: an [N, 13] int32 array of windows of a repeated text, one
symbol per character (below 16), for examples/train_lstm_lm.mlir.

Usage: text_windows.py OUT N
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "..", "utils"))
from importlib import import_module  # noqa: E402

write_npy = import_module("write-npy").write_npy

TEXT = "the cat sat on the mat. the dog sat on the log. "
SYMBOLS = sorted(set(TEXT))
assert len(SYMBOLS) <= 16, SYMBOLS
WIDTH = 13

out, n = sys.argv[1], int(sys.argv[2])
codes = [SYMBOLS.index(ch) for ch in TEXT * (n * 7 // len(TEXT) + 2)]
values = []
for i in range(n):
    # Windows start 7 symbols apart, so they cover every phase of the text.
    start = (i * 7) % len(TEXT)
    values.extend(codes[start:start + WIDTH])
write_npy(out, "<i4", [n, WIDTH], struct.pack("<%di" % len(values), *values))
