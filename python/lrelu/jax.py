"""lrelu for JAX: LeakyReLU as XLA custom calls (the XLA FFI), bit for bit.

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

try:
    from . import _jax_ffi
except ImportError as error:  # pragma: no cover - depends on the build
    raise ImportError(
        "lrelu.jax needs the extension lrelu._jax_ffi, which is built only "
        "when jaxlib's XLA FFI headers are found at build time: reinstall "
        "with `pip install lrelu[jax]` (docs/jax.md)") from error

__all__ = ["DTYPES", "leaky_relu", "leaky_relu_backward"]

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
def _jitted(primitive, alpha_bits):
    return jax.jit(functools.partial(primitive.bind, alpha_bits=alpha_bits))


def _impl(primitive):
    return lambda *args, alpha_bits: _jitted(primitive, alpha_bits)(*args)


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
