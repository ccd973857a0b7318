"""TensorFlow's compatibility APIs over gplace: `gplace.compat.v1` is
TensorFlow 1's graph API (`import gplace.compat.v1 as tf`), as far as the
seeds' programs use it (docs/python-compat.md)."""

from . import v1

__all__ = ["v1"]
