"""TensorFlow 1's graph API over gplace's dialect: `import gplace.compat.v1
as tf` in place of `import tensorflow as tf` (docs/python-compat.md).

The graph is built in Python with TensorFlow's op names and name scopes;
`Session.run(fetches, feed_dict)` emits the part of it the fetches need as
gplace MLIR (one function: the fed tensors are its arguments, the fetched
tensors its results), compiles it once per distinct signature (fetches,
fed tensors and their shapes) with the session's ConfigProto, and runs it on
NumPy arrays. Variables live in the session: their values move between the
compiled programs by name. Placement, its errors and the placement log
(`log_device_placement`) are gplace's.
"""

import builtins as _b
import contextlib
import os
import types
import threading

import numpy as np

import gplace
from gplace import errors as _gerrors

# ---------------------------------------------------------------------------
# Errors: gplace.errors (TensorFlow's names).

FailedPreconditionError = _gerrors.FailedPreconditionError

errors = types.SimpleNamespace(
    OpError=_gerrors.OpError,
    InvalidArgumentError=_gerrors.InvalidArgumentError,
    ResourceExhaustedError=_gerrors.ResourceExhaustedError,
    UnavailableError=_gerrors.UnavailableError,
    UnimplementedError=_gerrors.UnimplementedError,
    InternalError=_gerrors.InternalError,
    FailedPreconditionError=FailedPreconditionError)

# ---------------------------------------------------------------------------
# Data types.


class DType:
    def __init__(self, name, np_type, mlir):
        self.name = name
        self.as_numpy_dtype = np_type
        self.mlir = mlir

    @property
    def is_floating(self):
        return self.mlir in ("f16", "f32", "f64")

    @property
    def is_integer(self):
        return self.mlir in ("i32", "i64", "ui8")

    @property
    def is_bool(self):
        return self.mlir == "i1"

    @property
    def base_dtype(self):
        return self

    def __repr__(self):
        return f"tf.{self.name}"


float16 = half = DType("float16", np.float16, "f16")
float32 = DType("float32", np.float32, "f32")
float64 = double = DType("float64", np.float64, "f64")
int32 = DType("int32", np.int32, "i32")
int64 = DType("int64", np.int64, "i64")
uint8 = DType("uint8", np.uint8, "ui8")
bool = DType("bool", np.bool_, "i1")  # noqa: A001 (TensorFlow's tf.bool)
_DTYPES = [float16, float32, float64, int32, int64, uint8, bool]


def as_dtype(value):
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        for d in _DTYPES:
            if d.name == value:
                return d
    try:
        npd = np.dtype(value)
    except TypeError:
        npd = None
    if npd is not None:
        for d in _DTYPES:
            if np.dtype(d.as_numpy_dtype) == npd:
                return d
    raise TypeError(f"gplace.compat.v1 has no data type {value!r} "
                    f"(it has {', '.join(d.name for d in _DTYPES)})")


class TensorShape(tuple):
    """A static shape: a tuple of dimensions, None where unknown."""

    def as_list(self):
        return list(self)

    @property
    def ndims(self):
        return len(self)

    @property
    def rank(self):
        return len(self)

    def is_fully_defined(self):
        return all(d is not None for d in self)

    def __repr__(self):
        return "TensorShape([" + ", ".join(
            "None" if d is None else str(d) for d in self) + "])"

    def __str__(self):
        return "(" + ", ".join("?" if d is None else str(d) for d in self) + \
            ("," if len(self) == 1 else "") + ")"


# ---------------------------------------------------------------------------
# Device specifications (TensorFlow's DeviceSpec, as far as merging needs).

_DEVICE_KEYS = ("job", "replica", "task", "type", "id")


def _parse_device(spec):
    fields = {}
    for part in spec.split("/"):
        if not part:
            continue
        key, _, value = part.partition(":")
        low = key.lower()
        if low in ("job", "replica", "task"):
            fields[low] = value
        elif low == "device":
            kind, _, ident = value.partition(":")
            fields["type"] = kind.upper()
            if ident:
                fields["id"] = ident
        elif low in ("cpu", "gpu"):
            fields["type"] = low.upper()
            if value:
                fields["id"] = value
        else:
            raise ValueError(f"Unknown attribute: '{part}' in '{spec}'")
    return fields


def _format_device(fields):
    out = ""
    for key in ("job", "replica", "task"):
        if key in fields:
            out += f"/{key}:{fields[key]}"
    if "type" in fields:
        out += f"/device:{fields['type']}:{fields.get('id', '*')}"
    return out


def _merge_device(outer, current):
    """TensorFlow's MergeDevice: `outer` (a scope's spec) fills the fields
    `current` (the op's device so far) leaves unset."""
    if not current:
        return outer
    if not outer:
        return current
    merged = dict(_parse_device(outer))
    cur = _parse_device(current)
    if "type" in cur and cur.get("type") != merged.get("type"):
        merged.pop("id", None)
    merged.update(cur)
    if merged == cur:
        return current
    return _format_device(merged)


class DeviceSpec:
    def __init__(self, job=None, replica=None, task=None, device_type=None,
                 device_index=None):
        self.job, self.replica, self.task = job, replica, task
        self.device_type, self.device_index = device_type, device_index

    @classmethod
    def from_string(cls, spec):
        f = _parse_device(spec or "")
        return cls(f.get("job"), f.get("replica"), f.get("task"),
                   f.get("type"), f.get("id"))

    def to_string(self):
        f = {}
        for key, value in (("job", self.job), ("replica", self.replica),
                           ("task", self.task), ("type", self.device_type),
                           ("id", self.device_index)):
            if value is not None:
                f[key] = str(value)
        return _format_device(f)

    __str__ = to_string


# ---------------------------------------------------------------------------
# Graphs, operations, tensors.


class Tensor:
    """One output of an Operation."""

    def __init__(self, op, index, dtype, shape):
        self.op = op
        self.value_index = index
        self.dtype = dtype
        self._shape = TensorShape(shape)

    @property
    def graph(self):
        return self.op.graph

    @property
    def name(self):
        return f"{self.op.name}:{self.value_index}"

    @property
    def device(self):
        return self.op.device

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def eval(self, feed_dict=None, session=None):
        return _session_for(session).run(self, feed_dict)

    def consumers(self):
        return [op for op in self.graph._ops
                if any(t is self for t in op.inputs)]

    def __repr__(self):
        return (f"<tf.Tensor '{self.name}' shape={self._shape} "
                f"dtype={self.dtype.name}>")

    __hash__ = object.__hash__

    # Operators, with TensorFlow's default names.
    def __add__(self, other): return _binary("add", self, other, "add")
    def __radd__(self, other): return _binary("add", other, self, "add")
    def __sub__(self, other): return _binary("sub", self, other, "sub")
    def __rsub__(self, other): return _binary("sub", other, self, "sub")
    def __mul__(self, other): return _binary("mul", self, other, "mul")
    def __rmul__(self, other): return _binary("mul", other, self, "mul")
    def __truediv__(self, other): return divide(self, other)
    def __rtruediv__(self, other): return divide(other, self)
    def __matmul__(self, other): return matmul(self, other, name="matmul")
    def __rmatmul__(self, other): return matmul(other, self, name="matmul")
    def __pow__(self, other): return _binary("pow", self, other, "pow")
    def __neg__(self): return negative(self)
    def __gt__(self, other): return _binary("greater", self, other, "Greater")
    def __ge__(self, other): return _binary("greater_equal", self, other, "GreaterEqual")
    def __lt__(self, other): return _binary("greater", other, self, "Less")
    def __le__(self, other): return _binary("greater_equal", other, self, "LessEqual")

    def __getitem__(self, key):
        return _slice_item(self, key)

    def __iter__(self):
        raise TypeError("Tensor objects are only iterable when eager "
                        "execution is enabled.")

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not "
                        "allowed. Use `if t is not None:` instead.")


class Operation:
    """A node of the graph: TensorFlow's type (`type`), name, device,
    inputs and control inputs; `kind` is gplace's op."""

    def __init__(self, graph, kind, tf_type, name, inputs, attrs,
                 control_inputs):
        self.graph = graph
        self.kind = kind
        self.type = tf_type
        self.name = name
        self.inputs = list(inputs)
        self.attrs = attrs
        self.control_inputs = list(control_inputs)
        self.device = ""
        self.outputs = []
        self._id = len(graph._ops)

    @property
    def node_def(self):
        return types.SimpleNamespace(name=self.name, op=self.type,
                                     device=self.device, attr=self.attrs)

    def _set_device(self, device):
        if device is None:
            device = ""
        if isinstance(device, DeviceSpec):
            device = device.to_string()
        if not isinstance(device, str):
            raise TypeError(f"a device function returned {device!r}, not a "
                            "device string")
        self.device = device

    def run(self, feed_dict=None, session=None):
        _session_for(session).run(self, feed_dict)

    def get_attr(self, name):
        return self.attrs[name]

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


class Graph:
    """TensorFlow's Graph: ops in creation order, unique names, and the
    scopes (name, device, control dependencies) new ops take."""

    def __init__(self):
        self._ops = []
        self._names_in_use = {}
        self._by_name = {}
        self._name_stack = ""
        self._device_stack = []
        self._control_stack = []
        self._variables = []
        self._trainable = []
        self._collections = {}
        self._seed_counter = 0
        self.seed = None
        self._colocate = None

    # Names.
    def unique_name(self, name, mark_as_used=True):
        if self._name_stack:
            name = self._name_stack + "/" + name
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while key in self._names_in_use:
                key = "%s_%d" % (base, i)
                i += 1
            if mark_as_used:
                self._names_in_use[key] = 1
            name = "%s_%d" % (name, i - 1)
        return name

    @contextlib.contextmanager
    def name_scope(self, name):
        old = self._name_stack
        if not name:
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            new = self.unique_name(name)
        self._name_stack = new
        try:
            yield (new + "/") if new else ""
        finally:
            self._name_stack = old

    def get_name_scope(self):
        return self._name_stack

    # Devices.
    @contextlib.contextmanager
    def device(self, device_name_or_function):
        entry = device_name_or_function
        if isinstance(entry, DeviceSpec):
            entry = entry.to_string()
        if isinstance(entry, str):
            _parse_device(entry)  # an unknown field is an error here, as TF
        elif entry is not None and not callable(entry):
            raise TypeError("tf.device takes a device string, a DeviceSpec, "
                            f"a function or None, not {entry!r}")
        self._device_stack.append(entry)
        try:
            yield
        finally:
            self._device_stack.pop()

    @contextlib.contextmanager
    def _colocate_with(self, op):
        old = self._colocate
        self._colocate = op
        try:
            yield
        finally:
            self._colocate = old

    def _apply_devices(self, op):
        if self._colocate is not None:
            op.device = self._colocate.device
            return
        for entry in reversed(self._device_stack):
            if entry is None:
                break
            if callable(entry):
                op._set_device(entry(op))
            else:
                op.device = _merge_device(entry, op.device)

    # Control dependencies.
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        if control_inputs is None:
            old = self._control_stack
            self._control_stack = []
            try:
                yield
            finally:
                self._control_stack = old
            return
        ops = []
        for c in control_inputs:
            c = _as_op(c, self)
            if c is not None:
                ops.append(c)
        self._control_stack.append(ops)
        try:
            yield
        finally:
            self._control_stack.pop()

    def as_default(self):
        return _default_graph_scope(self)

    # Ops.
    def _create_op(self, kind, tf_type, name, inputs, outputs, attrs=None,
                   control_inputs=()):
        for t in inputs:
            if t.graph is not self:
                raise ValueError(f"Tensor {t.name} must be from the same "
                                 "graph as the op being created")
        if name.endswith("/"):
            full = name[:-1]
            self._names_in_use.setdefault(full.lower(), 1)
        else:
            full = self.unique_name(name)
        controls = list(control_inputs)
        for level in self._control_stack:
            for c in level:
                if c not in controls:
                    controls.append(c)
        op = Operation(self, kind, tf_type, full, inputs, attrs or {},
                       controls)
        op.outputs = [Tensor(op, i, d, s) for i, (d, s) in enumerate(outputs)]
        self._apply_devices(op)
        self._ops.append(op)
        self._by_name[full] = op
        return op

    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        if name not in self._by_name:
            raise KeyError(f"The name '{name}' refers to an Operation not in "
                           "the graph.")
        return self._by_name[name]

    def get_tensor_by_name(self, name):
        op_name, _, index = name.rpartition(":")
        if not op_name or not index.isdigit():
            raise ValueError(f"The name '{name}' looks like an (invalid) "
                             "Operation name, not a Tensor name.")
        op = self.get_operation_by_name(op_name)
        if int(index) >= len(op.outputs):
            raise KeyError(f"The name '{name}' refers to a Tensor which "
                           "does not exist.")
        return op.outputs[int(index)]

    def as_graph_element(self, obj):
        if isinstance(obj, str):
            return (self.get_tensor_by_name(obj) if ":" in obj
                    else self.get_operation_by_name(obj))
        return obj

    def get_collection(self, key):
        return list(self._collections.get(key, []))

    def add_to_collection(self, key, value):
        self._collections.setdefault(key, []).append(value)


