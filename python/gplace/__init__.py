"""gplace from Python: compile, place and run graphs on NumPy arrays.

    import gplace
    print(gplace.list_devices(emulate_gpus=2))
    program = gplace.compile(MLIR_TEXT, emulate_gpus=2)
    (y,) = program.run(x)

`compile` takes what `gplace-run` takes: MLIR text, a path to an .mlir or
.onnx file, an ONNX model's bytes or an `onnx.ModelProto`; its keyword
arguments are gplace-run's flags (docs/python.md maps them). Errors are
the exceptions of gplace.errors (TensorFlow's names).
"""

import os
from collections import namedtuple
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Union

from . import errors
from .errors import (FailedPreconditionError, InternalError,
                     InvalidArgumentError, OpError, ResourceExhaustedError,
                     UnavailableError, UnimplementedError)
from . import _gplace

__all__ = ["list_devices", "compile", "Program", "GPUOptions", "Device",
           "Placement", "read_tensor_file",
           "OpError", "InvalidArgumentError", "ResourceExhaustedError",
           "UnavailableError", "UnimplementedError", "InternalError",
           "FailedPreconditionError"]


@dataclass(frozen=True)
class Device:
    """One device of this process, with the fields of TensorFlow's
    DeviceAttributes (device_lib.list_local_devices()): the full name,
    "CPU" or "GPU", the memory limit in bytes (0: none) and the physical
    description."""
    name: str
    device_type: str
    memory_limit: int
    physical_device_desc: str


class Placement(namedtuple("Placement", ["device", "reason", "rule"])):
    """Where the placer put one op and why (Program.placement): the full
    device name; a short reason ("explicit request '/gpu:0'", "default
    priority: GPU before CPU, lowest id first", "soft placement: requested
    '/gpu:2', but ..."); and the rule of the placement (docs/placement.md)
    that decided: "colocation", "request", "policy", "heuristic",
    "priority", "soft-placement", "auto" or "assigned". Prints as
    `device (reason)`."""
    __slots__ = ()

    def __str__(self):
        return f"{self.device} ({self.reason})"


@dataclass
class GPUOptions:
    """TensorFlow's GPUOptions, as far as gplace has them: allow_growth
    (--gpu-allow-growth) and per_process_gpu_memory_fraction
    (--gpu-memory-fraction, 0 for none)."""
    allow_growth: bool = True
    per_process_gpu_memory_fraction: float = 0.0


def _memory_options(gpu_memory_limit, options):
    """(gpu_memory_limit, per_process_gpu_memory_fraction) checked, with
    the keywords' names in the errors (ValueError), not gplace-run's
    flags'."""
    limit = int(gpu_memory_limit)
    if not 0 <= limit <= ((1 << 63) - 1) >> 20:
        raise ValueError(f"gpu_memory_limit must be from 0 to "
                         f"{((1 << 63) - 1) >> 20} MiB, not {limit}")
    fraction = float(options.per_process_gpu_memory_fraction)
    if not 0.0 <= fraction <= 1.0:  # NaN fails too
        raise ValueError(f"per_process_gpu_memory_fraction must be in "
                         f"(0, 1], or 0 for none, not {fraction}")
    return limit, fraction


def list_devices(*, emulate_gpus: int = 0, visible_gpus: str = "",
                 gpu_memory_limit: int = 0,
                 gpu_options: Optional[GPUOptions] = None):
    """The devices a program compiled with the same arguments runs on: the
    CPU, the CUDA GPUs (CUDA_VISIBLE_DEVICES, or `visible_gpus` in
    gplace-run's --visible-gpus forms) and `emulate_gpus` emulated GPUs.
    `gpu_memory_limit` is in MiB. Returns a list of Device."""
    options = gpu_options or GPUOptions()
    limit, fraction = _memory_options(gpu_memory_limit, options)
    return [Device(**d) for d in _gplace.list_devices(
        int(emulate_gpus), str(visible_gpus), limit, fraction)]


