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
    torch = _torch()
    return torch is not None and isinstance(x, torch.Tensor)


_TORCH_DTYPES = None


def _check_torch_dtype(t, name):
    # Some dtypes (bool in torch 1.13) cannot even leave torch through DLPack;
    # name the dtype rather than the transport.
    global _TORCH_DTYPES
    if _TORCH_DTYPES is None:
        torch = _torch()
        _TORCH_DTYPES = frozenset((torch.float16, torch.bfloat16,
                                   torch.float32, torch.float64))
    if t.dtype not in _TORCH_DTYPES:
        raise TypeError(
            f"lrelu: {name} has dtype {t.dtype}; lrelu computes float16, "
            f"bfloat16, float32 and float64 only (contract v1)")


def _check_autograd(tensors, what):
    if _torch().is_grad_enabled() and any(
            _is_torch(t) and t.requires_grad for t in tensors):
        raise RuntimeError(
            f"lrelu.{what}(out=...) does not support automatic "
            f"differentiation; use lrelu.torch.leaky_relu or detach first")


def _detached(t):
    # torch refuses to export a tensor that requires grad through DLPack;
    # the memory is the same either way.
    return t.detach() if _is_torch(t) and t.requires_grad else t


def scalar_alpha(alpha):
    """alpha as a Python float: the C ABI takes one alpha per call."""
    try:
        return float(alpha)
    except (TypeError, ValueError):
        raise TypeError(
            "lrelu: with DLPack tensors alpha must be a real scalar; use "
            "NumPy arrays for an alpha array") from None


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


def leaky_relu(x, alpha, threads, out=None, **ufunc_kwargs):
    if ufunc_kwargs:
        raise TypeError(
            f"lrelu.leaky_relu: {', '.join(sorted(ufunc_kwargs))} work only "
            f"for NumPy arrays and __array_ufunc__ types; DLPack tensors take "
            f"out= only")
    alpha = scalar_alpha(alpha)
    if _is_torch(x):
        _check_torch_dtype(x, "x")
        if out is not None:
            _check_autograd((x, out), "leaky_relu")
        elif x.requires_grad and _torch().is_grad_enabled():
            from . import torch as lrelu_torch
            return _threads.call_with(threads, lrelu_torch.leaky_relu, x,
                                      alpha)
        x = _detached(x)
    if out is not None:
        _lrelu.forward(x, alpha, _detached(out), threads)
        return out
    return _framework_result(
        x, lambda y: _lrelu.forward(x, alpha, y, threads))


def leaky_relu_backward(dy, s, alpha, from_output, threads, out=None):
    if _is_torch(dy):
        _check_torch_dtype(dy, "dy")
        if out is not None:
            _check_autograd((dy, s, out), "leaky_relu_backward")
        dy = _detached(dy)
        s = _detached(s)
    if out is not None:
        _lrelu.backward(dy, s, alpha, from_output, _detached(out), threads)
        return out
    return _framework_result(
        dy, lambda dx: _lrelu.backward(dy, s, alpha, from_output, dx, threads))