_graph_state = threading.local()
_GLOBAL_GRAPH = [Graph()]


def _graph_stack():
    if not hasattr(_graph_state, "stack"):
        _graph_state.stack = []
    return _graph_state.stack


def get_default_graph():
    stack = _graph_stack()
    return stack[-1] if stack else _GLOBAL_GRAPH[0]


def reset_default_graph():
    if _graph_stack():
        raise AssertionError("Do not use tf.reset_default_graph() to clear "
                             "nested graphs.")
    _GLOBAL_GRAPH[0] = Graph()


@contextlib.contextmanager
def _default_graph_scope(graph):
    _graph_stack().append(graph)
    try:
        yield graph
    finally:
        _graph_stack().pop()


def name_scope(name, default_name=None, values=None):
    """`with tf.name_scope("tower_0") as scope:` names the ops created
    inside "tower_0/..."."""
    graph = get_default_graph()
    return graph.name_scope(name if name is not None else default_name)


def device(device_name_or_function):
    """`with tf.device("/gpu:1")`, a partial spec ("/job:ps", "/cpu:0"), a
    DeviceSpec, None (clears the outer scopes), or a function op -> device
    string called for each op created in the scope."""
    return get_default_graph().device(device_name_or_function)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def get_seed(op_seed):
    return get_default_graph().seed, op_seed


def set_random_seed(seed):
    get_default_graph().seed = int(seed)


# ---------------------------------------------------------------------------
# Shape inference, with None for dimensions not known until a feed.


def _broadcast(a, b, what):
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + a
    b = [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y} "
                             f"for '{what}'")
    return out


def _axis(axis, rank, op):
    """`axis` of a rank-`rank` operand in [0, rank); TensorFlow's error for
    one outside [-rank, rank)."""
    if not -rank <= axis < rank:
        raise ValueError(f"Expected dimension in the range [{-rank}, {rank}),"
                         f" but got {axis} for '{op.name}'")
    return axis % rank


def _reduced(shape, axes, keep_dims):
    rank = len(shape)
    axes = [a % rank if rank else a for a in axes]
    if keep_dims:
        return [1 if i in axes else d for i, d in enumerate(shape)]
    return [d for i, d in enumerate(shape) if i not in axes]


def _reshape_target(in_shape, target):
    target = list(target)
    known = None
    if all(d is not None for d in in_shape):
        known = int(np.prod(in_shape, dtype=np.int64))
    if target.count(-1) > 1:
        raise ValueError("Reshape: at most one dimension may be -1")
    if -1 in target:
        rest = int(np.prod([d for d in target if d != -1], dtype=np.int64))
        if known is None:
            target[target.index(-1)] = None
        else:
            if rest == 0 or known % rest:
                raise ValueError(f"Cannot reshape a tensor with {known} "
                                 f"elements to shape {list(target)}")
            target[target.index(-1)] = known // rest
    elif known is not None and known != int(np.prod(target, dtype=np.int64)):
        raise ValueError(f"Cannot reshape a tensor with {known} elements to "
                         f"shape {target} ({int(np.prod(target))} elements)")
    return target


def _infer(op, shapes, dtypes):
    """The outputs' (dtype, shape) of `op` from its inputs'."""
    k, a = op.kind, op.attrs
    if k in ("constant", "placeholder", "random"):
        return [(a["dtype"], list(a["shape"]))]
    if k == "variable":
        return [(a["dtype"], list(a["shape"]))]
    if k in ("read", "identity", "unary", "softmax", "log_softmax"):
        return [(dtypes[0], list(shapes[0]))]
    if k in ("assign", "assign_add", "assign_sub", "apply_gradient_descent",
             "apply_momentum", "apply_adam", "group"):
        return []
    if k == "binary":
        return [(dtypes[0], _broadcast(shapes[0], shapes[1], op.name))]
    if k == "compare":
        return [(bool, _broadcast(shapes[0], shapes[1], op.name))]
    if k == "logical_not":
        return [(bool, list(shapes[0]))]
    if k == "matmul":
        sa, sb = shapes
        if len(sa) != 2 or len(sb) != 2:
            raise ValueError(f"Shape must be rank 2 but is rank "
                             f"{len(sa) if len(sa) != 2 else len(sb)} for "
                             f"'{op.name}' (op: 'MatMul')")
        m, ka = (sa[1], sa[0]) if a.get("transpose_a") else (sa[0], sa[1])
        kb, n = (sb[1], sb[0]) if a.get("transpose_b") else (sb[0], sb[1])
        if ka is not None and kb is not None and ka != kb:
            raise ValueError(f"Dimensions must be equal, but are {ka} and "
                             f"{kb} for '{op.name}' (op: 'MatMul') with "
                             f"input shapes: {list(sa)}, {list(sb)}.")
        return [(dtypes[0], [m, n])]
    if k == "add_n":
        out = list(shapes[0])
        for s in shapes[1:]:
            if len(s) != len(out):
                raise ValueError(f"AddN: shapes differ: {shapes}")
            out = [x if x is not None else y for x, y in zip(out, s)]
        return [(dtypes[0], out)]
    if k == "bias_add":
        return [(dtypes[0], list(shapes[0]))]
    if k == "reduce":
        axes = a["axes"] if a["axes"] is not None else list(range(len(shapes[0])))
        return [(dtypes[0], _reduced(shapes[0], axes, a["keep_dims"]))]
    if k == "cast":
        return [(a["dtype"], list(shapes[0]))]
    if k == "transpose":
        perm = a["perm"] if a["perm"] is not None else \
            list(reversed(range(len(shapes[0]))))
        return [(dtypes[0], [shapes[0][p] for p in perm])]
    if k == "reshape":
        return [(dtypes[0], _reshape_target(shapes[0], a["shape"]))]
    if k == "argmax":
        ax = _axis(a["axis"], len(shapes[0]), op)
        return [(a["dtype"], [d for i, d in enumerate(shapes[0]) if i != ax])]
    if k == "xent":
        return [(dtypes[0], [shapes[0][0]]), (dtypes[0], list(shapes[0]))]
    if k == "gradients":
        ny = a["n_ys"]
        nx = a["n_xs"]
        return [(dtypes[i], list(shapes[i])) for i in range(ny, ny + nx)]
    if k == "slice":
        out = []
        for d, b, s in zip(shapes[0], a["begin"], a["size"]):
            out.append((None if d is None else d - b) if s == -1 else s)
        return [(dtypes[0], out)]
    if k == "concat":
        ax = _axis(a["axis"], len(shapes[0]), op)
        out = list(shapes[0])
        total = 0
        for s in shapes:
            total = None if total is None or s[ax] is None else total + s[ax]
        out[ax] = total
        return [(dtypes[0], out)]
    if k == "conv2d":
        (n, h, w, c), (kh, kw, ci, co) = shapes
        _, sh, sw, _ = a["strides"]
        _, dh, dw, _ = a["dilations"]
        if c is not None and ci is not None and c % ci:
            raise ValueError(f"input depth {c} is not a multiple of the "
                             f"filter's {ci}")
        return [(dtypes[0], [n, _window(h, (kh - 1) * dh + 1, sh, a["padding"]),
                             _window(w, (kw - 1) * dw + 1, sw, a["padding"]),
                             co])]
    if k in ("max_pool", "avg_pool"):
        n, h, w, c = shapes[0]
        _, kh, kw, _ = a["ksize"]
        _, sh, sw, _ = a["strides"]
        return [(dtypes[0], [n, _window(h, kh, sh, a["padding"]),
                             _window(w, kw, sw, a["padding"]), c])]
    if k == "gather":
        ax = _axis(a["axis"], len(shapes[0]), op)
        return [(dtypes[0], list(shapes[0][:ax]) + list(shapes[1]) +
                 list(shapes[0][ax + 1:]))]
    if k == "one_hot":
        return [(dtypes[1], list(shapes[0]) + [a["depth"]])]
    if k == "select":
        return [(dtypes[1], _broadcast(_broadcast(shapes[0], shapes[1],
                                                  op.name), shapes[2],
                                       op.name))]
    raise AssertionError(f"no shape rule for {k}")


