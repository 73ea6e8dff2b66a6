"""lrelu for JAX: LeakyReLU and PReLU as XLA custom calls (the XLA FFI), bit
for bit.

``leaky_relu(x, alpha=0.01)`` computes ``y = x < 0 ? alpha * x : x`` under
lrelu's contract v1 -- the same bits as every other lrelu backend, including
for subnormals, which XLA's own CPU code flushes to zero -- and works under
``jax.jit``, ``jax.vmap`` (any batch axes), ``jax.grad``/``jax.vjp``,
``jax.jvp``/``jax.jacfwd`` and their compositions (``jax.hessian``). The
gradient ``dx = x < 0 ? alpha * dy : dy`` is ``leaky_relu_backward(dy, x,
alpha)``, also a custom call; it is linear in ``dy``, which is all that
forward mode, reverse mode and higher orders need.

Element types: float32, float16, bfloat16 (computed in float32, alpha
rounded to float32 once) and float64 (``jax_enable_x64``). Others are
refused while tracing. ``alpha`` is a Python or NumPy real scalar, fixed at
trace time (a traced alpha is refused).

CPU: the handlers split large arrays over XLA's intra-op thread pool (not
lrelu's own pool, so a jitted program never runs two pools at once). CUDA:
when lrelu was built with its CUDA backend, the same calls run on the GPU,
on XLA's stream.

``prelu(x, alpha)`` is PReLU with alpha an array that broadcasts to x (a
learned slope may be traced); ``prelu_backward(dy, x, alpha)`` returns dx
and the correctly rounded dalpha. CPU only (docs/jax.md).

Importing this module registers the handlers with XLA once. It needs the
extension ``lrelu._jax_ffi``, built when jaxlib's headers are found at build
time (``pip install lrelu[jax]``; docs/jax.md).
"""
import functools
import numbers

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from ._prelu import broadcasts

try:
    from . import _jax_ffi
except ImportError as error:  # pragma: no cover - depends on the build
    raise ImportError(
        "lrelu.jax needs the extension lrelu._jax_ffi, which is built only "
        "when jaxlib's XLA FFI headers are found at build time: reinstall "
        "with `pip install lrelu[jax]` (docs/jax.md)") from error

__all__ = ["DTYPES", "leaky_relu", "leaky_relu_backward", "prelu",
           "prelu_backward"]

DEFAULT_ALPHA = 0.01
#: Element types lrelu computes, as JAX dtypes.
DTYPES = (jnp.dtype("float32"), jnp.dtype("float16"), jnp.dtype("bfloat16"),
          jnp.dtype("float64"))

_FORWARD = "lrelu_leaky_relu"
_BACKWARD = "lrelu_leaky_relu_backward"


def _register():
    """Registers the handlers with XLA, once per process."""
    for name, capsule in _jax_ffi.cpu_handlers().items():
        jax.ffi.register_ffi_target(name, capsule, platform="cpu")
    cuda = _jax_ffi.cuda_handlers()
    for name, capsule in cuda.items():
        jax.ffi.register_ffi_target(name, capsule, platform="CUDA")
    return ("cpu", "cuda") if cuda else ("cpu",)


_PLATFORMS = _register()


def _alpha(alpha):
    """alpha as a Python float, or TypeError naming what was given."""
    if isinstance(alpha, jax.core.Tracer):
        raise TypeError(
            "lrelu.jax: alpha must be a Python or NumPy scalar fixed at trace "
            "time, not a traced value (mark it static under jax.jit)")
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(
            alpha, (numbers.Real, np.floating, np.integer, np.ndarray,
                    jax.Array)):
        raise TypeError(
            f"lrelu.jax: alpha must be a real scalar, got "
            f"{type(alpha).__name__}")
    if isinstance(alpha, (np.ndarray, jax.Array)):
        if alpha.shape != () or not (
                jnp.issubdtype(alpha.dtype, jnp.floating)
                or jnp.issubdtype(alpha.dtype, jnp.integer)):
            raise TypeError(
                f"lrelu.jax: alpha must be a real scalar, got an array of "
                f"shape {alpha.shape} and dtype {alpha.dtype}")
    # float() is exact for every float type up to float64, so alpha reaches
    # the handler as the caller's value (a float64 attribute: the handler's
    # type) and is rounded to float32 there, once, for 32-bit and narrower.
    return float(alpha)


