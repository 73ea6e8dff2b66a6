"""The friendly entry points: leaky_relu, leaky_relu_backward, and the
package-wide queries and settings."""
import numpy as np

from . import _dlpack, _lrelu, _prelu, _threads

DEFAULT_ALPHA = _lrelu.default_alpha

set_threads = _threads.set_threads
get_threads = _threads.get_threads


class _TorchCall:
    """lrelu.torch.call for exact torch.Tensor x, filled in when lrelu.torch
    is imported (never imports torch itself)."""
    tensor_type = None
    function = None  # lrelu.torch.call: out= and the other keywords
    out = None  # lrelu.torch.call_out: out= alone, a float alpha
    leaky_relu = None  # lrelu.torch._eager_leaky_relu: no keywords


_torch_call = _TorchCall()
_ufunc = _lrelu.ufunc
_forward = _lrelu.forward
_prelu_forward = _lrelu.prelu_forward
_forward_torch_out = _lrelu.forward_torch_out


def cpu_targets():
    """SIMD targets compiled in that this CPU runs, best first (e.g.
    ['AVX2', 'SSE4', 'SSSE3', 'SCALAR'])."""
    return _lrelu.cpu_targets()


def _prelu_out(x, alpha, ufunc_kwargs):
    """The y a PReLU call may write for leaky_relu's ufunc_kwargs: None (a
    new array), out= when it is x's dtype and shape and is x itself or
    shares no memory with x or alpha, or False: the ufunc's path (where=,
    casting, overlap as NumPy means it)."""
    if not ufunc_kwargs:
        return None
    if len(ufunc_kwargs) != 1 or "out" not in ufunc_kwargs:
        return False
    out = ufunc_kwargs["out"]
    if type(out) is tuple and len(out) == 1:
        out = out[0]
    if (type(out) is not np.ndarray or out.dtype != x.dtype
            or out.shape != x.shape or not out.flags.writeable
            or np.may_share_memory(out, alpha)
            or (out is not x and np.may_share_memory(out, x))):
        return False
    return out