def _window(size, window, stride, padding):
    if size is None:
        return None
    if padding == "SAME":
        return -(-size // stride)
    return max(-(-(size - window + 1) // stride), 0)


# ---------------------------------------------------------------------------
# Building ops.


def _as_op(x, graph=None):
    if isinstance(x, Variable):
        return x._snapshot.op
    if isinstance(x, Tensor):
        return x.op
    if isinstance(x, Operation):
        return x
    if isinstance(x, str) and graph is not None:
        return graph.get_operation_by_name(x)
    raise TypeError(f"Can not convert a {type(x).__name__} into an "
                    "Operation or Tensor.")


def _default_dtype(value):
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return as_dtype(value.dtype)
    arr = np.asarray(value)
    if arr.dtype == np.bool_:
        return bool
    if np.issubdtype(arr.dtype, np.integer) or (
            arr.dtype == object and arr.size and all(
                isinstance(v, int) for v in arr.ravel())):
        # Python ints beyond int32 make an int64 tensor, as in TensorFlow.
        values = [int(v) for v in np.asarray(value, dtype=object).ravel()]
        if all(-2**31 <= v < 2**31 for v in values):
            return int32
        return int64
    if np.issubdtype(arr.dtype, np.floating):
        return float32
    raise TypeError(f"Cannot convert {value!r} to a tensor")


def _check_python_values(value, dtype):
    """TensorFlow's refusals of Python values for an integer dtype: a float
    with a fraction ("Expected int32, got 2.7 of type 'float' instead.")
    and a value out of the type's range (NumPy 1.24 would wrap it)."""
    if not dtype.is_integer or isinstance(value, (np.ndarray, np.generic)):
        return
    info = np.iinfo(dtype.as_numpy_dtype)
    for v in np.asarray(value, dtype=object).ravel():
        if isinstance(v, float) and not float(v).is_integer():
            raise TypeError(f"Expected {dtype.name}, got {v!r} of type "
                            f"'float' instead.")
        if isinstance(v, (int, float)) and not info.min <= v <= info.max:
            raise TypeError(f"Value {v!r} is out of range for {dtype.name} "
                            f"[{info.min}, {info.max}]")


def convert_to_tensor(value, dtype=None, name=None):
    if isinstance(value, Variable):
        value = value._snapshot
    if isinstance(value, Tensor):
        if dtype is not None and as_dtype(dtype) is not value.dtype:
            raise ValueError(f"Tensor conversion requested dtype "
                             f"{as_dtype(dtype).name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value
    if isinstance(value, (list, _b.tuple)) and any(
            isinstance(v, (Tensor, Variable)) for v in value):
        raise TypeError("gplace.compat.v1 cannot pack a list of tensors "
                        "(tf.stack) yet")
    return constant(value, dtype=dtype, name=name or "Const")


def _new(kind, tf_type, name, inputs, attrs=None, control_inputs=()):
    graph = inputs[0].graph if inputs else get_default_graph()
    fake = types.SimpleNamespace(kind=kind, attrs=attrs or {}, name=name)
    outs = _infer(fake, [t.shape for t in inputs], [t.dtype for t in inputs])
    return graph._create_op(kind, tf_type, name, inputs, outs, attrs,
                            control_inputs)


def _same_dtypes(what, tensors):
    first = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype is not first:
            raise TypeError(f"Input '{t.name}' of '{what}' Op has type "
                            f"{t.dtype.name} that does not match type "
                            f"{first.name} of argument '{tensors[0].name}'.")


_BINARY = {"add": "AddV2", "sub": "Sub", "mul": "Mul", "div": "RealDiv",
           "maximum": "Maximum", "pow": "Pow", "greater": "Greater",
           "greater_equal": "GreaterEqual", "equal": "Equal",
           "logical_and": "LogicalAnd", "logical_or": "LogicalOr"}
_COMPARE = ("greater", "greater_equal", "equal", "logical_and", "logical_or")
# The element types gplace's arithmetic ops take (a uint8 add or an int
# pow is a TypeError when the op is built, not a compile error at run).
_NUMBERS = (float16, float32, float64, int32, int64)
_FLOATS = (float16, float32, float64)
_BINARY_DTYPES = {"add": _NUMBERS, "sub": _NUMBERS, "mul": _NUMBERS,
                  "div": _NUMBERS, "maximum": _NUMBERS, "pow": _FLOATS}


def _binary(op, x, y, name):
    graph = get_default_graph()
    for v in (x, y):
        if isinstance(v, (Tensor, Variable)):
            graph = (v._snapshot if isinstance(v, Variable) else v).graph
            break
    with graph.as_default(), graph.name_scope(name) as scope:
        if isinstance(x, (Tensor, Variable)):
            x = convert_to_tensor(x)
            y = _convert_like(y, x, "y")
        else:
            y = convert_to_tensor(y)
            x = _convert_like(x, y, "x")
        _same_dtypes(_BINARY[op], [x, y])
        allowed = _BINARY_DTYPES.get(op)
        if allowed and x.dtype not in allowed:
            # TensorFlow's words for a type its kernel does not take.
            raise TypeError(f"Value passed to parameter 'x' has DataType "
                            f"{x.dtype.name} not in list of allowed values: "
                            + ", ".join(d.name for d in allowed)
                            + f" (gplace's {_BINARY[op]})")
        kind = "compare" if op in _COMPARE else "binary"
        return _new(kind, _BINARY[op], scope, [x, y], {"op": op}).outputs[0]


def _convert_like(value, like, name):
    if isinstance(value, (Tensor, Variable)):
        return convert_to_tensor(value)
    return constant(value, dtype=like.dtype, name=name)


def _unary(op, tf_type, x, name):
    x = convert_to_tensor(x)
    return _new("unary", tf_type, name or tf_type, [x], {"op": op}).outputs[0]


def _encode_constant(array, dtype):
    arr = np.ascontiguousarray(array, dtype=dtype.as_numpy_dtype)
    if dtype is bool:
        if arr.size and (arr == arr.flat[0]).all():
            return "dense<" + ("true" if arr.flat[0] else "false") + ">"
        return "dense<" + _nested(arr.tolist()) + ">"
    if arr.size and (arr == arr.flat[0]).all() and arr.dtype.kind in "iu":
        return f"dense<{int(arr.flat[0])}>"
    flat = arr.reshape(-1)
    if flat.size and (flat.view(np.uint8).reshape(flat.size, -1) ==
                      flat[:1].view(np.uint8)).all():
        flat = flat[:1]  # a splat: one element's bytes
    return 'dense<"0x' + flat.astype(flat.dtype.newbyteorder("<")).tobytes() \
        .hex().upper() + '">'


def _nested(value):
    if isinstance(value, list):
        return "[" + ", ".join(_nested(v) for v in value) + "]"
    return "true" if value else "false"


# ---------------------------------------------------------------------------
# The public ops.


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """tf.constant: a value (scalar, nested lists, NumPy array); `shape`
    reshapes it or fills it with a scalar."""
    dtype = as_dtype(dtype) if dtype is not None else _default_dtype(value)
    _check_python_values(value, dtype)
    arr = np.array(value, dtype=dtype.as_numpy_dtype)
    if shape is not None:
        shape = [int(d) for d in shape]
        count = int(np.prod(shape, dtype=np.int64))
        if arr.size == count:
            arr = arr.reshape(shape)
        elif arr.size == 1:
            arr = np.full(shape, arr.reshape(-1)[0], dtype=arr.dtype)
        elif 0 < arr.size < count and not verify_shape:
            # TensorFlow 1: the last element fills the rest.
            flat = arr.reshape(-1)
            arr = np.concatenate(
                [flat, np.full(count - flat.size, flat[-1], dtype=arr.dtype)]
            ).reshape(shape)
        else:
            raise ValueError(f"Too many elements provided. Needed at most "
                             f"{count}, but received {arr.size}"
                             if arr.size > count else
                             f"Expected {count} elements for shape {shape}, "
                             f"got {arr.size}")
    return _new("constant", "Const", name, [],
                {"dtype": dtype, "shape": list(arr.shape),
                 "value": arr}).outputs[0]


def zeros(shape, dtype=float32, name="zeros"):
    return constant(0, dtype=dtype, shape=shape, name=name)


def ones(shape, dtype=float32, name="ones"):
    return constant(1, dtype=dtype, shape=shape, name=name)


def placeholder(dtype, shape=None, name="Placeholder"):
    """A graph input, fed by Session.run's feed_dict; None dimensions take
    the fed value's (each fed shape compiles once)."""
    if shape is None:
        raise NotImplementedError("gplace.compat.v1.placeholder needs a shape "
                                  "(None for a dimension only known when fed)")
    shape = [None if d is None else int(d) for d in shape]
    return _new("placeholder", "Placeholder", name, [],
                {"dtype": as_dtype(dtype), "shape": shape}).outputs[0]


def identity(x, name="Identity"):
    return _new("identity", "Identity", name, [convert_to_tensor(x)]).outputs[0]


def matmul(a, b, transpose_a=False, transpose_b=False, name="MatMul"):
    graph = get_default_graph()
    with graph.name_scope(name) as scope:
        a = convert_to_tensor(a, name="a")
        b = _convert_like(b, a, "b")
        _same_dtypes("MatMul", [a, b])
        return _new("matmul", "MatMul", scope, [a, b],
                    {"transpose_a": transpose_a,
                     "transpose_b": transpose_b}).outputs[0]


def add(x, y, name="Add"):
    return _binary("add", x, y, name)


def subtract(x, y, name="Sub"):
    return _binary("sub", x, y, name)


def multiply(x, y, name="Mul"):
    return _binary("mul", x, y, name)


def divide(x, y, name="truediv"):
    """x / y: TensorFlow 1's truediv, which divides integers as floats
    (uint8 as float32, int32 and int64 as float64)."""
    like = next((v._snapshot if isinstance(v, Variable) else v
                 for v in (x, y) if isinstance(v, (Tensor, Variable))), None)
    dtype = like.dtype if like is not None else _default_dtype(x)
    if dtype.is_integer:
        to = float32 if dtype is uint8 else float64
        with (like.graph if like is not None
              else get_default_graph()).as_default():
            x = cast(convert_to_tensor(x, dtype=dtype), to)
            y = cast(convert_to_tensor(y, dtype=dtype), to)
    return _binary("div", x, y, name)


truediv = divide
sub = subtract
mul = multiply


def maximum(x, y, name="Maximum"):
    return _binary("maximum", x, y, name)


def pow(x, y, name="Pow"):  # noqa: A001 (TensorFlow's tf.pow)
    return _binary("pow", x, y, name)


def equal(x, y, name="Equal"):
    return _binary("equal", x, y, name)


def greater(x, y, name="Greater"):
    return _binary("greater", x, y, name)


def greater_equal(x, y, name="GreaterEqual"):
    return _binary("greater_equal", x, y, name)


def logical_and(x, y, name="LogicalAnd"):
    return _binary("logical_and", x, y, name)


def logical_or(x, y, name="LogicalOr"):
    return _binary("logical_or", x, y, name)


def logical_not(x, name="LogicalNot"):
    return _new("logical_not", "LogicalNot", name,
                [convert_to_tensor(x)]).outputs[0]


def negative(x, name="Neg"):
    return _unary("neg", "Neg", x, name)


neg = negative


def exp(x, name="Exp"):
    return _unary("exp", "Exp", x, name)


def log(x, name="Log"):
    return _unary("log", "Log", x, name)


def tanh(x, name="Tanh"):
    return _unary("tanh", "Tanh", x, name)


def sigmoid(x, name="Sigmoid"):
    return _unary("sigmoid", "Sigmoid", x, name)


def sqrt(x, name="Sqrt"):
    return _unary("sqrt", "Sqrt", x, name)


def square(x, name="Square"):
    return _unary("square", "Square", x, name)


def add_n(inputs, name="AddN"):
    inputs = [convert_to_tensor(t) for t in inputs]
    if not inputs:
        raise ValueError("inputs must be a list of at least one Tensor with "
                         "the same dtype and shape")
    _same_dtypes("AddN", inputs)
    return _new("add_n", "AddN", name, inputs).outputs[0]


def _axes(axis, rank):
    if axis is None:
        return None
    if isinstance(axis, (list, _b.tuple)):
        return [int(a) for a in axis]
    return [int(axis)]


def _reduce(op, tf_type, x, axis, keepdims, name, keep_dims):
    x = convert_to_tensor(x)
    if keep_dims is not None:
        keepdims = keep_dims
    return _new("reduce", tf_type, name or tf_type, [x],
                {"op": op, "axes": _axes(axis, len(x.shape)),
                 "keep_dims": _b.bool(keepdims)}).outputs[0]


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None,
               reduction_indices=None, keep_dims=None):
    axis = axis if axis is not None else reduction_indices
    return _reduce("reduce_sum", "Sum", input_tensor, axis, keepdims, name,
                   keep_dims)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None,
                reduction_indices=None, keep_dims=None):
    axis = axis if axis is not None else reduction_indices
    return _reduce("reduce_mean", "Mean", input_tensor, axis, keepdims, name,
                   keep_dims)


def reduce_max(input_tensor, axis=None, keepdims=False, name=None,
               reduction_indices=None, keep_dims=None):
    axis = axis if axis is not None else reduction_indices
    return _reduce("reduce_max", "Max", input_tensor, axis, keepdims, name,
                   keep_dims)


def reshape(tensor, shape, name="Reshape"):
    tensor = convert_to_tensor(tensor)
    if isinstance(shape, (Tensor, Variable)):
        raise NotImplementedError("gplace.compat.v1.reshape takes the shape "
                                  "as a list of integers (-1 for one)")
    return _new("reshape", "Reshape", name, [tensor],
                {"shape": [int(d) for d in shape]}).outputs[0]


def transpose(a, perm=None, name="transpose"):
    a = convert_to_tensor(a)
    return _new("transpose", "Transpose", name, [a],
                {"perm": None if perm is None else [int(p) for p in perm]}
                ).outputs[0]


def cast(x, dtype, name="Cast"):
    x = convert_to_tensor(x)
    return _new("cast", "Cast", name, [x], {"dtype": as_dtype(dtype)}).outputs[0]


def argmax(input, axis=None, name="ArgMax", dimension=None,  # noqa: A002
           output_type=int64):
    axis = axis if axis is not None else dimension
    if axis is None:
        axis = 0
    x = convert_to_tensor(input)
    return _new("argmax", "ArgMax", name, [x],
                {"axis": int(axis), "dtype": as_dtype(output_type)}).outputs[0]


def concat(values, axis, name="concat"):
    values = [convert_to_tensor(v) for v in values]
    _same_dtypes("ConcatV2", values)
    return _new("concat", "ConcatV2", name, values,
                {"axis": int(axis)}).outputs[0]


def slice(input_, begin, size, name="Slice"):  # noqa: A001 (TensorFlow's)
    x = convert_to_tensor(input_)
    return _new("slice", "Slice", name, [x],
                {"begin": [int(b) for b in begin],
                 "size": [int(s) for s in size]}).outputs[0]


def _slice_item(x, key):
    if not isinstance(key, tuple):
        key = (key,)
    if len(key) > len(x.shape):
        raise ValueError(f"Index out of range using input dim "
                         f"{len(x.shape)}; input has only {len(x.shape)} "
                         f"dims for '{x.name}'")
    begin, size = [], []
    for i, d in enumerate(x.shape):
        k = key[i] if i < len(key) else None
        if k is None:
            begin.append(0)
            size.append(-1)
            continue
        if not isinstance(k, _b.slice) or k.step not in (None, 1):
            raise NotImplementedError("gplace.compat.v1 indexes tensors with "
                                      "slices of step 1 (x[a:b, :]) only")
        start = k.start or 0
        if k.stop is None:
            stop = None
        else:
            stop = k.stop
        if d is None and (start < 0 or (stop is not None and stop < 0)):
            raise NotImplementedError("negative slice bounds need a known "
                                      "dimension")
        if d is not None:
            start, stop, _ = k.indices(d)
        begin.append(start)
        size.append(-1 if stop is None else max(stop - start, 0))
    return slice(x, begin, size, name="strided_slice")


def group(*inputs, name="group_deps"):
    """tf.group: an op that runs once all of `inputs` (ops or tensors) have."""
    graph = get_default_graph()
    ops = []
    for i in inputs:
        if isinstance(i, (list, _b.tuple)):
            ops.extend(_as_op(j) for j in i)
        else:
            ops.append(_as_op(i))
    if ops:
        graph = ops[0].graph
    return graph._create_op("group", "NoOp", name, [], [], {}, ops)


def no_op(name="NoOp"):
    return get_default_graph()._create_op("group", "NoOp", name, [], [], {}, [])


def gather(params, indices, axis=0, name="GatherV2"):
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    if indices.dtype not in (int32, int64):
        raise TypeError("gather: indices must be int32 or int64")
    return _new("gather", "GatherV2", name, [params, indices],
                {"axis": int(axis)}).outputs[0]


def one_hot(indices, depth, on_value=None, off_value=None, axis=None,
            dtype=None, name="one_hot"):
    if axis not in (None, -1):
        raise NotImplementedError("one_hot: the new axis is the last one only")
    graph = get_default_graph()
    with graph.name_scope(name) as scope:
        indices = convert_to_tensor(indices)
        dtype = as_dtype(dtype) if dtype is not None else (
            convert_to_tensor(on_value).dtype
            if isinstance(on_value, Tensor) else float32)
        on = _convert_like(1 if on_value is None else on_value,
                           types.SimpleNamespace(dtype=dtype), "on_value")
        off = _convert_like(0 if off_value is None else off_value,
                            types.SimpleNamespace(dtype=dtype), "off_value")
        return _new("one_hot", "OneHot", scope, [indices, on, off],
                    {"depth": int(depth)}).outputs[0]


def where(condition, x=None, y=None, name="Select"):
    if x is None or y is None:
        raise NotImplementedError("tf.where(condition) (the indices of true "
                                  "elements) has no static shape")
    condition = convert_to_tensor(condition)
    x = convert_to_tensor(x)
    y = _convert_like(y, x, "y")
    _same_dtypes("SelectV2", [x, y])
    return _new("select", "SelectV2", name, [condition, x, y]).outputs[0]


where_v2 = where


# nn ---------------------------------------------------------------------


def _four(value, name):
    if isinstance(value, int):
        return [1, value, value, 1]
    value = [int(v) for v in value]
    if len(value) == 2:
        return [1, value[0], value[1], 1]
    if len(value) != 4:
        raise ValueError(f"{name} must have 1, 2 or 4 entries")
    return value


def _conv2d(input, filter=None, strides=None, padding=None,  # noqa: A002
            use_cudnn_on_gpu=True, data_format="NHWC", dilations=None,
            name="Conv2D", filters=None):
    if data_format not in (None, "NHWC"):
        raise NotImplementedError("gplace.compat.v1 convolutions are NHWC")
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID'")
    x = convert_to_tensor(input)
    w = _convert_like(filter if filter is not None else filters, x, "filter")
    if len(x.shape) != 4 or len(w.shape) != 4:
        raise ValueError("conv2d takes a 4-D input [batch, height, width, "
                         "channels] and filter [height, width, in, out]")
    return _new("conv2d", "Conv2D", name, [x, w],
                {"strides": _four(strides, "strides"), "padding": padding,
                 "dilations": _four(dilations or 1, "dilations")}).outputs[0]


def _pool(kind, tf_type):
    def pool(value, ksize, strides, padding, data_format="NHWC", name=tf_type,
             input=None):  # noqa: A002
        if data_format not in (None, "NHWC"):
            raise NotImplementedError("gplace.compat.v1 pools are NHWC")
        x = convert_to_tensor(value if value is not None else input)
        if len(x.shape) != 4:
            raise ValueError(f"{kind} takes a 4-D input")
        return _new(kind, tf_type, name, [x],
                    {"ksize": _four(ksize, "ksize"),
                     "strides": _four(strides, "strides"),
                     "padding": padding}).outputs[0]
    return pool



def _softmax(x, name="Softmax"):
    x = convert_to_tensor(x)
    return _new("softmax", "Softmax", name, [x]).outputs[0]


def _log_softmax(x, name="LogSoftmax"):
    x = convert_to_tensor(x)
    return _new("log_softmax", "LogSoftmax", name, [x]).outputs[0]


def _bias_add(value, bias, data_format=None, name="BiasAdd"):
    value = convert_to_tensor(value)
    bias = _convert_like(bias, value, "bias")
    if data_format not in (None, "NHWC", "N...C"):
        raise NotImplementedError("bias_add: NHWC only")
    if len(bias.shape) != 1:
        raise ValueError("bias must be rank 1")
    return _new("bias_add", "BiasAdd", name, [value, bias]).outputs[0]


def _sparse_xent(_sentinel=None, labels=None, logits=None, name=None):
    if _sentinel is not None:
        raise ValueError("Only call `sparse_softmax_cross_entropy_with_logits`"
                         " with named arguments (labels=..., logits=...)")
    graph = get_default_graph()
    with graph.name_scope(name or "SparseSoftmaxCrossEntropyWithLogits"):
        logits = convert_to_tensor(logits)
        labels = convert_to_tensor(labels)
        if labels.dtype not in (int32, int64):
            raise TypeError("labels must be int32 or int64")
        if len(logits.shape) != 2 or len(labels.shape) != 1:
            raise ValueError("sparse_softmax_cross_entropy_with_logits takes "
                             "logits [batch, classes] and labels [batch]")
        op = _new("xent", "SparseSoftmaxCrossEntropyWithLogits",
                  "SparseSoftmaxCrossEntropyWithLogits", [logits, labels])
        return op.outputs[0]


def _softmax_xent(_sentinel=None, labels=None, logits=None, axis=-1,
                  name=None, dim=None):
    if _sentinel is not None:
        raise ValueError("Only call `softmax_cross_entropy_with_logits` "
                         "with named arguments (labels=..., logits=...)")
    graph = get_default_graph()
    with graph.name_scope(name or "softmax_cross_entropy_with_logits"):
        logits = convert_to_tensor(logits)
        labels = _convert_like(labels, logits, "labels")
        return negative(reduce_sum(labels * _log_softmax(logits), axis=-1))


nn = types.SimpleNamespace(
    relu=lambda features, name="Relu": _unary("relu", "Relu", features, name),
    sigmoid=sigmoid, tanh=tanh,
    softmax=lambda logits, axis=None, name="Softmax": _softmax(logits, name),
    log_softmax=lambda logits, axis=None, name="LogSoftmax":
        _log_softmax(logits, name),
    bias_add=_bias_add,
    sparse_softmax_cross_entropy_with_logits=_sparse_xent,
    conv2d=_conv2d, max_pool=_pool("max_pool", "MaxPool"),
    avg_pool=_pool("avg_pool", "AvgPool"),
    embedding_lookup=lambda params, ids, name="embedding_lookup":
        gather(params, ids, name=name),
    softmax_cross_entropy_with_logits=_softmax_xent,
    softmax_cross_entropy_with_logits_v2=_softmax_xent)

# Random numbers and initializers ---------------------------------------------


def _seed_tensor(seed, graph):
    graph._seed_counter += 1
    op_seed = graph._seed_counter if seed is None else int(seed)
    global_seed = graph.seed if graph.seed is not None else 87654321
    return constant(np.array([global_seed, op_seed], np.int64), name="seed")


def _random(dist, shape, dtype, seed, name):
    graph = get_default_graph()
    tf_type = {"uniform": "StatelessRandomUniform",
               "normal": "StatelessRandomNormal",
               "truncated_normal": "StatelessTruncatedNormal"}[dist]
    s = _seed_tensor(seed, graph)
    return _new("random", tf_type, name, [s],
                {"dist": dist, "dtype": as_dtype(dtype),
                 "shape": [int(d) for d in shape]}).outputs[0]


def random_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None,
                  name="random_normal"):
    graph = get_default_graph()
    with graph.name_scope(name) as scope:
        r = _random("normal", shape, dtype, seed, "RandomStandardNormal")
        return _binary("add", _binary("mul", r, stddev, "mul"), mean, scope)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None,
                     name="truncated_normal"):
    graph = get_default_graph()
    with graph.name_scope(name) as scope:
        r = _random("truncated_normal", shape, dtype, seed, "TruncatedNormal")
        return _binary("add", _binary("mul", r, stddev, "mul"), mean, scope)


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=float32, seed=None,
                   name="random_uniform"):
    graph = get_default_graph()
    with graph.name_scope(name) as scope:
        r = _random("uniform", shape, dtype, seed, "RandomUniform")
        return _binary("add", _binary("mul", r, maxval - minval, "mul"),
                       minval, scope)


