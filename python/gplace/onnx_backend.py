"""gplace as an ONNX backend (onnx.backend.base.Backend), so that ONNX's
own test runner, onnx.backend.test.BackendTest, drives gplace:

    import onnx.backend.test
    import gplace.onnx_backend
    tests = onnx.backend.test.BackendTest(gplace.onnx_backend, __name__)

`prepare` compiles a model as gplace-onnx-test does (the whole pipeline,
soft placement on, the model's declared input shapes; a node without a
CPU kernel for its type counts as unimplemented) and returns a
BackendRep whose `run` takes the inputs that are not initializers, in
order. A model with op types, forms or element types gplace lacks raises
unittest.SkipTest from `prepare` (or, for a model compiled at `run` for
the values of inputs a node needs at import time, from `run`), so that
the runner counts it as skipped, as gplace-onnx-test counts it
unsupported: the two pass the same tests, but for models with sequence or
optional inputs or outputs, which this backend (tensors in, tensors out)
skips and gplace-onnx-test runs (its element-per-argument form,
docs/onnx.md); docs/onnx.md counts those it passes.
"""

import unittest

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep

import gplace


class GPlaceRep(BackendRep):
    """A compiled model; or, for a model with inputs a node needs at import
    time (Resize's sizes, TopK's k), one compiled at `run` for the values
    given there (again when they change), as gplace-onnx-test does."""

    def __init__(self, program, compile_for=None, input_names=()):
        self.program = program
        self.compile_for = compile_for
        self.values = None
        self.input_names = list(input_names)

    def run(self, inputs, **kwargs):
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        elif isinstance(inputs, dict):
            # By name, as ONNX Runtime binds a dict (not by its order).
            unknown = [k for k in inputs if k not in self.input_names]
            if unknown:
                raise ValueError(f"no input named {unknown[0]!r} (the "
                                 f"inputs are {self.input_names})")
            missing = [n for n in self.input_names if n not in inputs]
            if missing:
                raise ValueError(f"missing inputs: {missing}")
            inputs = [inputs[n] for n in self.input_names]
        arrays = [np.asarray(x) for x in inputs]
        if self.compile_for is not None and (
                self.values is None or len(self.values) != len(arrays) or
                not all(np.array_equal(a, b)
                        for a, b in zip(self.values, arrays))):
            self.program = self.compile_for(arrays)
            self.values = arrays
        return tuple(self.program.run(*arrays))


class GPlaceBackend(Backend):
    """ONNX's Backend interface over gplace.compile."""

    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):
        return cls.supports_device(device)

    @classmethod
    def supports_device(cls, device):
        # The CPU, and with emulate_gpus=N (a keyword of prepare) GPUs.
        return device in ("CPU", "CUDA")

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        super().prepare(model, device, **kwargs)
        if not cls.supports_device(device):
            raise ValueError(f"device {device!r}: this backend runs on "
                             "'CPU' and 'CUDA'")
        options = {"allow_soft_placement": True, "check_cpu_kernels": True}
        if device == "CUDA" and "emulate_gpus" not in kwargs and not any(
                d.device_type == "GPU" for d in gplace.list_devices()):
            raise unittest.SkipTest("no GPU (pass emulate_gpus=N)")
        options.update(kwargs)
        if not isinstance(model, (bytes, bytearray)):
            model = model.SerializeToString()
        graph = onnx.load_from_string(bytes(model)).graph
        initializers = {t.name for t in graph.initializer}
        input_names = [v.name for v in graph.input
                       if v.name not in initializers]
        if any(v.type.HasField("sequence_type") or
               v.type.HasField("optional_type")
               for v in list(graph.input) + list(graph.output)):
            raise unittest.SkipTest(
                "sequence or optional inputs or outputs: this backend takes "
                "and gives tensors (gplace-onnx-test runs them)")
        try:
            program = gplace.compile(bytes(model), **options)
        except gplace.UnimplementedError as error:
            if "computed at run time; gplace needs" not in str(error):
                raise unittest.SkipTest(
                    str(error).splitlines()[0]) from None
            # Inputs a node needs at import time: compiled at run for the
            # values given there.
            def compile_for(arrays, model=bytes(model), options=options):
                try:
                    return gplace.compile(model, input_values=arrays,
                                          **options)
                except gplace.UnimplementedError as error:
                    raise unittest.SkipTest(
                        str(error).splitlines()[0]) from None
            return GPlaceRep(None, compile_for, input_names)
        # NumPy has no bf16: such inputs and outputs are an unsupported
        # type, as gplace-onnx-test counts them.
        if any(t.endswith("bf16")
               for t in program.input_types + program.result_types):
            raise unittest.SkipTest("a bf16 input or output: NumPy has none")
        return GPlaceRep(program, input_names=input_names)

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None,
                 **kwargs):
        raise unittest.SkipTest("gplace runs models, not single nodes")


prepare = GPlaceBackend.prepare
run_model = GPlaceBackend.run_model
run_node = GPlaceBackend.run_node
supports_device = GPlaceBackend.supports_device
is_compatible = GPlaceBackend.is_compatible
