"""lrelu.jax.prelu / prelu_backward (contract ai.onnx.PRelu v1) against the
independent NumPy oracle (y, dx) and an exact Fraction sum rounded once
(dalpha), under jit, vmap, grad/vjp, jvp and jacfwd/jacrev; reverse mode
makes one gradient call for both dx and dalpha."""
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import lrelu
import lrelu.jax as lj
import lrelu_oracle as oracle
from exact_sums import exact_dalpha

DTYPES = ("float16", "bfloat16", "float32", "float64")
# (x shape, alpha shape): scalar, [1], per channel NCHW and NHWC, rows,
# full, a middle axis, rank 0.
PATTERNS = [((2, 3, 4, 5), ()), ((2, 3, 4, 5), (1,)),
            ((2, 6, 3, 4), (6, 1, 1)), ((2, 3, 4, 6), (6,)),
            ((2, 6, 3, 4), (3, 1)), ((3, 4, 5), (3, 4, 5)),
            ((2, 6, 3, 4), (1, 6, 1, 4)), ((), ())]




def np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(
        name)


def bits_of(array, name):
    array = np.asarray(array)
    assert array.dtype == np_dtype(name), (array.dtype, name)
    return array.view(oracle.uint_type(name)).ravel()


def values(name, shape, rng, scale=4.0):
    n = int(np.prod(shape, dtype=np.int64))
    bits = oracle.random_values(name, n, rng, scale)
    return bits.reshape(shape).view(np_dtype(name))


def alpha_full(alpha, x_shape, name):
    """Each element's alpha in the compute type, as the oracle takes it."""
    with np.errstate(invalid="ignore"):
        a = oracle.to_compute(bits_of(alpha, name), name).reshape(
            np.shape(alpha))
        return np.broadcast_to(a, x_shape).astype(np.float64).ravel()


def expected_y(x, alpha, name):
    return oracle.forward(bits_of(x, name), alpha_full(alpha, x.shape, name),
                          name)


def expected_dx(dy, x, alpha, name):
    return oracle.backward(bits_of(dy, name), bits_of(x, name),
                           alpha_full(alpha, x.shape, name), name)


def check(actual, expected_and_nan, name, context):
    expected, any_nan = expected_and_nan
    oracle.assert_bits(bits_of(actual, name), expected, any_nan, name, context)


def check_dalpha(actual, dy, x, name, context):
    actual = np.asarray(actual)
    assert actual.dtype == np_dtype(name), context
    want = exact_dalpha(x, dy, actual.shape, name)
    np.testing.assert_array_equal(actual.astype(np.float64), want,
                                  err_msg=context)


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("x_shape,alpha_shape", PATTERNS)
def test_forward_bits_eager_jit_and_vmap(name, x_shape, alpha_shape, rng):
    x = jnp.asarray(oracle.random_bits(name, int(np.prod(x_shape)), rng)
                    .reshape(x_shape).view(np_dtype(name)))
    alpha = jnp.asarray(
        oracle.random_bits(name, int(np.prod(alpha_shape)), rng)
        .reshape(alpha_shape).view(np_dtype(name)))
    want = expected_y(x, alpha, name)
    check(lj.prelu(x, alpha), want, name, "eager")
    check(jax.jit(lj.prelu)(x, alpha), want, name, "jit")
    # vmap: each batch element its own x and alpha, or a shared alpha. The
    # batches are stacked on the host (XLA's own ops would quiet
    # signalling NaNs before lrelu sees them).
    other = jnp.asarray(np.asarray(alpha)[::-1] if alpha.ndim else alpha)
    xs = jnp.asarray(np.stack([np.asarray(x)] * 2))
    alphas = jnp.asarray(np.stack([np.asarray(other), np.asarray(alpha)]))
    check(np.asarray(jax.vmap(lj.prelu)(xs, alphas))[1], want, name,
          "vmap, alpha batched")
    check(np.asarray(jax.vmap(lj.prelu, in_axes=(0, None))(xs, alpha))[1],
          want, name, "vmap, alpha shared")
    check(np.asarray(jax.jit(jax.vmap(lj.prelu, in_axes=(None, 0)))(
        x, alphas))[1], want, name, "jit(vmap), x shared")