class _Initializer:
    def __init__(self, dtype=float32):
        self.dtype = as_dtype(dtype)


class zeros_initializer(_Initializer):
    def __call__(self, shape, dtype=None):
        return zeros(shape, dtype or self.dtype, name="zeros")


class ones_initializer(_Initializer):
    def __call__(self, shape, dtype=None):
        return ones(shape, dtype or self.dtype, name="ones")


class constant_initializer(_Initializer):
    def __init__(self, value=0, dtype=float32):
        super().__init__(dtype)
        self.value = value

    def __call__(self, shape, dtype=None):
        return constant(self.value, dtype=dtype or self.dtype, shape=shape)


class random_normal_initializer(_Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=float32):
        super().__init__(dtype)
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None):
        return random_normal(shape, self.mean, self.stddev,
                             dtype or self.dtype, self.seed)


class truncated_normal_initializer(random_normal_initializer):
    def __call__(self, shape, dtype=None):
        return truncated_normal(shape, self.mean, self.stddev,
                                dtype or self.dtype, self.seed)


class random_uniform_initializer(_Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype=float32):
        super().__init__(dtype)
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=None):
        return random_uniform(shape, self.minval, self.maxval,
                              dtype or self.dtype, self.seed)


class glorot_uniform_initializer(_Initializer):
    def __init__(self, seed=None, dtype=float32):
        super().__init__(dtype)
        self.seed = seed

    def __call__(self, shape, dtype=None):
        shape = [int(d) for d in shape]
        if len(shape) < 1:
            fan_in = fan_out = 1
        elif len(shape) == 1:
            fan_in = fan_out = shape[0]
        else:
            receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
            fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
        limit = float(np.sqrt(6.0 / (fan_in + fan_out)))
        return random_uniform(shape, -limit, limit, dtype or self.dtype,
                              self.seed)


