"""gplace's exceptions: TensorFlow's names (tf.errors), each also the
builtin exception a Python caller would catch.

- InvalidArgumentError: a graph gplace cannot compile or place ("Could not
  satisfy explicit device specification"), a bad option, a run-time error
  in the input's values. Also a ValueError.
- ResourceExhaustedError: the memory plan does not fit a device's limit,
  the plan needs more host memory than the process may use, or a device
  cannot provide memory. Also a MemoryError.
- UnavailableError: a device or library the program needs is missing.
- UnimplementedError: a model uses an op type, a form of one or an element
  type gplace does not have (ONNX Runtime's NOT_IMPLEMENTED). Also a
  NotImplementedError.
- FailedPreconditionError: the state a call needs is not there
  (gplace.compat.v1: a variable read before its initializer ran). Also a
  RuntimeError.
- InternalError: a library call failed unexpectedly (CUDA, cuBLAS), a bug.

The message is the compiler's diagnostics, as gplace-run prints them
(`<string>:3:8: error: ...`).
"""


class OpError(Exception):
    """The base of gplace's errors, as tf.errors.OpError."""


class InvalidArgumentError(OpError, ValueError):
    pass


class ResourceExhaustedError(OpError, MemoryError):
    pass


class UnavailableError(OpError, RuntimeError):
    pass


class InternalError(OpError, RuntimeError):
    pass


class UnimplementedError(OpError, NotImplementedError):
    pass


class FailedPreconditionError(OpError, RuntimeError):
    pass