def loss_grads(x, alpha, dy):
    """(dx, dalpha) of sum(prelu(x, alpha) * dy), by reverse mode."""
    return jax.grad(lambda v, a: jnp.vdot(lj.prelu(v, a), dy),
                    argnums=(0, 1))(x, alpha)


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("x_shape,alpha_shape", PATTERNS)
def test_gradient_dx_oracle_and_dalpha_exact(name, x_shape, alpha_shape, rng):
    x = values(name, x_shape, rng)
    dy = values(name, x_shape, rng, 1e3)
    alpha = values(name, alpha_shape, rng, 1.0)
    jx, jdy, ja = jnp.asarray(x), jnp.asarray(dy), jnp.asarray(alpha)
    want_dx = expected_dx(dy, x, alpha, name)
    dx, dalpha = lj.prelu_backward(jdy, jx, ja)
    check(dx, want_dx, name, "prelu_backward dx")
    check_dalpha(dalpha, dy, x, name, "prelu_backward dalpha")
    vjp = jax.vjp(lj.prelu, jx, ja)[1]
    for label, (gx, ga) in (("vjp", vjp(jdy)),
                            ("jit(vjp)", jax.jit(vjp)(jdy))):
        check(gx, want_dx, name, label)
        check_dalpha(ga, dy, x, name, label)
    if name in ("float32", "float64"):  # vdot's sum is exact-free there
        gx, ga = jax.jit(loss_grads)(jx, ja, jdy)
        check(gx, want_dx, name, "jit(grad)")
        check_dalpha(ga, dy, x, name, "jit(grad)")
    # Only one part asked for: dx alone, dalpha alone.
    check(jax.grad(lambda v: jnp.vdot(lj.prelu(v, ja), jdy).astype(
        jnp.float32))(jx), want_dx, name, "grad in x only")
    check_dalpha(jax.vjp(lambda a: lj.prelu(jx, a), ja)[1](jdy)[0], dy, x,
                 name, "vjp in alpha only")


def test_reverse_mode_is_one_gradient_call():
    x = jnp.ones((2, 3, 4), jnp.float32)
    alpha = jnp.full((3, 1), 0.25, jnp.float32)
    jaxpr = str(jax.make_jaxpr(jax.grad(
        lambda v, a: lj.prelu(v, a).sum(), argnums=(0, 1)))(x, alpha))
    assert jaxpr.count("lrelu_prelu_backward[parts=both]") == 1, jaxpr
    # dalpha comes out of the call, not from XLA's sum of products.
    assert "reduce_sum" not in jaxpr.split("lrelu_prelu_backward")[1], jaxpr


@pytest.mark.parametrize("name", ("float32", "bfloat16"))
def test_vmap_of_grad_keeps_each_examples_dalpha(name, rng):
    x = values(name, (3, 4, 5, 6), rng)
    dy = values(name, (3, 4, 5, 6), rng)
    alpha = values(name, (6,), rng, 1.0)
    per_example = jax.vmap(lambda v, d: jax.vjp(
        lambda a: lj.prelu(v, a), jnp.asarray(alpha))[1](d)[0])
    got = np.asarray(per_example(jnp.asarray(x), jnp.asarray(dy)))
    assert got.shape == (3, 6)
    for b in range(3):
        check_dalpha(got[b], dy[b], x[b], name, f"vmap example {b}")
    # Batched alphas too, and both parts at once.
    alphas = jnp.asarray(np.stack([alpha, alpha[::-1], alpha]))
    dxs, das = jax.vmap(lambda v, a, d: jax.vjp(lj.prelu, v, a)[1](d))(
        jnp.asarray(x), alphas, jnp.asarray(dy))
    for b in range(3):
        a = np.asarray(alphas)[b]
        check(np.asarray(dxs)[b], expected_dx(dy[b], x[b], a, name), name,
              f"vmap dx {b}")
        check_dalpha(np.asarray(das)[b], dy[b], x[b], name, f"vmap da {b}")


def test_dalpha_matches_the_numpy_package_at_any_size(rng):
    """A large call, split over XLA's thread pool, gives the bits of the
    NumPy package on one thread (the contract: any chunking, any threads)."""
    x = rng.standard_normal((8, 64, 32, 32)).astype(np.float32)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    alpha = rng.uniform(0, 0.5, (64, 1, 1)).astype(np.float32)
    dx, dalpha = jax.jit(lj.prelu_backward)(jnp.asarray(dy), jnp.asarray(x),
                                            jnp.asarray(alpha))
    want_dx, want_da = lrelu.prelu_backward(dy, x, alpha, threads=1)
    np.testing.assert_array_equal(np.asarray(dx).view(np.uint32),
                                  want_dx.view(np.uint32))
    np.testing.assert_array_equal(np.asarray(dalpha).view(np.uint32),
                                  want_da.view(np.uint32))
    check_dalpha(dalpha[:2], dy[:, :2], x[:, :2], "float32", "sample")


def test_dalpha_is_exact_where_float_sums_are_not():
    x = jnp.asarray([-1.0, -1.0, -1.0], jnp.float32)
    dy = jnp.asarray([3e38, 1.0, -3e38], jnp.float32)
    _, dalpha = lj.prelu_backward(dy, x, jnp.float32(0.25))
    assert float(dalpha) == -1.0  # float32 sums give inf or 0