initializers = types.SimpleNamespace(
    zeros=zeros_initializer, ones=ones_initializer,
    constant=constant_initializer, random_normal=random_normal_initializer,
    truncated_normal=truncated_normal_initializer,
    random_uniform=random_uniform_initializer,
    glorot_uniform=glorot_uniform_initializer)

# ---------------------------------------------------------------------------
# Variables.


class GraphKeys:
    GLOBAL_VARIABLES = "variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    GLOBAL_STEP = "global_step"
    UPDATE_OPS = "update_ops"


class Variable:
    """TensorFlow 1's tf.Variable: the variable op ("Variable"), its
    initializer ("Variable/Assign", from "Variable/initial_value") and its
    value ("Variable/read"), which a Variable stands for in ops."""

    def __init__(self, initial_value=None, trainable=True, name=None,
                 dtype=None, collections=None, validate_shape=True,
                 _absolute_name=None, _colocate_with=None):
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        graph = get_default_graph()
        if _absolute_name and _absolute_name.lower() in graph._names_in_use:
            # An op has that name already (a tf.Variable named "w" before
            # get_variable("w")): the next free one, as TensorFlow names
            # the op "w_1".
            base, i = _absolute_name, 1
            while f"{base}_{i}".lower() in graph._names_in_use:
                i += 1
            _absolute_name = f"{base}_{i}"
        scope_name = _absolute_name + "/" if _absolute_name else \
            (name or "Variable")
        colocate = graph._colocate_with(_colocate_with) \
            if _colocate_with is not None else contextlib.nullcontext()
        with graph.control_dependencies(None), colocate, \
                graph.name_scope(scope_name) as scope:
            if callable(initial_value):
                initial_value = initial_value()
            init = convert_to_tensor(initial_value, dtype=dtype,
                                     name="initial_value")
            if any(d is None for d in init.shape):
                raise ValueError("initial_value must have a shape specified: "
                                 f"{init!r}")
            self._variable = graph._create_op(
                "variable", "Variable", scope, [],
                [(init.dtype, list(init.shape))],
                {"dtype": init.dtype, "shape": list(init.shape)})
            with graph._colocate_with(self._variable):
                self._initializer_op = _new(
                    "assign", "AssignVariableOp", "Assign",
                    [self._variable.outputs[0], init], {"op": "assign"})
                with graph.name_scope(None):
                    self._snapshot = _new(
                        "read", "ReadVariableOp", scope + "read",
                        [self._variable.outputs[0]]).outputs[0]
        self._initial_value = init
        self._trainable = trainable
        graph._variables.append(self)
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        for key in collections:
            graph.add_to_collection(key, self)
        if trainable:
            graph._trainable.append(self)
            graph.add_to_collection(GraphKeys.TRAINABLE_VARIABLES, self)

    name = property(lambda self: self._variable.name + ":0")
    op = property(lambda self: self._variable)
    graph = property(lambda self: self._variable.graph)
    device = property(lambda self: self._variable.device)
    dtype = property(lambda self: self._snapshot.dtype)
    shape = property(lambda self: self._snapshot.shape)
    initializer = property(lambda self: self._initializer_op)
    initial_value = property(lambda self: self._initial_value)
    trainable = property(lambda self: self._trainable)

    def get_shape(self):
        return self.shape

    def value(self):
        return self._snapshot

    def read_value(self):
        return _new("read", "ReadVariableOp", "read",
                    [self._variable.outputs[0]]).outputs[0]

    def eval(self, session=None):
        return _session_for(session).run(self._snapshot)

    def load(self, value, session=None):
        _session_for(session)._load(self, value)

    def _update(self, kind, tf_type, value, name):
        graph = self.graph
        with graph.as_default(), graph._colocate_with(self._variable):
            value = _convert_like(value, self._snapshot, "value")
            op = _new("assign", tf_type, name,
                      [self._variable.outputs[0], value], {"op": kind})
            with graph.control_dependencies([op]):
                return _new("read", "ReadVariableOp", op.name + "/read",
                            [self._variable.outputs[0]]).outputs[0]

    def assign(self, value, use_locking=None, name="Assign", read_value=True):
        return self._update("assign", "AssignVariableOp", value, name)

    def assign_add(self, delta, use_locking=None, name="AssignAdd",
                   read_value=True):
        return self._update("assign_add", "AssignAddVariableOp", delta, name)

    def assign_sub(self, delta, use_locking=None, name="AssignSub",
                   read_value=True):
        return self._update("assign_sub", "AssignSubVariableOp", delta, name)

    def __repr__(self):
        return (f"<tf.Variable '{self.name}' shape={self.shape} "
                f"dtype={self.dtype.name}>")

    # A variable stands for its value in expressions.
    def __getattr__(self, attr):
        if attr.startswith("__") or attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self._snapshot, attr)


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
              "__rmul__", "__truediv__", "__rtruediv__", "__matmul__",
              "__rmatmul__", "__pow__", "__neg__", "__gt__", "__ge__",
              "__lt__", "__le__", "__getitem__"):
    setattr(Variable, _name,
            (lambda n: lambda self, *args: getattr(self._snapshot, n)(*args))(
                _name))


def assign(ref, value, name="Assign"):
    return ref.assign(value, name=name)


def assign_add(ref, value, name="AssignAdd"):
    return ref.assign_add(value, name=name)


def assign_sub(ref, value, name="AssignSub"):
    return ref.assign_sub(value, name=name)


class _VariableScope:
    def __init__(self, name, reuse):
        self.name = name
        self.reuse = reuse


AUTO_REUSE = "auto_reuse"


@contextlib.contextmanager
def variable_scope(name_or_scope, default_name=None, values=None,
                   reuse=None, initializer=None):
    """Prefixes get_variable's names (and opens a name scope); `reuse=True`
    or AUTO_REUSE returns existing variables."""
    graph = get_default_graph()
    stack = graph.__dict__.setdefault("_var_scopes", [])
    name = name_or_scope.name if isinstance(name_or_scope, _VariableScope) \
        else (name_or_scope or default_name)
    outer = stack[-1] if stack else _VariableScope("", None)
    full = (outer.name + "/" + name) if outer.name else name
    scope = _VariableScope(full, reuse if reuse is not None else outer.reuse)
    scope.initializer = initializer or getattr(outer, "initializer", None)
    stack.append(scope)
    try:
        with graph.name_scope(name):
            yield scope
    finally:
        stack.pop()


def get_variable_scope():
    stack = get_default_graph().__dict__.get("_var_scopes", [])
    return stack[-1] if stack else _VariableScope("", None)


def get_variable(name, shape=None, dtype=float32, initializer=None,
                 trainable=True, collections=None, **unused):
    """tf.get_variable: named by the variable scopes (not the name scopes);
    the initializer is an initializer object, a value or a tensor (glorot
    uniform by default, as TensorFlow's)."""
    graph = get_default_graph()
    scope = get_variable_scope()
    full = (scope.name + "/" + name) if scope.name else name
    existing = graph.__dict__.setdefault("_get_variables", {})
    if full in existing:
        if scope.reuse in (True, AUTO_REUSE):
            return existing[full]
        raise ValueError(f"Variable {full} already exists, disallowed. Did "
                         "you mean to set reuse=True or reuse=tf.AUTO_REUSE "
                         "in VarScope?")
    if scope.reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not "
                         "created with tf.get_variable(). Did you mean to set "
                         "reuse=tf.AUTO_REUSE in VarScope?")
    dtype = as_dtype(dtype)
    if initializer is None:
        initializer = getattr(scope, "initializer", None)
    if initializer is None:
        initializer = (glorot_uniform_initializer() if dtype.is_floating
                       else zeros_initializer())

    def init():
        with graph.name_scope("Initializer"):
            if isinstance(initializer, (Tensor, Variable)):
                return initializer
            if callable(initializer):
                if shape is None:
                    raise ValueError(f"Shape of a new variable ({full}) must "
                                     "be fully defined")
                return initializer([int(d) for d in shape], dtype)
            return constant(initializer, dtype=dtype, shape=shape)

    with graph.name_scope(None):
        v = Variable(init, trainable=trainable, dtype=None,
                     collections=collections, _absolute_name=full)
    existing[full] = v
    return v


def global_variables():
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES)


all_variables = global_variables


def trainable_variables():
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES)


def variables_initializer(var_list, name="init"):
    return group(*[v.initializer for v in var_list], name=name) if var_list \
        else no_op(name=name)


def global_variables_initializer():
    return variables_initializer(global_variables())


initialize_all_variables = global_variables_initializer


# ---------------------------------------------------------------------------
# Gradients.


def _depends(y, x_ops):
    """The ops of x_ops that y depends on through data edges that can carry
    a gradient: floating-point tensors only, as TensorFlow's gradients
    flow only through trainable dtypes (backprop_util.IsTrainable). So an x
    reached only through a comparison, argmax, a cast to an integer or an
    index gets None, as in TensorFlow (where those ops are
    NotDifferentiable or return None for such inputs)."""
    if not y.dtype.is_floating:
        return set()
    seen, found, stack = set(), set(), [y.op]
    while stack:
        op = stack.pop()
        if op._id in seen:
            continue
        seen.add(op._id)
        if op._id in x_ops:
            found.add(op._id)
        stack.extend(t.op for t in op.inputs if t.dtype.is_floating)
    return found


def gradients(ys, xs, grad_ys=None, name="gradients", **unused):
    """tf.gradients: the gradients of sum(ys) (sum(ys * grad_ys)) with
    respect to each x (a tensor or a variable: its value); None for an x
    the ys do not depend on through floating-point tensors (_depends).
    gplace's --gplace-differentiate builds them."""
    ys = [convert_to_tensor(y) for y in (ys if isinstance(ys, (list, _b.tuple)) else [ys])]
    single = not isinstance(xs, (list, _b.tuple))
    xs_in = [xs] if single else list(xs)
    # A variable's gradient is the sum over every read of it (its value,
    # read_value(), the reads after its assigns), as TensorFlow takes a
    # resource variable's gradient at its handle.
    owners = []
    xs = []
    for i, x in enumerate(xs_in):
        reads = [convert_to_tensor(x)]
        if isinstance(x, Variable):
            handle = x._variable.outputs[0]
            reads += [o.outputs[0] for o in x.graph._ops
                      if o.kind == "read" and o.inputs and
                      o.inputs[0] is handle and o.outputs[0] is not reads[0]]
        xs += reads
        owners += [i] * len(reads)
    if len(xs) > len(xs_in):
        parts = gradients(ys, xs, grad_ys, name)
        result = []
        for i in range(len(xs_in)):
            mine = [g for g, o in zip(parts, owners) if o == i and g is not None]
            result.append(None if not mine else mine[0] if len(mine) == 1
                          else add_n(mine, name=name + "/AddN"))
        return result
    for t in xs:
        if not t.dtype.is_floating:
            raise TypeError(f"gradients: {t.name} is {t.dtype.name}, not a "
                            "floating-point tensor")
    reached = set()
    ids = {}
    for i, x in enumerate(xs):
        ids.setdefault(x.op._id, []).append(i)
    for y in ys:
        reached |= _depends(y, ids)
    connected = [i for i, x in enumerate(xs)
                 if x.op._id in reached and x.op.outputs]
    result = [None] * len(xs)
    if connected:
        cx = [xs[i] for i in connected]
        inputs = ys + cx
        if grad_ys is not None:
            gys = grad_ys if isinstance(grad_ys, (list, _b.tuple)) else [grad_ys]
            inputs += [_convert_like(g, y, "grad_ys") for g, y in zip(gys, ys)]
        op = _new("gradients", "Gradients", name, inputs,
                  {"n_ys": len(ys), "n_xs": len(cx),
                   "n_gys": len(inputs) - len(ys) - len(cx)})
        for i, t in zip(connected, op.outputs):
            result[i] = t
    return result


