"""PReLU: y = x < 0 ? alpha * x : x with alpha an array broadcast to x
(contract ai.onnx.PRelu v1), and its gradient with the exactly rounded
dalpha. NumPy arrays and DLPack tensors (torch), through the C ABI."""
import numpy as np

from . import _dlpack, _lrelu, _threads

_FLOAT_KINDS = ("float16", "float32", "float64", "bfloat16")


def numpy_alpha(alpha, x):
    """alpha as an array of x's dtype (in either byte order), or float64
    (rounded to float32 once by the library for float32/float16/bfloat16
    x). Complex, object and other alphas that do not cast to float64 by
    NumPy's same_kind rule are refused, as the ufunc refuses them: never a
    silently dropped part."""
    return _alpha_array(alpha, x.dtype.name)


def tensor_alpha(alpha, x):
    """alpha for a DLPack x (torch): a DLPack tensor as given (the library
    checks its dtype), anything else as numpy_alpha makes it for x's
    dtype (torch.float32 is NumPy's float32)."""
    if _dlpack.is_dlpack_tensor(alpha):
        return alpha
    return _alpha_array(alpha, str(x.dtype).rpartition(".")[2])


def _alpha_array(alpha, x_name):
    """numpy_alpha for an x whose dtype is named x_name (a dtype's name
    leaves out its byte order)."""
    alpha = np.asarray(alpha)
    if alpha.dtype.name not in (x_name, "float64"):
        if (alpha.dtype.name != "bfloat16"
                and not np.can_cast(alpha.dtype, np.float64, "same_kind")):
            raise TypeError(
                f"lrelu.prelu: alpha of dtype {alpha.dtype} cannot be cast "
                f"to float64 (casting='same_kind')")
        alpha = alpha.astype(np.float64)
    return alpha


# dtype -> (a float kind PReLU takes, native byte order); dtype.name builds
# a string each time, which cost most of routes()'s time.
_KINDS = {}


def _kind(dtype):
    kind = _KINDS.get(dtype)
    if kind is None:
        kind = _KINDS[dtype] = (dtype.name in _FLOAT_KINDS, dtype.isnative)
    return kind


def broadcasts(a_shape, x_shape):
    """ONNX's unidirectional rule: a_shape, aligned to the right of
    x_shape, has each extent x's or 1."""
    start = len(x_shape) - len(a_shape)
    if start < 0:
        return False
    for k, a in enumerate(a_shape):
        if a != 1 and a != x_shape[start + k]:
            return False
    return True


def routes(x, alpha):
    """True when leaky_relu(x, alpha) with an array alpha can run as one
    PReLU call (same bits as the ufunc, blockwise instead of per element)."""
    x_shape = x.shape
    if not x_shape or x.size == 0:
        return False
    x_float, x_native = _kind(x.dtype)
    if not (x_float and x_native and _kind(alpha.dtype)[0]):
        return False
    return broadcasts(alpha.shape, x_shape)


def _named(t):
    """xarray-like: a DataArray (dims and sizes by name)."""
    return all(hasattr(t, a) for a in ("dims", "sizes", "transpose"))


def _dims_in_order_of(alpha, x_dims):
    """alpha's dims in the order x_dims has them."""
    return [d for d in x_dims if d in alpha.dims]


def _aligned_alpha(alpha, x):
    """A labelled alpha (xarray) for a labelled x, as the positional array
    ONNX's rule reads: its dims taken by name, in x's order from the first
    of them, 1 for x's other dims from there on. Positions alone would take
    an alpha of dims ('channel',) along x's last dim whatever its name.
    Names x lacks, and an index along a shared dim that differs from x's
    (xarray would align the labels), are refused. Other alphas as given."""
    if not (_named(alpha) and _named(x)):
        return alpha
    x_dims = tuple(x.dims)
    extra = [d for d in alpha.dims if d not in x_dims]
    if extra:
        raise ValueError(
            f"lrelu.prelu: alpha has dims {tuple(extra)} that x (dims "
            f"{x_dims}) lacks")
    for d in alpha.dims:
        if (d in alpha.indexes and d in x.indexes
                and not alpha.indexes[d].equals(x.indexes[d])):
            raise ValueError(
                f"lrelu.prelu: alpha's {d!r} coordinate differs from x's "
                f"(align them first, e.g. alpha.reindex_like(x))")
    order = _dims_in_order_of(alpha, x_dims)
    values = np.asarray(alpha.transpose(*order))
    if not order:
        return values
    first = x_dims.index(order[0])
    return values.reshape(tuple(alpha.sizes[d] if d in alpha.dims else 1
                                for d in x_dims[first:]))


def _is_lazy(x):
    """dask.array, xarray and other NumPy-protocol containers: arrays that
    are not NumPy's but take ufuncs (__array_ufunc__) and have a shape."""
    return (type(x) is not np.ndarray and not isinstance(x, np.generic)
            and getattr(type(x), "__array_ufunc__", None) is not None
            and hasattr(x, "shape") and hasattr(x, "dtype"))