def _check_dtype(dtype, name="x"):
    dtype = jnp.dtype(dtype)
    if dtype not in DTYPES:
        raise TypeError(
            f"lrelu.jax: unsupported dtype {dtype} for {name} (float32, "
            f"float16, bfloat16, float64 only)")


# ---------------------------------------------------------------------------
# Primitives: forward(x) and backward(dy, x), both elementwise. backward is
# linear in dy with a zero derivative in x, so it is its own transpose.
# ---------------------------------------------------------------------------

_forward_p = Primitive("lrelu_leaky_relu")
_backward_p = Primitive("lrelu_leaky_relu_backward")


# The primitives' parameter is alpha's float64 bit pattern: JAX compares and
# hashes parameters, and as floats -0.0 would equal 0.0 and NaN nothing.
def _alpha_bits(alpha):
    return int(np.float64(alpha).view(np.uint64))


def _alpha_value(alpha_bits):
    return np.uint64(alpha_bits).view(np.float64)


@functools.lru_cache(maxsize=None)
def _jitted(primitive, params):
    return jax.jit(functools.partial(primitive.bind, **dict(params)))


def _impl(primitive):
    """Eager evaluation: the primitive under jit, compiled once per
    parameter set."""
    return lambda *args, **params: _jitted(
        primitive, tuple(sorted(params.items())))(*args)


def _abstract(x, *others, alpha_bits):
    del alpha_bits
    for other in others:
        if other.shape != x.shape or other.dtype != x.dtype:
            raise TypeError(
                f"lrelu.jax: dy and x differ: {other.shape} {other.dtype} and "
                f"{x.shape} {x.dtype}")
    return jax.core.ShapedArray(x.shape, x.dtype)


def _lowering(target):
    rule = jax.ffi.ffi_lowering(target)

    def lower(ctx, *args, alpha_bits):
        # A float64 attribute: what the handler decodes (a float32 one would
        # fail only when the program runs).
        return rule(ctx, *args, alpha=_alpha_value(alpha_bits))

    return lower


for _p, _target in ((_forward_p, _FORWARD), (_backward_p, _BACKWARD)):
    _p.def_impl(_impl(_p))
    _p.def_abstract_eval(_abstract)
    for _platform in _PLATFORMS:
        mlir.register_lowering(_p, _lowering(_target), platform=_platform)


def _backward_transpose(cotangent, dy, x, *, alpha_bits):
    if ad.is_undefined_primal(x):
        raise NotImplementedError(
            "lrelu.jax: leaky_relu_backward is linear in dy only")
    if type(cotangent) is ad.Zero:
        return ad.Zero(dy.aval), None
    return _backward_p.bind(cotangent, x, alpha_bits=alpha_bits), None


# Tangents: dy -> backward(dy, x) for both (zero tangents are skipped).
ad.defjvp(_forward_p, lambda t, x, *, alpha_bits: _backward_p.bind(
    t, x, alpha_bits=alpha_bits))
ad.defjvp(_backward_p, lambda t, dy, x, *, alpha_bits: _backward_p.bind(
    t, x, alpha_bits=alpha_bits), None)  # dx does not change with x (its derivative there is 0)
ad.primitive_transposes[_backward_p] = _backward_transpose


def _batch(primitive):
    """Elementwise: bring every batched operand's batch axis to the front,
    broadcast the unbatched ones, and call once on the whole batch."""

    def rule(args, dims, *, alpha_bits):
        # None marks an unbatched operand (JAX's batching convention).
        size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
        moved = [batching.bdim_at_front(a, d, size) for a, d in zip(args, dims)]
        return primitive.bind(*moved, alpha_bits=alpha_bits), 0

    return rule


batching.primitive_batchers[_forward_p] = _batch(_forward_p)
batching.primitive_batchers[_backward_p] = _batch(_backward_p)


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def leaky_relu(x, alpha=DEFAULT_ALPHA):
    """``y = x < 0 ? alpha * x : x``, elementwise, bit for bit (contract v1).

    x: a JAX array (or anything ``jnp.asarray`` takes) of float32, float16,
      bfloat16 or float64, any shape (rank 0 and empty included).
    alpha: a Python or NumPy real scalar (not traced).
    Returns an array of x's shape and dtype. Differentiable in x (forward and
    reverse mode, any order) and batchable with ``jax.vmap``.
    """
    alpha = _alpha(alpha)
    x = jnp.asarray(x)
    _check_dtype(x.dtype)
    return _forward_p.bind(x, alpha_bits=_alpha_bits(alpha))


