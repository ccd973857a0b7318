#!/usr/bin/python3
"""Writes the seed inputs of gplace-fuzz-checkpoint and gplace-fuzz-idx.

  fuzz/make-seeds.py CHECKPOINT_DIR IDX_DIR [ONNX_DIR]

Checkpoints: NumPy's np.savez and np.savez_compressed of the variables
fuzz/CheckpointFuzzer.cpp's executor has (every element type a checkpoint
holds), and variants it refuses (a wrong type, a missing entry, Fortran
order, big-endian data). IDX: the first items of Fashion-MNIST's files
(/usr/share/datasets/fashion-mnist), plain and gzip, and small files of
every type code, one gzip file of two members and one with zero padding.
ONNX (with the onnx package): a model whose initializer has external data
in weights.bin, the file fuzz/OnnxFuzzer.cpp puts next to each input.
The seeds are then minimized into fuzz/corpus/ with libFuzzer's -merge=1
(docs/development.md, "Fuzzing"). Deterministic: the same bytes each run.
"""

import gzip
import io
import os
import struct
import sys

import numpy as np


def variables():
    return {
        "dense/kernel": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
        "dense/bias": np.array([0.5, -1.0, 2.0], dtype=np.float32),
        "step": np.array(42, dtype=np.int64),
        "count": np.array([1, -2, 3, 2**31 - 1], dtype=np.int32),
        "scale": np.array([[1.5], [-0.25]], dtype=np.float64),
        "half": np.array([1.0, -2.5], dtype=np.float16),
        "mask": np.array([True, False, True]),
        "pixels": np.array([[0, 255], [17, 128]], dtype=np.uint8),
        "empty": np.zeros((0, 2), dtype=np.float32),
    }


def npz(arrays, compressed=False):
    out = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(out, **arrays)
    return out.getvalue()


def checkpoints(directory):
    v = variables()
    seeds = {
        "savez.npz": npz(v),
        "savez-compressed.npz": npz(v, compressed=True),
    }
    wrong = dict(v, count=v["count"].astype(np.int64))
    seeds["wrong-type.npz"] = npz(wrong)
    missing = dict(v)
    del missing["pixels"]
    seeds["missing-entry.npz"] = npz(missing)
    fortran = dict(v, **{"dense/kernel": np.asfortranarray(v["dense/kernel"])})
    seeds["fortran-order.npz"] = npz(fortran)
    big = dict(v, **{"dense/bias": v["dense/bias"].astype(">f4"),
                     "scale": v["scale"].astype(">f8")})
    seeds["big-endian.npz"] = npz(big, compressed=True)
    extra = dict(v, unused=np.ones((2, 2), dtype=np.float32))
    seeds["extra-entry.npz"] = npz(extra)
    write(directory, seeds)


def idx(code, shape, data):
    return struct.pack(">BBBB", 0, 0, code, len(shape)) + \
        struct.pack(">%dI" % len(shape), *shape) + data


def gz(data):
    return gzip.compress(data, mtime=0)


def idxs(directory):
    fashion = "/usr/share/datasets/fashion-mnist"
    with gzip.open(os.path.join(fashion, "t10k-images-idx3-ubyte.gz")) as f:
        images = f.read(16 + 2 * 28 * 28)
    with gzip.open(os.path.join(fashion, "t10k-labels-idx1-ubyte.gz")) as f:
        labels = f.read(8 + 10)
    images = images[:4] + struct.pack(">I", 2) + images[8:]
    labels = labels[:4] + struct.pack(">I", 10) + labels[8:]
    seeds = {
        "images-idx3-ubyte": images,
        "images-idx3-ubyte.gz": gz(images),
        "labels-idx1-ubyte": labels,
        "labels-idx1-ubyte.gz": gz(labels),
        "short-idx2": idx(0x0B, [2, 3], struct.pack(">6h", 1, -2, 3, -4, 5, 32767)),
        "int-idx1": idx(0x0C, [3], struct.pack(">3i", -1, 0, 2**31 - 1)),
        "float-idx2.gz": gz(idx(0x0D, [2, 2], struct.pack(">4f", 0.5, -1, 3, 1e30))),
        "double-idx1": idx(0x0E, [2], struct.pack(">2d", 0.1, -2.5)),
        "signed-idx1": idx(0x09, [2], b"\x01\xff"),
        "empty-idx2": idx(0x08, [0, 5], b""),
        "two-members-idx1.gz": gz(labels[:12]) + gz(labels[12:]),
        "padded-idx1.gz": gz(labels) + b"\0" * 8,
        "truncated-idx3.gz": gz(images)[:200],
    }
    write(directory, seeds)


def onnx_external(directory):
    import onnx
    from onnx import TensorProto, helper
    weight = TensorProto()
    weight.name = "w"
    weight.data_type = TensorProto.FLOAT
    weight.dims.extend([2, 2])
    weight.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "weights.bin"), ("offset", "16"),
                       ("length", "16")):
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])], "external",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])],
        initializer=[weight])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    write(directory, {"external-data.onnx": model.SerializeToString()})


def write(directory, seeds):
    os.makedirs(directory, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    checkpoints(sys.argv[1])
    idxs(sys.argv[2])
    if len(sys.argv) > 3:
        onnx_external(sys.argv[3])