def _fspath(path):
    """os.fspath(path), refusing an embedded NUL as Python's open() does (a
    C++ path would end there: 'a\0b.npz' wrote 'a')."""
    path = os.fspath(path)
    if ("\0" if isinstance(path, str) else b"\0") in path:
        raise ValueError("embedded null byte")
    return path


def read_tensor_file(path):
    """An IDX file (plain or gzip-compressed, as Fashion-MNIST's) or a .npy
    file as a NumPy array: what gplace-run's --input=@FILE reads. Raises
    InvalidArgumentError naming the file for one that is not such a
    file."""
    return _gplace.read_tensor_file(_fspath(path))


def _source(source):
    """(kind, bytes, path) of compile()'s source."""
    if hasattr(source, "SerializeToString") and hasattr(source, "graph"):
        return "onnx", source.SerializeToString(), "<onnx.ModelProto>"
    if isinstance(source, (bytes, bytearray, memoryview)):
        return "onnx", bytes(source), "<bytes>"
    if isinstance(source, os.PathLike) or (
            isinstance(source, str) and "\n" not in source and
            source.strip().lower().endswith((".mlir", ".onnx"))):
        path = os.fspath(source)
        with open(path, "rb") as f:
            data = f.read()
        kind = "onnx" if path.lower().endswith(".onnx") else "mlir"
        return kind, data, path
    if isinstance(source, str):
        return "mlir", source.encode(), "<string>"
    raise TypeError("gplace.compile takes MLIR text, a path, ONNX bytes or "
                    f"an onnx.ModelProto, not {type(source).__name__}")


class Variables:
    """A program's variables by name, as NumPy arrays: `v["w"]` reads a
    copy, `v["w"] = array` writes every replica's copy (same dtype and
    shape). Between runs only."""

    def __init__(self, program):
        self._program = program

    def keys(self):
        names = []
        for name in self._program.variable_names():
            if name not in names:
                names.append(name)
        return names

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def __contains__(self, name):
        return name in self.keys()

    def __getitem__(self, name):
        return self._program.read_variable(name)

    def __setitem__(self, name, value):
        self._program.write_variable(name, value)

    def items(self):
        return [(name, self[name]) for name in self.keys()]

    def __repr__(self):
        return f"<gplace.Variables {self.keys()}>"