def leaky_relu_backward(dy, x, alpha=DEFAULT_ALPHA):
    """The gradient ``dx = x < 0 ? alpha * dy : dy`` (from x), bit for bit.

    dy and x must have the same shape and dtype (one of ``DTYPES``)."""
    alpha = _alpha(alpha)
    dy, x = jnp.asarray(dy), jnp.asarray(x)
    _check_dtype(x.dtype)
    _check_dtype(dy.dtype, "dy")
    return _backward_p.bind(dy, x, alpha_bits=_alpha_bits(alpha))


# ---------------------------------------------------------------------------
# PReLU (contract ai.onnx.PRelu v1): alpha an array that broadcasts to x.
#
# Primitives: the forward pass, and three maps linear in their first
# operand(s), each the transpose of another, so that reverse mode runs one
# gradient call for both dx and dalpha:
#   _prelu_p(x, alpha)                  y
#   _prelu_grad_p(dy, x, alpha; parts)  dx, dalpha or both (one FFI call)
#   _prelu_alpha_term_p(ta, x)          x < 0 ? x * ta : 0 (ta: alpha's shape)
#   _prelu_tangent_p(tx, ta, x, alpha)  dx(tx) + alpha_term(ta)
# grad's dx part is its own transpose; its dalpha part and alpha_term are
# each other's; tangent and grad(parts="both") likewise. dx and dalpha are
# the contract's bits; terms of second and higher derivatives that the
# contract does not define (products of two tangents) are XLA's arithmetic.
# ---------------------------------------------------------------------------

_PRELU_TARGETS = {"forward": "lrelu_prelu", "both": "lrelu_prelu_backward",
                  "dx": "lrelu_prelu_dx", "dalpha": "lrelu_prelu_dalpha"}
# The gradient primitive's outputs for each value of its `parts`.
_PARTS = {"dx": ("dx",), "dalpha": ("dalpha",), "both": ("dx", "dalpha")}


def _check_alpha_array(alpha, x):
    if not broadcasts(tuple(alpha.shape), tuple(x.shape)):
        raise ValueError(
            f"lrelu.jax: alpha of shape {tuple(alpha.shape)} does not "
            f"broadcast to x of shape {tuple(x.shape)} (ONNX's unidirectional "
            f"rule: aligned to the right, each extent x's or 1)")
    if alpha.dtype != x.dtype:
        raise TypeError(
            f"lrelu.jax: alpha has dtype {alpha.dtype} and x {x.dtype}; PReLU "
            f"takes alpha of x's dtype (alpha.astype(x.dtype))")


def _reduce_to(v, shape):
    """Sums v over the axes an array of `shape` is broadcast along."""
    lead = v.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape)
        if n == 1 and v.shape[lead + i] != 1)
    return jnp.sum(v, axis=axes).reshape(shape) if axes else v.reshape(shape)


def _where_negative(x, v):
    return jnp.where(x < 0, v, jnp.zeros((), v.dtype))


_prelu_p = Primitive("lrelu_prelu")
_prelu_grad_p = Primitive("lrelu_prelu_backward")
_prelu_grad_p.multiple_results = True
_prelu_alpha_term_p = Primitive("lrelu_prelu_alpha_term")
_prelu_tangent_p = Primitive("lrelu_prelu_tangent")