# ---------------------------------------------------------------------------
# Training.


def get_global_step(graph=None):
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    return found[0] if found else None


def get_or_create_global_step(graph=None):
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        with graph.as_default(), graph.name_scope(None):
            step = get_variable("global_step", shape=[], dtype=int64,
                                initializer=zeros_initializer(),
                                trainable=False,
                                collections=[GraphKeys.GLOBAL_VARIABLES,
                                             GraphKeys.GLOBAL_STEP])
    return step


def create_global_step(graph=None):
    return get_or_create_global_step(graph)


class Optimizer:
    def __init__(self, name):
        self._name = name
        self._slots = {}

    def compute_gradients(self, loss, var_list=None, **unused):
        graph = convert_to_tensor(loss).graph
        if var_list is None:
            var_list = graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
        if not var_list:
            raise ValueError("No variables to optimize.")
        with graph.as_default():
            grads = gradients(loss, list(var_list))
        return list(zip(grads, var_list))

    def minimize(self, loss, global_step=None, var_list=None, name=None,
                 **unused):
        grads_and_vars = self.compute_gradients(loss, var_list)
        if all(g is None for g, _ in grads_and_vars):
            raise ValueError(
                "No gradients provided for any variable, check your graph for "
                "ops that do not support gradients, between variables " +
                str([v.name for _, v in grads_and_vars]) + " and loss " +
                str(loss) + ".")
        return self.apply_gradients(grads_and_vars, global_step, name)

    def _slot(self, var, slot_name, value=0.0):
        key = (var.op.name, slot_name)
        if key not in self._slots:
            graph = var.graph
            with graph.as_default():
                self._slots[key] = Variable(
                    lambda: constant(value, dtype=var.dtype,
                                     shape=list(var.shape),
                                     name="Initializer/zeros"),
                    trainable=False,
                    _absolute_name=var.op.name + "/" + slot_name,
                    _colocate_with=var.op)
        return self._slots[key]

    def get_slot(self, var, name):
        return self._slots.get((var.op.name, name))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable: " +
                             str([v.name for _, v in grads_and_vars]))
        graph = pairs[0][1].graph
        with graph.as_default():
            self._create_slots([v for _, v in pairs])
            with graph.name_scope(name or self._name) as scope:
                self._prepare()
                updates = []
                for g, v in pairs:
                    with graph.name_scope("update_" + v.op.name), \
                            graph._colocate_with(v.op):
                        updates.append(self._apply(g, v))
                finish = self._finish(updates, scope)
                if global_step is None:
                    return group(*finish, name=scope)
                with graph.control_dependencies(finish), \
                        graph._colocate_with(global_step.op):
                    step = global_step.assign_add(
                        np.ones((), global_step.dtype.as_numpy_dtype))
                return group(step, name=scope)

    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _finish(self, updates, scope):
        return updates

    def _scalar(self, value, name, like):
        if isinstance(value, (Tensor, Variable)):
            return cast(value, like.dtype) if convert_to_tensor(value).dtype \
                is not like.dtype else convert_to_tensor(value)
        return constant(value, dtype=like.dtype, name=name)


class GradientDescentOptimizer(Optimizer):
    """var -= learning_rate * grad (ResourceApplyGradientDescent)."""

    def __init__(self, learning_rate, use_locking=False,
                 name="GradientDescent"):
        super().__init__(name)
        self._lr = learning_rate

    def _apply(self, grad, var):
        lr = self._scalar(self._lr, "learning_rate", var)
        return _new("apply_gradient_descent", "ResourceApplyGradientDescent",
                    "ResourceApplyGradientDescent",
                    [var.op.outputs[0], lr, grad])


class MomentumOptimizer(Optimizer):
    """accum = momentum * accum + grad; var -= lr * accum (or Nesterov's),
    with the slot "<var>/Momentum" (ResourceApplyMomentum)."""

    def __init__(self, learning_rate, momentum, use_locking=False,
                 name="Momentum", use_nesterov=False):
        super().__init__(name)
        self._lr, self._momentum, self._nesterov = \
            learning_rate, momentum, use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._slot(v, self._name)

    def _apply(self, grad, var):
        accum = self._slot(var, self._name)
        lr = self._scalar(self._lr, "learning_rate", var)
        m = self._scalar(self._momentum, "momentum", var)
        return _new("apply_momentum", "ResourceApplyMomentum",
                    "ResourceApplyMomentum",
                    [var.op.outputs[0], accum.op.outputs[0], lr, grad, m],
                    {"use_nesterov": self._nesterov})


class AdamOptimizer(Optimizer):
    """TensorFlow 1's Adam: slots "<var>/Adam" and "<var>/Adam_1",
    variables beta1_power and beta2_power (colocated with the first
    variable) multiplied by beta1, beta2 after the updates
    (ResourceApplyAdam)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999,
                 epsilon=1e-08, use_locking=False, name="Adam"):
        super().__init__(name)
        self._lr, self._beta1, self._beta2, self._epsilon = \
            learning_rate, beta1, beta2, epsilon
        self._powers = None

    def _create_slots(self, var_list):
        first = min(var_list, key=lambda v: v.op.name)
        if self._powers is None:
            graph = first.graph
            with graph.name_scope(None):
                # A second Adam in the graph (a GAN's two) gets
                # beta1_power_1, as TensorFlow 1 names it.
                self._powers = tuple(
                    Variable(lambda beta=beta: constant(
                                 beta, dtype=first.dtype,
                                 name="initial_value"),
                             trainable=False, _colocate_with=first.op,
                             _absolute_name=graph.unique_name(
                                 name, mark_as_used=False))
                    for beta, name in ((self._beta1, "beta1_power"),
                                       (self._beta2, "beta2_power")))
        for v in var_list:
            self._slot(v, self._name)
            self._slot(v, self._name + "_1")

    def _apply(self, grad, var):
        m = self._slot(var, self._name)
        v = self._slot(var, self._name + "_1")
        b1p, b2p = (p._snapshot for p in self._powers)
        args = [self._scalar(self._lr, "learning_rate", var),
                self._scalar(self._beta1, "beta1", var),
                self._scalar(self._beta2, "beta2", var),
                self._scalar(self._epsilon, "epsilon", var)]
        return _new("apply_adam", "ResourceApplyAdam", "ResourceApplyAdam",
                    [var.op.outputs[0], m.op.outputs[0], v.op.outputs[0],
                     b1p, b2p] + args + [grad])

    def _finish(self, updates, scope):
        p1, p2 = self._powers
        graph = p1.graph
        with graph.control_dependencies(updates), \
                graph._colocate_with(p1.op):
            u1 = p1.assign(p1._snapshot * self._scalar(self._beta1, "beta1", p1))
            u2 = p2.assign(p2._snapshot * self._scalar(self._beta2, "beta2", p2))
        return updates + [u1.op, u2.op]


train = types.SimpleNamespace(
    Optimizer=Optimizer,
    GradientDescentOptimizer=GradientDescentOptimizer,
    MomentumOptimizer=MomentumOptimizer,
    AdamOptimizer=AdamOptimizer,
    get_global_step=get_global_step,
    get_or_create_global_step=get_or_create_global_step,
    create_global_step=create_global_step)

# ---------------------------------------------------------------------------
# Sessions.


class GPUOptions:
    """TensorFlow's GPUOptions: allow_growth, per_process_gpu_memory_fraction,
    visible_device_list (gplace's visible_gpus). A field left unset takes
    gplace's default (allow_growth on)."""

    _FIELDS = ("allow_growth", "per_process_gpu_memory_fraction",
               "visible_device_list")

    def __init__(self, **fields):
        object.__setattr__(self, "_set", {})
        for key, value in fields.items():
            setattr(self, key, value)

    def __setattr__(self, key, value):
        if key not in self._FIELDS:
            raise ValueError(f'Protocol message GPUOptions has no "{key}" '
                             "field.")
        self._set[key] = value

    def __getattr__(self, key):
        if key.startswith("_"):
            raise AttributeError(key)
        if key not in self._FIELDS:
            raise AttributeError(f"GPUOptions has no field {key!r}")
        return self._set.get(key, {"allow_growth": False,
                                   "per_process_gpu_memory_fraction": 0.0,
                                   "visible_device_list": ""}[key])

    def HasField(self, key):  # noqa: N802 (protobuf's name)
        return key in self._set


class _IgnoredMessage:
    """A TensorFlow protobuf message gplace accepts and ignores: any field
    may be set; an unset one reads as a nested message, so that
    `config.graph_options.optimizer_options.global_jit_level = ON_1` and
    `Session.run(options=RunOptions(trace_level=FULL_TRACE))` run."""

    def __init__(self, **fields):
        object.__setattr__(self, "_values", dict(fields))

    def __setattr__(self, key, value):
        self._values[key] = value

    def __getattr__(self, key):
        if key.startswith("_"):
            raise AttributeError(key)
        return self._values.setdefault(key, _IgnoredMessage())


class RunOptions(_IgnoredMessage):
    """Session.run's options: accepted, ignored (gplace-run --trace writes
    a timeline)."""
    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3


class RunMetadata(_IgnoredMessage):
    """Session.run's run_metadata: accepted, left empty."""


class OptimizerOptions(_IgnoredMessage):
    """GraphOptions.optimizer_options: accepted, ignored (GlobalJitLevel's
    values as TensorFlow's)."""
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2
    L0, L1 = -1, 0


class GraphOptions(_IgnoredMessage):
    """ConfigProto.graph_options: accepted, ignored."""


class ConfigProto:
    """TensorFlow's ConfigProto: allow_soft_placement, log_device_placement,
    gpu_options, intra_op_parallelism_threads, inter_op_parallelism_threads
    (gplace.compile's); other TensorFlow fields are
    accepted and ignored (listed in docs/python-compat.md); an unknown field
    is a ValueError, as protobuf's."""

    _USED = ("allow_soft_placement", "log_device_placement", "gpu_options",
             "intra_op_parallelism_threads", "inter_op_parallelism_threads")
    _IGNORED = ("device_count",
                "use_per_session_threads", "operation_timeout_in_ms",
                "graph_options", "isolate_session_state", "device_filters")

    def __init__(self, **fields):
        object.__setattr__(self, "_values", {
            "allow_soft_placement": False, "log_device_placement": False,
            "gpu_options": GPUOptions(), "intra_op_parallelism_threads": 0,
            "inter_op_parallelism_threads": 0})
        for key, value in fields.items():
            setattr(self, key, value)

    def __setattr__(self, key, value):
        if key not in self._USED + self._IGNORED:
            raise ValueError(f'Protocol message ConfigProto has no "{key}" '
                             "field.")
        if key == "gpu_options" and not isinstance(value, GPUOptions):
            raise TypeError("gpu_options must be a tf.GPUOptions")
        self._values[key] = value

    def __getattr__(self, key):
        if key.startswith("_"):
            raise AttributeError(key)
        if key in self._values:
            return self._values[key]
        if key == "graph_options":
            return self._values.setdefault(key, GraphOptions())
        if key in self._IGNORED:
            return None
        raise AttributeError(f"ConfigProto has no field {key!r}")


_session_state = threading.local()


def get_default_session():
    stack = getattr(_session_state, "stack", [])
    return stack[-1] if stack else None


def _session_for(session):
    session = session or get_default_session()
    if session is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default "
                         "session is registered. Use `with sess.as_default()` "
                         "or pass an explicit session to `eval(session=sess)`")
    return session


def _emulate_gpus_from_env():
    value = os.environ.get("GPLACE_EMULATE_GPUS", "")
    if not value:
        return 0
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"GPLACE_EMULATE_GPUS must be a number of GPUs, not "
                         f"{value!r}") from None