class Program:
    """A compiled graph, loaded on its devices. `run(*arrays)` runs it
    once and returns its results as a list of NumPy arrays (the GIL
    released while it runs; on the CPU and emulated GPUs the kernels read
    the arrays in place, without a copy); `placement` maps each op the
    placer placed to a Placement (device, reason, rule); `memory_plan` maps
    each device to its planned arena, persistent and peak bytes and the
    liveness lower bound of the peak; `variables` reads and writes the variables;
    `save(path)` and `restore(path)` write and read .npz checkpoints, the
    same files as gplace-run's --save and --restore."""

    def __init__(self, native):
        self._native = native
        self.variables = Variables(native)

    def run(self, *arrays, **named):
        """Runs the program once on its inputs: positional arrays in order,
        then inputs by name (an ONNX graph input's name, or an MLIR
        argument's `gplace.name` attribute). Returns the results as a list
        of NumPy arrays."""
        if named:
            names = self._native.input_names
            feeds = list(arrays) + [None] * (len(names) - len(arrays))
            for name, value in named.items():
                if name not in names:
                    raise ValueError(f"no input named '{name}' (the inputs "
                                     f"are {[n for n in names if n]})")
                index = names.index(name)
                if feeds[index] is not None:
                    raise ValueError(f"input '{name}' is given twice")
                feeds[index] = value
            missing = [names[i] or f"#{i}" for i, f in enumerate(feeds)
                       if f is None]
            if missing:
                raise ValueError(f"missing inputs: {missing}")
            arrays = feeds
        return self._native.run(*arrays)

    __call__ = run

    @property
    def input_types(self):
        """Each input's type, as gplace prints it ("2x3xf32")."""
        return self._native.input_types

    @property
    def input_names(self):
        """Each input's name ("" where it has none)."""
        return self._native.input_names

    @property
    def result_types(self):
        return self._native.result_types

    @property
    def placement(self):
        """{op name: Placement(device, reason, rule)} for every op
        --gplace-place placed, in the placement log's order and with its
        names (the ops of the entry function; copies the compiler inserts
        after placement are not ops it placed, and are left out, as
        TensorFlow's log leaves out _Send and _Recv)."""
        return {name: Placement(device, reason, rule)
                for name, device, rule, reason in self._native.placement_list}

    @property
    def memory_plan(self):
        """{device name: {"arena_bytes", "persistent_bytes", "peak_bytes",
        "liveness_bound_bytes"}}: gplan.device's arena_bytes,
        persistent_bytes and peak_bytes (their sum), and the liveness lower
        bound of the peak that --gplace-print-memory-plan prints (the
        persistent bytes plus the most arena bytes live at one step; never
        above peak_bytes)."""
        return {name: {"arena_bytes": arena, "persistent_bytes": persistent,
                       "peak_bytes": arena + persistent,
                       "liveness_bound_bytes": bound}
                for name, arena, persistent, bound
                in self._native.memory_list}

    def train(self, dataset, *, epochs: int = 1, shuffle=None,
              callback=None, initial_epoch: int = 0):
        """Runs the program once per mini-batch of `dataset`, `epochs`
        times, as gplace-run's --epochs: `dataset` is a sequence of arrays,
        one per input, whose leading dimension is the samples (the
        program's inputs take mini-batches of their own leading size;
        the samples that do not fill a last batch are left out, as
        gplace-run leaves them). `shuffle` is a seed: each epoch visits the
        samples in a new order drawn from it (NumPy's default_rng(seed +
        epoch)); None keeps their order. After each epoch, `callback(epoch,
        logs)` gets Keras's logs: the mean of each result over the epoch's
        steps ("result[0]"), "steps", "seconds". Returns the list of the
        epochs' logs (Keras's History.history, per epoch). Raises ValueError
        for a dataset that does not match the inputs."""
        import time
        import numpy as np
        arrays = [np.asarray(a) for a in dataset]
        types = self.input_types
        if len(arrays) != len(types):
            raise ValueError(f"the program takes {len(types)} input(s), "
                             f"the dataset has {len(arrays)} array(s)")
        samples = {a.shape[0] if a.ndim else 0 for a in arrays}
        if len(samples) != 1:
            raise ValueError("the dataset's arrays have different numbers "
                             f"of samples: {sorted(samples)}")
        samples = samples.pop()
        batch = int(types[0].split("x")[0]) if "x" in types[0] else 0
        if batch <= 0 or samples < batch:
            raise ValueError(f"{samples} samples do not fill one batch of "
                             f"the input's {types[0]}")
        steps = samples // batch
        history = []
        for epoch in range(initial_epoch, epochs):
            order = (np.random.default_rng(shuffle + epoch).permutation(samples)
                     if shuffle is not None else None)
            start = time.perf_counter()
            sums = None
            for step in range(steps):
                if order is None:
                    feeds = [a[step * batch:(step + 1) * batch] for a in arrays]
                else:
                    index = order[step * batch:(step + 1) * batch]
                    feeds = [a[index] for a in arrays]
                results = self._native.run(*feeds)
                values = [float(np.mean(r)) for r in results]
                sums = values if sums is None else \
                    [s + v for s, v in zip(sums, values)]
            logs = {f"result[{i}]": s / steps
                    for i, s in enumerate(sums or [])}
            logs["steps"] = steps
            logs["seconds"] = time.perf_counter() - start
            history.append(logs)
            if callback is not None:
                callback(epoch, logs)
        return history

    def save(self, path):
        self._native.save(_fspath(path))

    def restore(self, path):
        self._native.restore(_fspath(path))