def _same(name, a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        raise TypeError(f"lrelu.jax: {name} differ: {a.shape} {a.dtype} and "
                        f"{b.shape} {b.dtype}")


def _prelu_abstract(x, alpha):
    _check_alpha_array(alpha, x)
    return jax.core.ShapedArray(x.shape, x.dtype)


def _grad_abstract(dy, x, alpha, *, parts):
    _same("dy and x", dy, x)
    _check_alpha_array(alpha, x)
    avals = {"dx": jax.core.ShapedArray(x.shape, x.dtype),
             "dalpha": jax.core.ShapedArray(alpha.shape, alpha.dtype)}
    return [avals[name] for name in _PARTS[parts]]


def _alpha_term_abstract(ta, x):
    _check_alpha_array(ta, x)
    return jax.core.ShapedArray(x.shape, x.dtype)


def _tangent_abstract(tx, ta, x, alpha):
    _same("the tangent of x and x", tx, x)
    _check_alpha_array(alpha, x)
    _same("the tangent of alpha and alpha", ta, alpha)
    return jax.core.ShapedArray(x.shape, x.dtype)


_prelu_p.def_abstract_eval(_prelu_abstract)
_prelu_grad_p.def_abstract_eval(_grad_abstract)
_prelu_alpha_term_p.def_abstract_eval(_alpha_term_abstract)
_prelu_tangent_p.def_abstract_eval(_tangent_abstract)


def _alpha_term(ta, x):
    # x < 0 ? x * ta : 0: the forward pass with ta as alpha (its rounding),
    # then zero where x is not negative.
    return _where_negative(x, _prelu_p.bind(x, ta))


def _tangent(tx, ta, x, alpha):
    dx, = _prelu_grad_p.bind(tx, x, alpha, parts="dx")
    return dx + _alpha_term(ta, x)


def _grad_lowering(ctx, dy, x, alpha, *, parts):
    return jax.ffi.ffi_lowering(_PRELU_TARGETS[parts])(ctx, dy, x, alpha)


for _p in (_prelu_p, _prelu_grad_p, _prelu_alpha_term_p, _prelu_tangent_p):
    _p.def_impl(_impl(_p))


def _cpu_only(ctx, *args, **params):
    del ctx, args, params
    raise NotImplementedError(
        "lrelu.jax.prelu runs on the CPU only (its gradient is a CPU "
        "kernel): place x and alpha on the CPU, e.g. with "
        "jax.device_put(x, jax.devices('cpu')[0])")


mlir.register_lowering(_prelu_p,
                       jax.ffi.ffi_lowering(_PRELU_TARGETS["forward"]),
                       platform="cpu")
mlir.register_lowering(_prelu_grad_p, _grad_lowering, platform="cpu")
if "cuda" in _PLATFORMS:
    mlir.register_lowering(_prelu_p, _cpu_only, platform="cuda")
    mlir.register_lowering(_prelu_grad_p, _cpu_only, platform="cuda")
mlir.register_lowering(_prelu_alpha_term_p,
                       mlir.lower_fun(_alpha_term, multiple_results=False))
mlir.register_lowering(_prelu_tangent_p,
                       mlir.lower_fun(_tangent, multiple_results=False))


def _zeros(aval):
    return jnp.zeros(aval.shape, aval.dtype)


# Transposes (reverse mode). Undefined operands are the linear ones.
def _grad_transpose(cts, dy, x, alpha, *, parts):
    if ad.is_undefined_primal(x) or ad.is_undefined_primal(alpha):
        raise NotImplementedError(
            "lrelu.jax: prelu's gradient is linear in dy only")
    cts = [_zeros(a) if type(c) is ad.Zero else c
           for c, a in zip(cts, _grad_abstract(dy.aval, jax.typeof(x),
                                                jax.typeof(alpha),
                                                parts=parts))]
    if parts == "dx":
        out, = _prelu_grad_p.bind(cts[0], x, alpha, parts="dx")
    elif parts == "dalpha":
        out = _prelu_alpha_term_p.bind(cts[0], x)
    else:
        out = _prelu_tangent_p.bind(cts[0], cts[1], x, alpha)
    return out, None, None


def _alpha_term_transpose(ct, ta, x):
    if ad.is_undefined_primal(x):
        raise NotImplementedError(
            "lrelu.jax: prelu's alpha term is linear in alpha's tangent only")
    if type(ct) is ad.Zero:
        return ad.Zero(ta.aval), None
    dalpha, = _prelu_grad_p.bind(ct, x, _zeros(ta.aval), parts="dalpha")
    return dalpha, None


def _tangent_transpose(ct, tx, ta, x, alpha):
    if ad.is_undefined_primal(x) or ad.is_undefined_primal(alpha):
        raise NotImplementedError(
            "lrelu.jax: prelu's tangent map is linear in the tangents only")
    want_x, want_a = ad.is_undefined_primal(tx), ad.is_undefined_primal(ta)
    if type(ct) is ad.Zero:
        return (ad.Zero(tx.aval) if want_x else None,
                ad.Zero(ta.aval) if want_a else None, None, None)
    if want_x and want_a:  # one pass over x and the cotangent for both
        dx, dalpha = _prelu_grad_p.bind(ct, x, alpha, parts="both")
        return dx, dalpha, None, None
    if want_x:
        dx, = _prelu_grad_p.bind(ct, x, alpha, parts="dx")
        return dx, None, None, None
    dalpha, = _prelu_grad_p.bind(ct, x, alpha, parts="dalpha")
    return None, dalpha, None, None


ad.primitive_transposes[_prelu_grad_p] = _grad_transpose
ad.primitive_transposes[_prelu_alpha_term_p] = _alpha_term_transpose
ad.primitive_transposes[_prelu_tangent_p] = _tangent_transpose


def _instantiate(t, primal):
    return _zeros(jax.typeof(primal)) if type(t) is ad.Zero else t


# Forward mode. The mask x < 0 is piecewise constant, so x's tangent enters
# only where x is a factor (x * alpha's tangent); those second-order
# products are XLA's multiply.
def _prelu_jvp(primals, tangents):
    x, alpha = primals
    tx, ta = tangents
    y = _prelu_p.bind(x, alpha)
    if type(tx) is ad.Zero and type(ta) is ad.Zero:
        return y, ad.Zero(jax.typeof(y))
    if type(ta) is ad.Zero:
        t, = _prelu_grad_p.bind(tx, x, alpha, parts="dx")
    elif type(tx) is ad.Zero:
        t = _prelu_alpha_term_p.bind(ta, x)
    else:
        t = _prelu_tangent_p.bind(tx, ta, x, alpha)
    return y, t


def _grad_jvp(primals, tangents, *, parts):
    dy, x, alpha = primals
    tdy, tx, ta = tangents
    outs = _prelu_grad_p.bind(dy, x, alpha, parts=parts)
    if type(tdy) is ad.Zero:
        touts = [jnp.zeros_like(o) for o in outs]
    else:
        touts = list(_prelu_grad_p.bind(tdy, x, alpha, parts=parts))
    for i, name in enumerate(_PARTS[parts]):
        if name == "dx" and type(ta) is not ad.Zero:  # d(alpha * dy)
            touts[i] = touts[i] + _where_negative(
                x, jnp.broadcast_to(ta, x.shape) * dy)
        if name == "dalpha" and type(tx) is not ad.Zero:  # d(x * dy)
            touts[i] = touts[i] + _reduce_to(_where_negative(x, tx * dy),
                                             alpha.shape)
    return outs, touts


def _alpha_term_jvp(primals, tangents):
    ta, x = primals
    tta, tx = tangents
    out = _prelu_alpha_term_p.bind(ta, x)
    t = (_prelu_alpha_term_p.bind(_instantiate(tta, ta), x)
         if type(tta) is not ad.Zero else jnp.zeros_like(out))
    if type(tx) is not ad.Zero:
        t = t + _where_negative(x, jnp.broadcast_to(ta, x.shape) * tx)
    return out, t


def _tangent_jvp(primals, tangents):
    tx, ta, x, alpha = primals
    ttx, tta, t_x, t_alpha = tangents
    out = _prelu_tangent_p.bind(tx, ta, x, alpha)
    t = (_prelu_tangent_p.bind(_instantiate(ttx, tx), _instantiate(tta, ta),
                               x, alpha)
         if type(ttx) is not ad.Zero or type(tta) is not ad.Zero else
         jnp.zeros_like(out))
    if type(t_x) is not ad.Zero:
        t = t + _where_negative(x, jnp.broadcast_to(ta, x.shape) * t_x)
    if type(t_alpha) is not ad.Zero:
        t = t + _where_negative(x, jnp.broadcast_to(t_alpha, x.shape) * tx)
    return out, t


ad.primitive_jvps[_prelu_p] = _prelu_jvp
ad.primitive_jvps[_prelu_grad_p] = _grad_jvp
ad.primitive_jvps[_prelu_alpha_term_p] = _alpha_term_jvp
ad.primitive_jvps[_prelu_tangent_p] = _tangent_jvp


# Batching: x-shaped operands get the batch axis in front; alpha-shaped
# ones, when batched, get it in front too with ones up to x's rank, so each
# batch element keeps its own alpha (and its own dalpha).
def _x_front(v, d, size):
    return batching.bdim_at_front(v, d, size)


def _alpha_front(a, d, size, x_rank, expand=False):
    """a (alpha's shape, batched on d or not) against x of rank x_rank with
    the batch in front. expand: an unbatched a is broadcast over the batch
    too (dalpha then stays per batch element)."""
    if d is None and not expand:
        return a
    a = batching.bdim_at_front(a, d, size)
    shape = a.shape[1:]
    return a.reshape((size,) + (1,) * (x_rank - len(shape)) + shape)


def _unfront(a, shape):
    return a.reshape((a.shape[0],) + tuple(shape))


def _prelu_batch(args, dims):
    (x, alpha), (xd, ad_) = args, dims
    size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    x_rank = x.ndim - (xd is not None)
    return _prelu_p.bind(_x_front(x, xd, size),
                         _alpha_front(alpha, ad_, size, x_rank)), 0


def _grad_batch(args, dims, *, parts):
    (dy, x, alpha), (dyd, xd, ad_) = args, dims
    size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    x_rank = dy.ndim - (dyd is not None)
    alpha_shape = alpha.shape if ad_ is None else tuple(
        n for i, n in enumerate(alpha.shape) if i != ad_)
    outs = _prelu_grad_p.bind(
        _x_front(dy, dyd, size), _x_front(x, xd, size),
        _alpha_front(alpha, ad_, size, x_rank, expand=parts != "dx"),
        parts=parts)
    outs = [o if n == "dx" else _unfront(o, alpha_shape)
            for o, n in zip(outs, _PARTS[parts])]
    return outs, [0] * len(outs)


def _alpha_term_batch(args, dims):
    (ta, x), (tad, xd) = args, dims
    size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    x_rank = x.ndim - (xd is not None)
    return _prelu_alpha_term_p.bind(_alpha_front(ta, tad, size, x_rank),
                                    _x_front(x, xd, size)), 0


def _tangent_batch(args, dims):
    (tx, ta, x, alpha), (txd, tad, xd, ad_) = args, dims
    size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    x_rank = x.ndim - (xd is not None)
    # ta and alpha must keep one shape: both batched alike.
    expand = tad is not None or ad_ is not None
    return _prelu_tangent_p.bind(
        _x_front(tx, txd, size), _alpha_front(ta, tad, size, x_rank, expand),
        _x_front(x, xd, size), _alpha_front(alpha, ad_, size, x_rank, expand)
    ), 0


batching.primitive_batchers[_prelu_p] = _prelu_batch
batching.primitive_batchers[_prelu_grad_p] = _grad_batch
batching.primitive_batchers[_prelu_alpha_term_p] = _alpha_term_batch
batching.primitive_batchers[_prelu_tangent_p] = _tangent_batch


def _prelu_operands(x, alpha):
    x = jnp.asarray(x)
    _check_dtype(x.dtype)
    if not isinstance(alpha, (jax.Array, jax.core.Tracer)):
        # Python scalars, lists, NumPy arrays: converted to x's dtype.
        alpha = jnp.asarray(alpha, dtype=x.dtype)
    _check_alpha_array(alpha, x)
    return x, alpha


def prelu(x, alpha):
    """PReLU, ``y = x < 0 ? alpha * x : x`` with ``alpha`` an array that
    broadcasts to x (ONNX's unidirectional rule: alpha's shape, aligned to
    the right of x's, has each extent x's or 1; per channel ``(C, 1, 1)``
    for NCHW, ``(C,)`` for NHWC), bit for bit (contract ai.onnx.PRelu v1).

    x: float32, float16, bfloat16 or float64 (``jax_enable_x64``), any shape.
    alpha: a JAX array of x's dtype (traced or not: a learned slope), or a
      Python/NumPy value, converted to x's dtype.
    Returns y, x's shape and dtype. Differentiable in x and alpha (jax.grad,
    vjp, jvp, jacfwd/jacrev) and batchable with jax.vmap; reverse mode makes
    one gradient call for dx and dalpha, and dalpha is the correctly
    rounded sum (docs/prelu.md). CPU only.
    """
    x, alpha = _prelu_operands(x, alpha)
    return _prelu_p.bind(x, alpha)


def prelu_backward(dy, x, alpha):
    """PReLU's gradient from x: ``(dx, dalpha)`` with ``dx = x < 0 ?
    alpha * dy : dy`` and ``dalpha`` the correctly rounded sum of ``x * dy``
    over x < 0 along alpha's broadcast axes, in alpha's shape and dtype."""
    x, alpha = _prelu_operands(x, alpha)
    dy = jnp.asarray(dy)
    _check_dtype(dy.dtype, "dy")
    _same("dy and x", dy, x)
    dx, dalpha = _prelu_grad_p.bind(dy, x, alpha, parts="both")
    return dx, dalpha
