"""leaky_relu and its gradient for DLPack tensors that are not NumPy arrays.

The extension imports the tensors through DLPack without copying. The
result is allocated by the tensor's own framework: torch.empty_like for torch
(so torch in gives torch out, same device, dtype and, for dense tensors,
strides); for other producers with an array-API namespace (JAX, CuPy on the
CPU) lrelu computes into a NumPy array and hands it back through the
namespace's from_dlpack, since such arrays may be immutable.
"""
import sys

import numpy as np

from . import _lrelu, _threads


def is_dlpack_tensor(x):
    """A DLPack producer that NumPy's ufunc machinery does not handle."""
    return (not isinstance(x, np.ndarray) and hasattr(x, "__dlpack__")
            and getattr(type(x), "__array_ufunc__", None) is None)


def _torch():
    """The torch module if something imported it (a torch tensor implies
    it); never imports torch itself."""
    return sys.modules.get("torch")


def _is_torch(x):
    """A torch tensor, or a torch.fx Proxy standing for one while
    torch.fx.symbolic_trace runs (it answers every attribute, __dlpack__
    included, and must reach the torch operator)."""
    torch = _torch()
    if torch is None:
        return False
    fx = getattr(torch, "fx", None)
    return isinstance(x, torch.Tensor) or (
        fx is not None and isinstance(x, fx.Proxy))


def scalar_alpha(alpha, why="with DLPack tensors alpha must be one real "
                 "scalar; use NumPy arrays for an alpha array"):
    """alpha as a Python float: the C ABI takes one alpha per call."""
    if getattr(alpha, "ndim", 0) != 0:
        raise TypeError(f"lrelu: {why}; got alpha of shape "
                        f"{tuple(alpha.shape)}")
    try:
        return float(alpha)
    except (TypeError, ValueError):
        raise TypeError(f"lrelu: {why}; got {type(alpha).__name__}") from None


def _namespace(x):
    namespace = getattr(x, "__array_namespace__", None)
    if namespace is None:
        raise TypeError(
            f"lrelu: cannot allocate a result for a {type(x).__name__}: it "
            f"has no __array_namespace__; pass out=")
    return namespace()


def _framework_result(x, compute):
    """Allocates like x in x's framework, runs compute(y), returns y."""
    if _is_torch(x):
        y = _torch().empty_like(x)
        compute(y)
        return y
    namespace = _namespace(x)
    y = np.empty_like(np.from_dlpack(x))
    compute(y)
    return namespace.from_dlpack(y)


def _lrelu_torch():
    from . import torch as lrelu_torch  # torch is imported already
    return lrelu_torch


def leaky_relu(x, alpha, threads, out=None, **ufunc_kwargs):
    if ufunc_kwargs:
        raise TypeError(
            f"lrelu.leaky_relu: {', '.join(sorted(ufunc_kwargs))} work only "
            f"for NumPy arrays and __array_ufunc__ types; DLPack tensors take "
            f"out= only")
    alpha = scalar_alpha(alpha)
    if _is_torch(x):
        # Through lrelu.torch: autograd, tracing, lazy negation, version
        # counters, and no DLPack import on the way.
        return _threads.call_with(threads, _lrelu_torch().call, x, alpha, out)
    if out is not None:
        _lrelu.forward(x, alpha, out, threads)
        return out
    return _framework_result(
        x, lambda y: _lrelu.forward(x, alpha, y, threads))


def leaky_relu_backward(dy, s, alpha, from_output, threads, out=None):
    if _is_torch(dy):
        return _threads.call_with(threads, _lrelu_torch().call_backward, dy,
                                  s, alpha, from_output, out)
    if out is not None:
        _lrelu.backward(dy, s, alpha, from_output, out, threads)
        return out
    return _framework_result(
        dy, lambda dx: _lrelu.backward(dy, s, alpha, from_output, dx, threads))
