"""lrelu: LeakyReLU, ``y = x < 0 ? alpha * x : x``, bit for bit.

Every backend of lrelu obeys the same contract (version ``contract_version``):
anything not strictly negative (+0, -0, +inf, every NaN) passes through with
identical bits; float16, bfloat16 and float32 compute in float32 with alpha
rounded to float32 once and one rounding to the storage type; float64
computes in double; no flush-to-zero.

Entry points:

* ``leaky_relu(x, alpha=0.01, *, threads=None, **ufunc_kwargs)``: NumPy
  arrays and anything with ``__array_ufunc__`` (dask, xarray) go through the
  ufunc; other DLPack tensors (torch) are read without copying and the
  result is a tensor of the same framework.
* ``leaky_relu_backward(dy, x, alpha=0.01, *, from_output=False, ...)``.
* ``prelu(x, alpha)`` and ``prelu_backward(dy, x, alpha)``: alpha an array
  broadcast to x (ONNX PRelu), with the exactly rounded dalpha.
* ``ufunc``: the NumPy ufunc ``leaky_relu(x, alpha) -> y``.
* ``lrelu.torch``: torch operators, an autograd Function and an
  ``nn.Module``; imported on first use of the attribute (``import lrelu``
  alone never imports torch).

docs/python.md in the repository has the details.
"""
from . import _lrelu
from ._api import (
    DEFAULT_ALPHA,
    cpu_targets,
    get_threads,
    leaky_relu,
    leaky_relu_backward,
    set_threads,
)
from ._prelu import prelu, prelu_backward

ufunc = _lrelu.ufunc
__version__ = _lrelu.version()
contract_version = _lrelu.contract_version()

__all__ = [
    "DEFAULT_ALPHA",
    "__version__",
    "contract_version",
    "cpu_targets",
    "get_threads",
    "leaky_relu",
    "leaky_relu_backward",
    "prelu",
    "prelu_backward",
    "set_threads",
    "ufunc",
]


def __getattr__(name):
    # lrelu.torch on first use: torch is heavy, and optional.
    if name == "torch":
        import importlib
        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module 'lrelu' has no attribute {name!r}")