def compile(source, *, entry: str = "main", emulate_gpus: int = 0,
            allow_soft_placement: bool = False,
            policy: Union[None, str, Callable] = None,
            log_device_placement: bool = False,
            gpu_options: Optional[GPUOptions] = None,
            gpu_memory_limit: int = 0, visible_gpus: str = "",
            dims: Sequence[str] = (), input_shapes=None,
            initializers_as_variables: bool = False,
            intra_op_parallelism_threads: int = 0,
            inter_op_parallelism_threads: int = 0,
            check_cpu_kernels: bool = False,
            init: Optional[str] = None,
            input_values=None) -> Program:
    """Compiles `source` for this process's devices with gplace-run's
    pipeline and loads it. `policy` is a built-in policy's name
    ("default-gpu", "variables-on-cpu", ...) or a callable taking a
    gplace.PolicyOp (name, type, device, dtype, shape, ...) and returning a
    device string or None, called at compile time (TensorFlow's device
    functions). `dims` and `input_shapes` bind an ONNX model's symbolic
    dimensions (gplace-run's --dim; the shapes of the inputs it will be
    given). With `check_cpu_kernels`, an ONNX node that becomes an op
    without a CPU kernel for its type is refused as unimplemented, as
    gplace-onnx-test counts it. `input_values` (one array or None per
    input of an ONNX model) gives the values of the inputs a node needs at
    import time (Resize's sizes, TopK's k): the program is specialized for
    them, as gplace-onnx-test does. `intra_op_parallelism_threads` and
    `inter_op_parallelism_threads` are gplace-run's flags of the same names
    (TensorFlow's ConfigProto fields). Raises UnimplementedError for an ONNX
    model with op types, forms or element types gplace lacks,
    InvalidArgumentError (the diagnostics' text) for a graph
    that does not compile, ResourceExhaustedError for one that does not fit
    the devices' memory. `init` names a function of the same source run
    once first (gplace-run's --init): the program's variables start from
    the values it leaves in the variables of the same names."""
    kind, data, path = _source(source)
    options = gpu_options or GPUOptions()
    policy_name = ""
    callable_policy = None
    if isinstance(policy, str):
        policy_name = policy
    elif policy is not None:
        if not callable(policy):
            raise TypeError("policy must be a policy's name or a callable")
        callable_policy = policy
    shapes = [None if s is None else [int(d) for d in s]
              for s in (input_shapes or [])]
    for i, shape in enumerate(shapes):
        if shape is not None and any(d < 0 for d in shape):
            raise ValueError(f"input_shapes[{i}] has a negative dimension: "
                             f"{tuple(shape)}")
    limit, fraction = _memory_options(gpu_memory_limit, options)
    native = _gplace.compile(
        kind, data, path, entry, int(emulate_gpus), str(visible_gpus),
        limit, fraction,
        bool(options.allow_growth), bool(allow_soft_placement),
        bool(log_device_placement), policy_name, callable_policy,
        [str(d) for d in dims], shapes, bool(initializers_as_variables),
        int(intra_op_parallelism_threads), int(inter_op_parallelism_threads),
        bool(check_cpu_kernels),
        [None if v is None else __import__("numpy").asarray(v)
         for v in (input_values or [])])
    program = Program(native)
    if init is not None:
        first = compile(source, entry=init, emulate_gpus=emulate_gpus,
                        allow_soft_placement=True, gpu_options=gpu_options,
                        gpu_memory_limit=gpu_memory_limit,
                        visible_gpus=visible_gpus,
                        intra_op_parallelism_threads=intra_op_parallelism_threads,
                        inter_op_parallelism_threads=inter_op_parallelism_threads)
        if first.input_types:
            raise ValueError(f"the init function @{init} takes inputs")
        first.run()
        names = set(program.variables.keys())
        for name in first.variables.keys():
            if name in names:
                program.variables[name] = first.variables[name]
    return program


PolicyOp = _gplace.PolicyOp