def leaky_relu(x, alpha=DEFAULT_ALPHA, *, out=None, threads=None,
               **ufunc_kwargs):
    """y = x < 0 ? alpha * x : x, bit for bit (lrelu contract v1).

    x: a NumPy array or scalar, anything with __array_ufunc__ (dask.array,
    xarray.DataArray: the result keeps their type, chunks, dims and coords),
    or a DLPack tensor such as a torch tensor (read in place, result of the
    same framework). dtypes: float16, bfloat16 (ml_dtypes, torch), float32,
    float64; y has x's dtype and shape.

    alpha: any value, default 0.01. With NumPy-protocol arrays it may be an
    array broadcasting against x (one float64 per element); with DLPack
    tensors it is one scalar.

    threads: tasks lrelu may split the call into (0 = all hardware threads,
    None = the set_threads default). Lazy arrays (dask) compute later, with
    the default.

    ufunc_kwargs: out=, where=, casting=, dtype=, ... as for any NumPy ufunc.
    DLPack tensors take out= only (a tensor of the same dtype and shape; out=x
    computes in place).
    """
    if (out is not None and type(alpha) is float and not ufunc_kwargs
            and (threads is None or (type(threads) is int
                                     and 0 <= threads <= _threads.MAX_THREADS))):
        # out= and a float alpha, with or without threads=: one library call
        # without NumPy's ufunc machinery or the checks below (most of a
        # small call's time). The same bits, since the ufunc's loop makes
        # this very call. What the library refuses, before writing anything
        # (another dtype or shape to broadcast or cast to, a read-only or
        # byte-swapped out, overlap NumPy resolves by copying), goes the
        # general way below, which words any error.
        if type(x) is np.ndarray and type(out) is np.ndarray:
            try:
                _forward(x, alpha, out, threads)
                return out
            except (TypeError, ValueError, OverflowError):
                pass
        elif threads is not None and type(x) is _torch_call.tensor_type:
            # As the call without threads= below, with threads= as the
            # per-call override the extension reads.
            previous = _lrelu.swap_thread_override(threads)
            try:
                done = _forward_torch_out(x, alpha, out)
            finally:
                _lrelu.swap_thread_override(previous)
            if done:
                return out
    if threads is None and not ufunc_kwargs:
        # The common calls, straight to the ufunc or lrelu.torch: this
        # wrapper's own cost is much of a small call's time (out= is a
        # parameter so that these calls build no keyword dict).
        if type(x) is np.ndarray and type(alpha) is not np.ndarray:
            if out is None:
                return _ufunc(x, alpha)
            return _ufunc(x, alpha, out=out)
        if (type(alpha) is np.ndarray and type(x) is np.ndarray
                and alpha.ndim > 0 and _prelu.routes(x, alpha)
                and (out is None or type(out) is np.ndarray)):
            # An array alpha that broadcasts to x: one PReLU call, without
            # the checks below (a per-channel call's wrapper cost was 5 us).
            # What the library refuses before writing anything (out of
            # another dtype or shape, read-only, overlapping x other than
            # exactly or alpha at all) goes the general way below.
            y = np.empty_like(x) if out is None else out
            try:
                _prelu_forward(x, _prelu.numpy_alpha(alpha, x), y, None)
                return y
            except (TypeError, ValueError, OverflowError):
                if out is None:
                    raise
        if type(x) is _torch_call.tensor_type and type(alpha) is float:
            if out is None:
                return _torch_call.leaky_relu(x, alpha)
            if _forward_torch_out(x, alpha, out):  # the common case in C
                return out
            return _torch_call.out(x, alpha, out)
    if out is not None:
        ufunc_kwargs["out"] = out
    if (type(alpha) is np.ndarray and alpha.ndim > 0
            and type(x) is np.ndarray and _prelu.routes(x, alpha)):
        # An array alpha that broadcasts to x: one PReLU call, blockwise,
        # instead of NumPy's inner loop per row or per element (same bits).
        out = _prelu_out(x, alpha, ufunc_kwargs)
        if out is not False:
            return _prelu.prelu(x, alpha, threads=threads, out=out)
    if threads is None:
        if type(x) is np.ndarray:
            return _lrelu.ufunc(x, alpha, **ufunc_kwargs)
        if type(x) is _torch_call.tensor_type and type(alpha) is float:
            return _torch_call.function(x, alpha, **ufunc_kwargs)
    threads = _threads.check(threads)
    if _dlpack.is_dlpack_tensor(x):
        return _dlpack.leaky_relu(x, alpha, threads, **ufunc_kwargs)
    return _threads.call_with(threads, _lrelu.ufunc, x, alpha, **ufunc_kwargs)


def leaky_relu_backward(dy, x, alpha=DEFAULT_ALPHA, *, from_output=False,
                        threads=None, out=None):
    """dx = x < 0 ? alpha * dy : dy (1 at zero), bit for bit.

    from_output=True: x is the forward output y instead (dx = y < 0 ? ...),
    which the contract allows only for alpha > 0; ValueError otherwise.
    dy and x: same dtype and shape (no broadcasting); NumPy arrays (other
    array-likes are converted with numpy.asarray) or DLPack tensors. out=:
    the dx to write (may be dy itself). Returns dx.
    """
    threads = _threads.check(threads)
    alpha = _dlpack.scalar_alpha(
        alpha, "leaky_relu_backward takes one real scalar alpha (the C ABI's "
        "gradient has no alpha array)")
    from_output = bool(from_output)
    if _dlpack.is_dlpack_tensor(dy):
        return _dlpack.leaky_relu_backward(dy, x, alpha, from_output, threads,
                                           out)
    dy = np.asarray(dy)
    x = np.asarray(x)
    if out is None:
        dx = np.empty_like(dy, dtype=dy.dtype.newbyteorder("="))
    else:
        dx = out
    _lrelu.backward(dy, x, alpha, from_output, dx, threads)
    if out is None and dx.ndim == 0:
        return dx[()]  # a NumPy scalar, as the ufunc gives for 0-d input
    return dx