class _Compiled:
    def __init__(self, program, args, results, variables, reads, assigns,
                 mlir):
        self.program = program
        self.args = args            # fed tensors, in argument order
        self.results = results      # fetched tensors, in result order
        self.variables = variables  # variable names the program holds
        self.reads = reads          # variables whose value it uses
        self.assigns = assigns      # variables it stores (initializes)
        self.mlir = mlir


class Session:
    """TensorFlow 1's Session: `run(fetches, feed_dict)` compiles the
    subgraph a signature needs once (gplace.compile with this config) and
    runs it; variables keep their values across the session's programs.
    `emulate_gpus` (default: $GPLACE_EMULATE_GPUS, else 0) adds emulated
    GPUs to the machine's devices."""

    def __init__(self, target="", graph=None, config=None, emulate_gpus=None,
                 policy=None):
        if target:
            raise NotImplementedError("gplace.compat.v1.Session runs in this "
                                      "process only (target must be '')")
        self.graph = graph or get_default_graph()
        self._config = config or ConfigProto()
        self._emulate_gpus = _emulate_gpus_from_env() \
            if emulate_gpus is None else int(emulate_gpus)
        self._policy = policy
        self._cache = {}
        self._owner = {}         # variable name -> _Compiled or "host"
        self._host_values = {}   # variable name -> value held by the session
        self._initialized = set()
        self._closed = False
        self._default_ctx = None

    # Context management.
    def __enter__(self):
        self._default_ctx = self.as_default()
        self._default_ctx.__enter__()
        return self

    def __exit__(self, *exc):
        self._default_ctx.__exit__(*exc)
        self._default_ctx = None
        self.close()

    @contextlib.contextmanager
    def as_default(self):
        if not hasattr(_session_state, "stack"):
            _session_state.stack = []
        _session_state.stack.append(self)
        try:
            with self.graph.as_default():
                yield self
        finally:
            _session_state.stack.pop()

    def close(self):
        self._closed = True
        self._cache.clear()

    @property
    def sess_str(self):
        return ""

    # Running.
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        flat = []
        structure = self._flatten(fetches, flat)
        feeds = self._feeds(feed_dict or {})
        tensors = []
        for item in flat:
            if isinstance(item, Tensor) and item not in tensors:
                tensors.append(item)
        targets = [item for item in flat if isinstance(item, Operation)]
        values = self._run(tensors, targets, feeds)
        by_id = {id(t): v for t, v in zip(tensors, values)}
        return self._rebuild(structure, by_id)

    def _element(self, fetch):
        if isinstance(fetch, Variable):
            fetch = fetch._snapshot
        if isinstance(fetch, str):
            try:
                fetch = self.graph.as_graph_element(fetch)
            except KeyError as e:
                raise ValueError(f"Fetch argument {fetch!r} cannot be "
                                 f"interpreted as a Tensor. ({e.args[0]})") \
                    from None
        # A variable's own output by name ("v:0") is its value, as a
        # Variable is.
        if isinstance(fetch, Tensor) and fetch.op.kind == "variable":
            for v in fetch.graph._variables:
                if v._variable is fetch.op:
                    fetch = v._snapshot
                    break
        if not isinstance(fetch, (Tensor, Operation)):
            raise TypeError(f"Fetch argument {fetch!r} has invalid type "
                            f"{type(fetch).__name__}, must be a string or "
                            "Tensor. (Can not convert a "
                            f"{type(fetch).__name__} into a Tensor or "
                            "Operation.)")
        if fetch.graph is not self.graph:
            what = "Tensor" if isinstance(fetch, Tensor) else "Operation"
            raise ValueError(f"Fetch argument {fetch!r} cannot be interpreted "
                             f"as a Tensor. ({what} {fetch.name} is not an "
                             "element of this graph.)")
        return fetch

    def _flatten(self, fetches, flat):
        if isinstance(fetches, (list, _b.tuple)) and not isinstance(fetches, str):
            items = [self._flatten(f, flat) for f in fetches]
            if hasattr(fetches, "_fields"):  # a namedtuple
                return ("namedtuple", type(fetches), items)
            return ("list" if isinstance(fetches, list) else "tuple", items)
        if isinstance(fetches, dict):
            return ("dict", type(fetches),
                    [(k, self._flatten(v, flat)) for k, v in fetches.items()])
        if fetches is None:
            raise TypeError("Fetch argument None has invalid type <class "
                            "'NoneType'>")
        element = self._element(fetches)
        flat.append(element)
        return ("leaf", element)

    def _rebuild(self, structure, values):
        kind = structure[0]
        if kind == "leaf":
            element = structure[1]
            if isinstance(element, Operation):
                return None
            return values[id(element)]
        if kind == "list":
            return [self._rebuild(s, values) for s in structure[1]]
        if kind == "tuple":
            return tuple(self._rebuild(s, values) for s in structure[1])
        if kind == "namedtuple":
            return structure[1](*[self._rebuild(s, values)
                                  for s in structure[2]])
        return structure[1]((k, self._rebuild(s, values))
                            for k, s in structure[2])

    def _feeds(self, feed_dict):
        feeds = {}
        for key, value in feed_dict.items():
            tensor = key
            if isinstance(tensor, Variable):
                raise NotImplementedError("feeding a variable is not "
                                          "supported; use variable.load()")
            if isinstance(tensor, str):
                tensor = self.graph.get_tensor_by_name(tensor)
            if not isinstance(tensor, Tensor):
                raise TypeError(f"The value of a feed cannot be a "
                                f"{type(key).__name__}: feed keys are "
                                "tensors")
            if tensor.graph is not self.graph:
                raise ValueError(f"Cannot interpret feed_dict key as Tensor: "
                                 f"Tensor {tensor.name} is not an element of "
                                 "this graph.")
            if isinstance(value, (Tensor, Variable)):
                raise TypeError("The value of a feed cannot be a tf.Tensor "
                                "object. Acceptable feed values include "
                                "Python scalars, strings, lists, numpy "
                                "ndarrays, or TensorHandles.")
            try:
                array = np.asarray(value, dtype=tensor.dtype.as_numpy_dtype)
            except (TypeError, ValueError) as e:
                raise ValueError(f"Cannot feed {value!r} to Tensor "
                                 f"'{tensor.name}' of dtype "
                                 f"{tensor.dtype.name}: {e}") from None
            expected = tensor.shape
            if len(array.shape) != len(expected) or any(
                    d is not None and d != a
                    for d, a in zip(expected, array.shape)):
                raise ValueError(f"Cannot feed value of shape "
                                 f"{tuple(array.shape)} for Tensor "
                                 f"'{tensor.name}', which has shape "
                                 f"'{expected}'")
            # np.ascontiguousarray makes a 0-d array 1-d: a scalar feed
            # (a learning rate) kept its value but not its shape.
            feeds[tensor] = np.require(array, requirements="C")
        return feeds

    def _run(self, tensors, targets, feeds):
        fed = [t for t in feeds]
        fed.sort(key=lambda t: (t.op._id, t.value_index))
        key = (tuple(id(t) for t in tensors), tuple(id(o) for o in targets),
               tuple((id(t), feeds[t].shape) for t in fed))
        compiled = self._cache.get(key)
        if compiled is None:
            compiled = self._compile(tensors, targets, fed,
                                     {t: feeds[t].shape for t in fed})
            self._cache[key] = compiled
        # Values a fetch reads straight from a feed.
        fed_ids = {id(t) for t in fed}
        for name in compiled.reads:
            if name not in self._initialized and \
                    name not in compiled.assigns:
                raise FailedPreconditionError(
                    f"Attempting to use uninitialized value {name}\n"
                    f"\t [[{{{{node {name}/read}}}}]]")
        self._sync_in(compiled)
        outputs = compiled.program.run(*[feeds[t] for t in compiled.args])
        for name in compiled.variables:
            self._owner[name] = compiled
        self._initialized |= compiled.assigns
        by_tensor = dict(zip(compiled.results, outputs))
        values = []
        for t in tensors:
            if id(t) in fed_ids:
                value = feeds[t]
            else:
                value = by_tensor[t]
            if isinstance(value, np.ndarray) and value.ndim == 0:
                value = value[()]
            values.append(value)
        return values

    def _sync_in(self, compiled):
        for name in compiled.variables:
            owner = self._owner.get(name)
            if owner is compiled or owner is None:
                continue
            if owner == "host":
                value = self._host_values[name]
            else:
                value = owner.program.variables[name]
            compiled.program.variables[name] = value

    def _load(self, variable, value):
        name = variable.op.name
        self._host_values[name] = np.asarray(
            value, dtype=variable.dtype.as_numpy_dtype).reshape(
                list(variable.shape))
        self._owner[name] = "host"
        self._initialized.add(name)

    def _compile(self, tensors, targets, fed, feed_shapes):
        graph = self.graph
        fed_set = set(fed)
        needed = {}
        stack = [t.op for t in tensors if t not in fed_set] + list(targets)
        missing = []
        while stack:
            op = stack.pop()
            if op._id in needed:
                continue
            needed[op._id] = op
            if op.kind == "placeholder":
                if not any(o in fed_set for o in op.outputs):
                    missing.append(op)
            for t in op.inputs:
                if t not in fed_set:
                    stack.append(t.op)
            stack.extend(op.control_inputs)
        if missing:
            op = missing[0]
            t = op.outputs[0]
            shape = "[" + ",".join("?" if d is None else str(d)
                                   for d in t.shape) + "]"
            raise errors.InvalidArgumentError(
                f"You must feed a value for placeholder tensor '{op.name}' "
                f"with dtype {t.dtype.name} and shape {shape}")
        ops = sorted(needed.values(), key=lambda o: o._id)
        text, results, variables, reads, assigns = _emit(
            ops, tensors, fed, feed_shapes)
        options = self._config.gpu_options
        gpu_options = gplace.GPUOptions()
        if options.HasField("allow_growth"):
            gpu_options.allow_growth = _b.bool(options.allow_growth)
        if options.HasField("per_process_gpu_memory_fraction"):
            gpu_options.per_process_gpu_memory_fraction = float(
                options.per_process_gpu_memory_fraction)
        # TensorFlow: "Negative means all operations are performed in
        # caller's thread", one at a time: one slot.
        inter_op = int(self._config.inter_op_parallelism_threads or 0)
        if inter_op < 0:
            inter_op = 1
        program = gplace.compile(
            text, emulate_gpus=self._emulate_gpus,
            allow_soft_placement=_b.bool(self._config.allow_soft_placement),
            log_device_placement=_b.bool(self._config.log_device_placement),
            gpu_options=gpu_options,
            visible_gpus=str(options.visible_device_list or ""),
            intra_op_parallelism_threads=int(
                self._config.intra_op_parallelism_threads or 0),
            inter_op_parallelism_threads=inter_op,
            policy=self._policy)
        held = set(program.variables.keys())
        return _Compiled(program, list(fed), results,
                         [v for v in variables if v in held],
                         {v for v in reads}, {v for v in assigns}, text)

    def list_devices(self):
        return gplace.list_devices(emulate_gpus=self._emulate_gpus)


