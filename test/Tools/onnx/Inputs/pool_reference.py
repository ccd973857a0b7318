#!/usr/bin/env python3
"""ONNX's 3-D MaxPool and AveragePool on gplace-onnx-gen's pool3d model,
computed directly from the operators' definitions (each output element the
maximum or average of its window's elements inside the input), with no
decomposition: the reference pool3d.test compares gplace against.

Usage: pool_reference.py DIR
Writes DIR/input.npy (x[1,2,5,6,7], float32) and DIR/NAME.npy for each of
the model's outputs. The attributes repeat buildPool3d's
(tools/gplace-onnx-gen). AveragePool's divisor with count_include_pad = 1
is the window clipped to the padded input (ONNX Runtime's, the same as
the whole window where no ceil_mode window runs past the pads).
"""
import itertools
import math
import os
import struct
import sys

SHAPE = (1, 2, 5, 6, 7)

# name: (max?, kernel, strides, dilations, pads, ceil_mode, count_include_pad,
#        auto_pad)
POOLS = {
    "max_pads": (True, (3, 2, 3), (2, 1, 2), (1, 1, 1), (1, 0, 1, 1, 1, 0),
                 0, 0, "NOTSET"),
    "max_dilated_ceil": (True, (2, 2, 2), (2, 1, 3), (2, 2, 1),
                         (1, 0, 0, 0, 1, 1), 1, 0, "NOTSET"),
    "avg_ceil": (False, (3, 3, 2), (2, 2, 2), (1, 1, 1), (1, 1, 0, 0, 0, 0),
                 1, 0, "NOTSET"),
    "avg_count_pads": (False, (2, 3, 3), (1, 2, 2), (1, 1, 1),
                       (1, 1, 1, 0, 1, 1), 0, 1, "NOTSET"),
    "avg_same": (False, (2, 2, 2), (2, 2, 2), (1, 1, 1), (0,) * 6, 0, 0,
                 "SAME_UPPER"),
    "max_flat": (True, (1, 2, 2), (1, 2, 2), (1, 1, 1), (0,) * 6, 0, 0,
                 "NOTSET"),
}


def write_npy(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (
        repr(tuple(shape)))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack(f"<{len(values)}f", *values))


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def pool(x, is_max, kernel, strides, dilations, pads, ceil_mode, count_pads,
         auto_pad):
    spatial = SHAPE[2:]
    begins, ends = list(pads[:3]), list(pads[3:])
    out = []
    for i in range(3):
        extent = dilations[i] * (kernel[i] - 1) + 1
        if auto_pad == "SAME_UPPER":
            out.append(-(-spatial[i] // strides[i]))
            total = max(0, (out[i] - 1) * strides[i] + extent - spatial[i])
            begins[i], ends[i] = total // 2, total - total // 2
        else:
            span = (spatial[i] + begins[i] + ends[i] - extent) / strides[i]
            out.append((math.ceil(span) if ceil_mode else math.floor(span)) + 1)
    result = []
    for n, c in itertools.product(range(SHAPE[0]), range(SHAPE[1])):
        for o in itertools.product(*(range(s) for s in out)):
            taps, padded = [], 1
            axes = []
            for i in range(3):
                positions = [o[i] * strides[i] - begins[i] + k * dilations[i]
                             for k in range(kernel[i])]
                axes.append([p for p in positions if 0 <= p < spatial[i]])
                padded *= sum(-begins[i] <= p < spatial[i] + ends[i]
                              for p in positions)
            for d, h, w in itertools.product(*axes):
                taps.append(x[(((n * SHAPE[1] + c) * SHAPE[2] + d) * SHAPE[3]
                               + h) * SHAPE[4] + w])
            if is_max:
                result.append(max(taps))
            else:
                result.append(sum(taps) / (padded if count_pads else len(taps)))
    return (SHAPE[0], SHAPE[1], *out), result


def main():
    folder = sys.argv[1]
    count = math.prod(SHAPE)
    # Distinct values of both signs (a pad read as 0 would win a maximum).
    x = [f32(((i * 37) % 101 - 60) / 8.0) for i in range(count)]
    write_npy(os.path.join(folder, "input.npy"), SHAPE, x)
    for name, attributes in POOLS.items():
        shape, values = pool(x, *attributes)
        write_npy(os.path.join(folder, name + ".npy"), shape, values)


if __name__ == "__main__":
    main()