def _lazy_prelu(x, alpha):
    """prelu through lrelu.ufunc, which such containers apply block by block
    (dask: lazily, the result keeps the chunks; xarray: dims and coords).
    Per element the ufunc's loop is the PReLU call's (the same bits); the
    broadcast is checked here first, as ONNX's rule is stricter than
    NumPy's (alpha never widens x)."""
    alpha = numpy_alpha(_aligned_alpha(alpha, x), x)
    if not broadcasts(alpha.shape, tuple(x.shape)):
        raise ValueError(
            f"lrelu.prelu: alpha of shape {alpha.shape} does not broadcast to "
            f"x of shape {tuple(x.shape)} (ONNX's unidirectional rule: aligned "
            f"to the right, each extent x's or 1)")
    return _lrelu.ufunc(x, alpha)


def prelu(x, alpha, *, threads=None, out=None):
    """y = x < 0 ? alpha * x : x, alpha broadcast to x (ONNX PRelu).

    x: a NumPy array (float16, bfloat16, float32, float64), a DLPack
    tensor (torch), or a lazy NumPy-protocol array (dask.array, xarray:
    computed block by block when they compute, with the default threads;
    the result keeps their type, chunks, dims and coords).
    alpha: broadcasts to x by ONNX's unidirectional rule
    (per channel: shape [C, 1, 1] for NCHW, [C] for NHWC); for an xarray
    x, an xarray alpha's dims are matched by name; x's dtype, or
    float64 (each value rounded to float32 once for 32/16-bit x, as
    leaky_relu's alpha). Anything else is converted to float64. Each element
    is leaky_relu with its own alpha, bit for bit. Inputs may be in either
    byte order; a new y is in the machine's. out=: y to write (may be x).
    Returns y.
    """
    threads = _threads.check(threads)
    if _dlpack.is_dlpack_tensor(x):
        y = out if out is not None else _empty_like_tensor(x)
        _lrelu.prelu_forward(x, tensor_alpha(alpha, x), y, threads)
        return y
    if out is None and _is_lazy(x):
        return _lazy_prelu(x, alpha)
    alpha = _aligned_alpha(alpha, x)
    x = np.asarray(x)
    alpha = numpy_alpha(alpha, x)
    y = (np.empty_like(x, dtype=x.dtype.newbyteorder("=")) if out is None
         else out)
    _lrelu.prelu_forward(x, alpha, y, threads)
    return y


def prelu_backward(dy, x, alpha, *, dx=True, dalpha=True, threads=None):
    """(dx, dalpha) of prelu: dx = x < 0 ? alpha * dy : dy, and
    dalpha = sum over the broadcast axes of (x < 0 ? x * dy : 0), the exact
    sum rounded once to alpha's dtype (the same bits on every machine, thread
    count and SIMD target; new arrays in the machine's byte order).
    dx=False / dalpha=False skip one (None is returned in its place); an
    array passed as dx= or dalpha= is written. xarray dy and x are matched
    by dim name, as is an xarray alpha (prelu's rule); a new dx is then an
    xarray like x, a new dalpha like the xarray alpha.
    """
    threads = _threads.check(threads)
    if _dlpack.is_dlpack_tensor(dy):
        alpha = tensor_alpha(alpha, x)
        dx_out = _empty_like_tensor(dy) if dx is True else _given(dx)
        if dalpha is not True:
            da_out = _given(dalpha)
        elif _dlpack.is_dlpack_tensor(alpha):
            da_out = _empty_like_tensor(alpha)
        else:  # a NumPy alpha (or a number): a NumPy dalpha like it
            da_out = np.empty_like(alpha,
                                   dtype=alpha.dtype.newbyteorder("="))
        _lrelu.prelu_backward(dy, x, alpha, dx_out, da_out, threads)
        return dx_out, da_out
    like_x = x if _named(x) else None
    named_alpha = alpha if like_x is not None and _named(alpha) else None
    if like_x is not None and _named(dy):
        if set(dy.dims) != set(x.dims):
            raise ValueError(
                f"lrelu.prelu_backward: dy has dims {tuple(dy.dims)} but x "
                f"has {tuple(x.dims)}")
        dy = dy.transpose(*x.dims)
    alpha = _aligned_alpha(alpha, x)
    dy = np.asarray(dy)
    x = np.asarray(x)
    alpha = numpy_alpha(alpha, x)
    dx_out = (np.empty_like(dy, dtype=dy.dtype.newbyteorder("="))
              if dx is True else _given(dx))
    da_out = (np.empty_like(alpha, dtype=alpha.dtype.newbyteorder("="))
              if dalpha is True else _given(dalpha))
    _lrelu.prelu_backward(dy, x, alpha, dx_out, da_out, threads)
    # Labelled in, labelled out.
    if like_x is not None and dx is True:
        dx_out = like_x.copy(data=dx_out)
    if named_alpha is not None and dalpha is True:
        order = _dims_in_order_of(named_alpha, like_x.dims)
        values = da_out.reshape([named_alpha.sizes[d] for d in order])
        values = np.transpose(values,
                              [order.index(d) for d in named_alpha.dims])
        da_out = named_alpha.copy(data=values)
    return dx_out, da_out


def _given(out):
    """An output passed to prelu_backward (dx=, dalpha=): None for False or
    None, else the array or tensor itself (never its truth value, which a
    tensor of several elements refuses)."""
    return None if out is None or out is False else out


def _empty_like_tensor(t):
    import torch  # only DLPack tensors from torch get here in practice

    if isinstance(t, torch.Tensor):
        return torch.empty_like(t, memory_format=torch.contiguous_format)
    raise TypeError(
        "lrelu.prelu: pass out= for DLPack tensors other than torch's")