def test_forward_mode_and_jacobians(rng):
    x = values("float32", (2, 3, 4), rng)
    alpha = values("float32", (3, 1), rng, 1.0)
    jx, ja = jnp.asarray(x), jnp.asarray(alpha)
    negative = x < 0
    # d y / d alpha: x where x < 0 (an exact product by one), else 0.
    for label, jac in (("jacfwd", jax.jacfwd(lj.prelu, argnums=1)),
                       ("jacrev", jax.jacrev(lj.prelu, argnums=1))):
        j = np.asarray(jac(jx, ja)).reshape(2, 3, 4, 3)
        for c in range(3):
            want = np.where(negative[:, c, :], x[:, c, :], 0)
            np.testing.assert_array_equal(j[:, c, :, c], want, label)
            others = np.delete(j[:, c, :, :], c, axis=-1)
            assert not others.any(), label
    # jvp in both: the dx part (the contract's) plus x * t_alpha.
    tx = values("float32", (2, 3, 4), rng)
    ta = values("float32", (3, 1), rng, 1.0)
    _, t = jax.jvp(lj.prelu, (jx, ja), (jnp.asarray(tx), jnp.asarray(ta)))
    dx_bits, _ = expected_dx(tx, x, alpha, "float32")
    part = np.where(negative, np.float32(x * np.broadcast_to(ta, x.shape)),
                    np.float32(0))
    np.testing.assert_array_equal(
        np.asarray(t), dx_bits.view(np.float32).reshape(x.shape) + part)
    # Second order, XLA's arithmetic: d2/dalpha2 of sum(y^2) = 2 sum x^2.
    h = jax.hessian(lambda a: (lj.prelu(jx, a) ** 2).sum())(ja)
    want = 2 * np.array([(x[:, c][negative[:, c]] ** 2).sum()
                         for c in range(3)])
    np.testing.assert_allclose(np.asarray(h).reshape(3, 3).diagonal(), want,
                               rtol=1e-5)


@pytest.mark.parametrize("shape", [(0,), (3, 0, 2)])
def test_empty_x(shape):
    x = jnp.zeros(shape, jnp.float32)
    alpha = jnp.full((shape[-1],), 0.5, jnp.float32)
    assert lj.prelu(x, alpha).shape == shape
    dx, dalpha = lj.prelu_backward(x, x, alpha)
    assert dx.shape == shape
    np.testing.assert_array_equal(np.asarray(dalpha).view(np.uint32), 0)


def test_python_and_numpy_alpha_take_xs_dtype():
    x = jnp.asarray([-2.0, 3.0], jnp.bfloat16)
    y = lj.prelu(x, [0.1, 0.2])  # 0.1 rounded to bfloat16 first
    want = np.float32(ml_dtypes.bfloat16(0.1)) * np.float32(-2.0)
    assert np.asarray(y)[0] == ml_dtypes.bfloat16(want)
    assert lj.prelu(jnp.float32(-2.0), np.float64(0.25)) == -0.5


@pytest.mark.parametrize("alpha_shape", [(5,), (3, 4, 1), (1, 1, 1, 1, 1)])
def test_alpha_that_does_not_broadcast_is_refused(alpha_shape):
    x = jnp.zeros((2, 3, 4), jnp.float32)
    alpha = jnp.zeros(alpha_shape, jnp.float32)
    with pytest.raises(ValueError, match="does not broadcast to x"):
        lj.prelu(x, alpha)
    with pytest.raises(ValueError, match="does not broadcast to x"):
        jax.jit(lj.prelu_backward).trace(x, x, alpha)


def test_alpha_of_another_dtype_and_bad_dtypes_refused():
    x = jnp.zeros((2, 3), jnp.float16)
    with pytest.raises(TypeError, match="alpha has dtype float32"):
        lj.prelu(x, jnp.zeros((3,), jnp.float32))
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        lj.prelu(jnp.zeros(3, jnp.int32), jnp.zeros(3, jnp.int32))
    with pytest.raises(TypeError, match="dy and x differ"):
        lj.prelu_backward(jnp.zeros(3, jnp.float16), jnp.zeros(3, jnp.float32),
                          jnp.zeros(3, jnp.float32))


def test_training_a_slope_matches_numpy(rng):
    """A per-channel slope trained by gradient descent in JAX (jit(grad))
    follows the same steps as the NumPy package's prelu_backward."""
    x = rng.standard_normal((16, 4, 8)).astype(np.float32)
    target = np.where(x < 0, 0.3 * x, x).astype(np.float32)
    alpha_j = jnp.full((4, 1), 0.01, jnp.float32)
    alpha_n = np.full((4, 1), 0.01, np.float32)

    @jax.jit
    def step(a):
        g = jax.grad(lambda b: 0.5 * jnp.sum(
            (lj.prelu(jnp.asarray(x), b) - target) ** 2))(a)
        return a - np.float32(0.01) * g

    for _ in range(20):
        alpha_j = step(alpha_j)
        dy = lrelu.prelu(x, alpha_n) - target
        _, g = lrelu.prelu_backward(dy, x, alpha_n)
        alpha_n = alpha_n - np.float32(0.01) * g
    np.testing.assert_array_equal(np.asarray(alpha_j), alpha_n)
    assert np.all(np.abs(alpha_n - 0.3) < 0.05)