class InteractiveSession(Session):
    """A Session that installs itself as the default session."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._default_ctx = self.as_default()
        self._default_ctx.__enter__()

    def close(self):
        if self._default_ctx is not None:
            self._default_ctx.__exit__(None, None, None)
            self._default_ctx = None
        super().close()


# ---------------------------------------------------------------------------
# MLIR emission.


def _type(dtype, shape):
    dims = "x".join(str(d) for d in shape)
    return f"tensor<{dims}x{dtype.mlir}>" if dims else f"tensor<{dtype.mlir}>"


def _attrs(op, extra=()):
    parts = list(extra)
    if op.device:
        parts.append('device = "' + op.device.replace('"', '\\"') + '"')
    parts.append('name = "' + op.name.replace('"', '\\"') + '"')
    return "{" + ", ".join(parts) + "}"


def _emit(ops, fetches, fed, feed_shapes):
    """MLIR text of one function: the fed tensors are its arguments, the
    fetched tensors its results. Returns (text, results, variables, reads,
    assigns)."""
    names = {}     # tensor -> SSA value
    types_ = {}    # tensor -> (dtype, shape) concrete
    tokens = {}    # op id -> SSA token (ops that have one)
    lines = []
    args = []
    for i, t in enumerate(fed):
        names[t] = f"%arg{i}"
        types_[t] = (t.dtype, list(feed_shapes[t]))
        args.append(f"%arg{i}: {_type(t.dtype, feed_shapes[t])}")
    variables, reads, assigns = [], set(), set()

    def ty(t):
        d, s = types_[t]
        return _type(d, s)

    def res(t):
        d, s = types_[t]
        return f"!gplace.resource<{_type(d, s)}>"

    def tyr(t):
        return res(t) if t.op.kind == "variable" else ty(t)

    def after(op):
        deps = []
        for c in op.control_inputs:
            if c._id in tokens:
                deps.append(tokens[c._id])
            elif c.outputs and c.outputs[0] in names:
                deps.append((names[c.outputs[0]], tyr(c.outputs[0])))
        if not deps:
            return ""
        plain = [d for d in deps if isinstance(d, str)]
        values = [d for d in deps if not isinstance(d, str)]
        if values:
            g = f"%ctl{op._id}"
            lines.append(f"  {g} = gplace.group " +
                         ", ".join(v for v, _ in values) + " : " +
                         ", ".join(t for _, t in values))
            plain.append(g)
        return " after(" + ", ".join(plain) + ")"

    for op in ops:
        if op.kind == "placeholder":
            continue
        ins = op.inputs
        if op.kind != "variable" and any(t not in names for t in ins):
            raise AssertionError(f"{op.name}: an input was not emitted")
        in_types = [types_.get(t) for t in ins]
        try:
            outs = _infer(op, [s for _, s in in_types],
                          [d for d, _ in in_types])
        except ValueError as e:
            raise ValueError(f"{op.name}: {e} (with the fed shapes)") from None
        for i, (d, s) in enumerate(outs):
            if any(x is None for x in s):
                raise ValueError(f"the shape of {op.outputs[i].name} is not "
                                 "known for these feeds")
            names[op.outputs[i]] = f"%v{op._id}_{i}"
            types_[op.outputs[i]] = (d, s)
        x = [names[t] for t in ins]
        out = names[op.outputs[0]] if op.outputs else None
        aft = after(op) if op.kind != "group" else ""
        at = _attrs(op)
        k, a = op.kind, op.attrs
        if k == "constant":
            lines.append(f"  {out} = gplace.constant "
                         f"{_encode_constant(a['value'], a['dtype'])} : "
                         f"{ty(op.outputs[0])}{aft} {at}")
        elif k == "variable":
            zero = "false" if a["dtype"] is bool else (
                "0.0" if a["dtype"].is_floating else "0")
            lines.append(f"  {out} = gplace.variable dense<{zero}> : "
                         f"{ty(op.outputs[0])}{aft} {at}")
            variables.append(op.name)
        elif k == "read":
            lines.append(f"  {out} = gplace.read {x[0]}{aft} {at} : "
                         f"{res(ins[0])}")
            reads.add(ins[0].op.name)
        elif k == "assign":
            tok = f"%t{op._id}"
            tokens[op._id] = tok
            mnemonic = a["op"]
            lines.append(f"  {tok} = gplace.{mnemonic} {x[0]}, {x[1]}{aft} "
                         f"{at} : {res(ins[0])}")
            if mnemonic == "assign":
                assigns.add(ins[0].op.name)
            else:
                reads.add(ins[0].op.name)
        elif k in ("binary", "compare"):
            lines.append(f"  {out} = gplace.{a['op']} {x[0]}, {x[1]}{aft} "
                         f"{at} : ({ty(ins[0])}, {ty(ins[1])}) -> "
                         f"{ty(op.outputs[0])}")
        elif k == "unary":
            lines.append(f"  {out} = gplace.{a['op']} {x[0]}{aft} {at} : "
                         f"{ty(ins[0])}")
        elif k in ("softmax", "log_softmax", "identity", "logical_not"):
            lines.append(f"  {out} = gplace.{k} {x[0]}{aft} {at} : "
                         f"{ty(ins[0])}")
        elif k == "matmul":
            flags = (" transpose_a" if a["transpose_a"] else "") + \
                (" transpose_b" if a["transpose_b"] else "")
            lines.append(f"  {out} = gplace.matmul {x[0]}, {x[1]}{flags}{aft} "
                         f"{at} : ({ty(ins[0])}, {ty(ins[1])}) -> "
                         f"{ty(op.outputs[0])}")
        elif k == "add_n":
            lines.append(f"  {out} = gplace.add_n {', '.join(x)}{aft} {at} : "
                         + ", ".join(ty(t) for t in ins))
        elif k == "bias_add":
            lines.append(f"  {out} = gplace.bias_add {x[0]}, {x[1]}{aft} {at} "
                         f": {ty(ins[0])}, {ty(ins[1])}")
        elif k == "reduce":
            rank = len(types_[ins[0]][1])
            axes = a["axes"] if a["axes"] is not None else list(range(rank))
            keep = " keep_dims" if a["keep_dims"] else ""
            lines.append(f"  {out} = gplace.{a['op']} {x[0]} axes = "
                         f"[{', '.join(str(i) for i in axes)}]{keep}{aft} "
                         f"{at} : {ty(ins[0])} -> {ty(op.outputs[0])}")
        elif k == "cast":
            lines.append(f"  {out} = gplace.cast {x[0]}{aft} {at} : "
                         f"{ty(ins[0])} to {ty(op.outputs[0])}")
        elif k == "transpose":
            rank = len(types_[ins[0]][1])
            perm = a["perm"] if a["perm"] is not None else \
                list(reversed(range(rank)))
            lines.append(f"  {out} = gplace.transpose {x[0]} perm = "
                         f"[{', '.join(str(p) for p in perm)}]{aft} {at} : "
                         f"{ty(ins[0])} -> {ty(op.outputs[0])}")
        elif k == "reshape":
            lines.append(f"  {out} = gplace.reshape {x[0]}{aft} {at} : "
                         f"{ty(ins[0])} -> {ty(op.outputs[0])}")
        elif k == "argmax":
            lines.append(f"  {out} = gplace.argmax {x[0]} axis = "
                         f"{a['axis'] % len(types_[ins[0]][1])}{aft} {at} : "
                         f"{ty(ins[0])} -> {ty(op.outputs[0])}")
        elif k == "slice":
            lines.append(f"  {out} = gplace.slice {x[0]} begin = "
                         f"[{', '.join(map(str, a['begin']))}] size = "
                         f"[{', '.join(map(str, a['size']))}]{aft} {at} : "
                         f"{ty(ins[0])} -> {ty(op.outputs[0])}")
        elif k == "concat":
            lines.append(f"  {out} = gplace.concat {', '.join(x)} axis = "
                         f"{a['axis'] % len(types_[ins[0]][1])}{aft} {at} : "
                         + ", ".join(ty(t) for t in ins) +
                         f" -> {ty(op.outputs[0])}")
        elif k == "conv2d":
            ints = ", ".join(map(str, a["dilations"]))
            at = _attrs(op, [f"dilations = array<i64: {ints}>"])
            lines.append(f"  {out} = gplace.conv2d {x[0]}, {x[1]} strides = "
                         f"[{', '.join(map(str, a['strides']))}] padding = "
                         f"\"{a['padding']}\"{aft} {at} : {ty(ins[0])}, "
                         f"{ty(ins[1])} -> {ty(op.outputs[0])}")
        elif k in ("max_pool", "avg_pool"):
            lines.append(f"  {out} = gplace.{k} {x[0]} ksize = "
                         f"[{', '.join(map(str, a['ksize']))}] strides = "
                         f"[{', '.join(map(str, a['strides']))}] padding = "
                         f"\"{a['padding']}\"{aft} {at} : {ty(ins[0])} -> "
                         f"{ty(op.outputs[0])}")
        elif k == "gather":
            lines.append(f"  {out} = gplace.gather {x[0]}[{x[1]}] axis = "
                         f"{a['axis'] % len(types_[ins[0]][1])}{aft} {at} : "
                         f"({ty(ins[0])}, {ty(ins[1])}) -> "
                         f"{ty(op.outputs[0])}")
        elif k == "one_hot":
            lines.append(f"  {out} = gplace.one_hot {x[0]}, {x[1]}, {x[2]}"
                         f"{aft} {at} : {ty(ins[0])}, {ty(ins[1])} -> "
                         f"{ty(op.outputs[0])}")
        elif k == "select":
            lines.append(f"  {out} = gplace.select {x[0]}, {x[1]}, {x[2]}"
                         f"{aft} {at} : ({ty(ins[0])}, {ty(ins[1])}, "
                         f"{ty(ins[2])}) -> {ty(op.outputs[0])}")
        elif k == "xent":
            o1 = names[op.outputs[1]]
            lines.append(f"  {out}, {o1} = gplace."
                         f"sparse_softmax_cross_entropy_with_logits {x[0]}, "
                         f"{x[1]}{aft} {at} : {ty(ins[0])}, {ty(ins[1])}")
        elif k == "random":
            lines.append(f"  {out} = gplace.stateless_random_{a['dist']} "
                         f"{x[0]}{aft} {at} : {ty(ins[0])} -> "
                         f"{ty(op.outputs[0])}")
        elif k == "gradients":
            ny, nx = a["n_ys"], a["n_xs"]
            outs_ = ", ".join(names[t] for t in op.outputs)
            text = (f"  {outs_} = gplace.gradients {', '.join(x[:ny])} wrt "
                    f"{', '.join(x[ny:ny + nx])}")
            if a["n_gys"]:
                text += f" grad_ys {', '.join(x[ny + nx:])}"
            text += (" : " + ", ".join(ty(t) for t in ins[:ny]) + " wrt " +
                     ", ".join(ty(t) for t in ins[ny:ny + nx]))
            if a["n_gys"]:
                text += " grad_ys " + ", ".join(ty(t) for t in ins[ny + nx:])
            lines.append(text)
        elif k in ("apply_gradient_descent", "apply_momentum", "apply_adam"):
            tok = f"%t{op._id}"
            tokens[op._id] = tok
            flags = " use_nesterov" if a.get("use_nesterov") else ""
            tys = [res(t) if t.op.kind == "variable" else ty(t) for t in ins]
            lines.append(f"  {tok} = gplace.{k} {', '.join(x)}{flags}{aft} "
                         f"{at} : {', '.join(tys)}")
            for t in ins:
                if t.op.kind == "variable":
                    reads.add(t.op.name)
        elif k == "group":
            deps = []
            for c in op.control_inputs:
                if c._id in tokens:
                    deps.append((tokens[c._id], "!gplace.control"))
                elif c.outputs and c.outputs[0] in names:
                    deps.append((names[c.outputs[0]], tyr(c.outputs[0])))
            if deps:
                tok = f"%t{op._id}"
                tokens[op._id] = tok
                lines.append(f"  {tok} = gplace.group "
                             f"{', '.join(d for d, _ in deps)} {at} : "
                             f"{', '.join(t for _, t in deps)}")
        else:
            raise AssertionError(f"cannot emit {k}")

    results = [t for t in fetches if t not in set(fed)]
    ret_types = [ty(t) for t in results]
    head = f"func.func @main({', '.join(args)})"
    if results:
        head += " -> (" + ", ".join(ret_types) + ")"
    body = "\n".join(lines)
    ret = ("  return " + ", ".join(names[t] for t in results) + " : " +
           ", ".join(ret_types)) if results else "  return"
    return (head + " {\n" + body + "\n" + ret + "\n}\n", results, variables,
            reads, assigns)


__all__ = [name for name, value in list(globals().items())
           if not name.startswith("_") and
           not isinstance(value, types.ModuleType)]
