"""lrelu.jax against lrelu's independent oracle (tests/python/lrelu_oracle.py)
bit for bit -- not against jnp.where, which XLA computes with subnormals
flushed and, in float16 and bfloat16, with alpha rounded to 16 bits -- on
the contract's cases and every float16 and bfloat16 pattern, under each
transformation: jit, vmap, grad/vjp, jvp/linearize, jacfwd, higher order."""
import json
import os

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import lrelu.jax as lj
import lrelu_oracle as oracle

DTYPES = ("float16", "bfloat16", "float32", "float64")
# The contract's alphas (default, zero, negative, > 1, infinite, NaN, one
# float32 cannot hold, a float32 subnormal: XLA runs with FTZ/DAZ).
ALPHAS = (0.01, 0.2, 0.0, -0.5, 1.5, float("inf"), float("-inf"),
          float("nan"), 0.1, -0.0, 1e-40, 3e38)
CONTRACT = os.path.join(os.path.dirname(__file__), "..", "..", "contract",
                        "v1", "test.json")


def np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(
        name)


def as_jax(bits, name):
    return jnp.asarray(bits.view(np_dtype(name)))


def bits_of(array, name):
    array = np.asarray(array)
    assert array.dtype == np_dtype(name), (array.dtype, name)
    return array.view(oracle.uint_type(name))


def check(actual, expected_and_nan, name, context):
    expected, any_nan = expected_and_nan
    oracle.assert_bits(bits_of(actual, name), expected, any_nan, name, context)


def inputs(name, rng):
    """Specials (every pattern for 16-bit types), random bits and values."""
    parts = [oracle.special_bits(name)]
    if name in ("float32", "float64"):
        parts.append(oracle.random_bits(name, 4096, rng))
    parts.append(oracle.random_values(name, 1000, rng))
    return np.concatenate(parts)


def two(array, axis=0):
    """Two copies of an array, stacked on the host: XLA's own concatenate
    would quiet signalling NaNs before lrelu sees them."""
    return jnp.asarray(np.stack([np.asarray(array)] * 2, axis=axis))


def second(batch, axis=0):
    """The second copy back, taken on the host for the same reason."""
    return np.take(np.asarray(batch), 1, axis=axis)


def forward_fns(alpha):
    """The forward pass under each transformation, as x -> y."""
    f = lambda x: lj.leaky_relu(x, alpha)  # noqa: E731
    return {
        "eager": f,
        "jit": jax.jit(f),
        "vmap": lambda x: second(jax.vmap(f)(two(x))),
        "vmap axis 1": lambda x: second(
            jax.vmap(f, in_axes=1, out_axes=1)(two(x, 1)), 1),
        "jit(vmap)": lambda x: second(jax.jit(jax.vmap(f))(two(x))),
        "jvp primal": lambda x: jax.jvp(f, (x,), (x,))[0],
        "vjp primal": lambda x: jax.vjp(f, x)[0],
    }


def backward_fns(alpha):
    """The gradient under each transformation, as (dy, x) -> dx."""
    f = lambda x: lj.leaky_relu(x, alpha)  # noqa: E731
    vjp = lambda dy, x: jax.vjp(f, x)[1](dy)[0]  # noqa: E731
    jvp = lambda dy, x: jax.jvp(f, (x,), (dy,))[1]  # noqa: E731
    return {
        "leaky_relu_backward": lambda dy, x: lj.leaky_relu_backward(
            dy, x, alpha),
        "vjp": vjp,
        "jit(vjp)": jax.jit(vjp),
        "jvp": jvp,
        "jit(jvp)": jax.jit(jvp),
        "linearize": lambda dy, x: jax.linearize(f, x)[1](dy),
        "vmap(vjp), dy batched": lambda dy, x: second(
            jax.vmap(vjp, in_axes=(0, None))(two(dy), x)),
        "jit(vmap(jvp)), both batched": lambda dy, x: second(
            jax.jit(jax.vmap(jvp))(two(dy), two(x))),
        "vmap(vjp), x batched on axis 1": lambda dy, x: second(
            jax.vmap(vjp, in_axes=(None, 1), out_axes=1)(dy, two(x, 1)), 1),
        # Reverse over forward and forward over reverse: the tangent and
        # cotangent maps are the same linear custom call.
        "vjp of jvp": lambda dy, x: jax.vjp(
            lambda t: jax.jvp(f, (x,), (t,))[1], jnp.zeros_like(x))[1](dy)[0],
        "jvp of vjp": lambda dy, x: jax.jvp(
            lambda c: jax.vjp(f, x)[1](c)[0], (jnp.zeros_like(x),), (dy,))[1],
    }


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("alpha", (0.2, 1e-40))
def test_forward_bits_under_each_transformation(name, alpha, rng):
    x_bits = inputs(name, rng)
    expected = oracle.forward(x_bits, alpha, name)
    x = as_jax(x_bits, name)
    for label, f in forward_fns(alpha).items():
        check(f(x), expected, name, f"{label} {name} alpha={alpha}")


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("alpha", (0.2, 1e-40))
def test_gradient_bits_under_each_transformation(name, alpha, rng):
    x_bits = inputs(name, rng)
    dy_bits = oracle.random_bits(name, x_bits.size, rng)
    expected = oracle.backward(dy_bits, x_bits, alpha, name)
    x, dy = as_jax(x_bits, name), as_jax(dy_bits, name)
    for label, f in backward_fns(alpha).items():
        check(f(dy, x), expected, name, f"{label} {name} alpha={alpha}")


@pytest.mark.parametrize("name", DTYPES)
def test_every_alpha_under_jit(name, rng):
    """The contract's alphas (-0.0 and NaN are distinct parameters)."""
    x_bits = inputs(name, rng)
    dy_bits = oracle.random_bits(name, x_bits.size, rng)
    x, dy = as_jax(x_bits, name), as_jax(dy_bits, name)
    for alpha in ALPHAS:
        f = lambda v: lj.leaky_relu(v, alpha)  # noqa: E731
        check(jax.jit(f)(x), oracle.forward(x_bits, alpha, name), name,
              f"jit {name} alpha={alpha}")
        dx = jax.jit(lambda d, v: jax.vjp(f, v)[1](d)[0])(dy, x)
        check(dx, oracle.backward(dy_bits, x_bits, alpha, name), name,
              f"jit(vjp) {name} alpha={alpha}")


def contract_groups():
    """The contract's cases (gradient from x) as one flat input per
    operation, dtype and alpha, so that each transformation compiles once
    per group rather than once per case."""
    with open(CONTRACT) as f:
        cases = json.load(f)["cases"]
    groups = {}
    for case in cases:
        attributes = case.get("attributes", {})
        if "expected_error" in case or attributes.get("grad_source") == "y":
            continue  # lrelu.jax takes the gradient from x only
        alpha_hex = attributes.get("alpha", {}).get("f64")
        groups.setdefault((case["op"], case["dtype"], alpha_hex),
                          []).append(case)
    return [pytest.param(key, group, id=f"{key[0]}-{key[1]}-{key[2]}")
            for key, group in groups.items()]


def decode(hex_list, name):
    return np.array([int(h, 16) for h in hex_list],
                    dtype=oracle.uint_type(name))


@pytest.mark.parametrize("key,group", contract_groups())
def test_contract_cases(key, group):
    op, name, alpha_hex = key
    alpha = (float(np.uint64(int(alpha_hex, 16)).view(np.float64))
             if alpha_hex else lj.DEFAULT_ALPHA)
    output = "y" if op == "forward" else "dx"
    ins = {k: np.concatenate([decode(c["inputs"][k], name) for c in group])
           for k in group[0]["inputs"]}
    # The cases' recorded answers are the oracle's.
    recorded = np.concatenate([decode(c["expected"][output], name)
                               for c in group])
    nan_ok = []
    for case in group:
        allowed = np.zeros(len(case["expected"][output]), bool)
        allowed[case.get("anynan", {}).get(output, [])] = True
        nan_ok.append(allowed)
    nan_ok = np.concatenate(nan_ok)
    if op == "forward":
        expected = oracle.forward(ins["x"], alpha, name)
        fns, labels = forward_fns(alpha), ("eager", "jit", "jit(vmap)",
                                            "vjp primal")
        args = (as_jax(ins["x"], name),)
    else:
        expected = oracle.backward(ins["dy"], ins["x"], alpha, name)
        fns, labels = backward_fns(alpha), (
            "leaky_relu_backward", "jit(vjp)", "jit(jvp)",
            "jit(vmap(jvp)), both batched")
        args = (as_jax(ins["dy"], name), as_jax(ins["x"], name))
    oracle.assert_bits(expected[0], recorded, nan_ok, name, f"{key} recorded")
    for label in labels:
        check(fns[label](*args), expected, name, f"{key} {label}")


def test_done_when_jit_grad_and_vmap_are_exact():
    """The issue's acceptance check: jit(grad(sum of leaky_relu(x, 0.2)))
    and vmap over it, for every float32 special and random bits."""
    rng = np.random.default_rng(14)
    x_bits = np.concatenate([oracle.special_bits("float32"),
                             oracle.random_bits("float32", 1000, rng)])
    ones = np.ones(x_bits.size, np.float32).view(np.uint32)
    expected = oracle.backward(ones, x_bits, 0.2, "float32")
    g = jax.jit(jax.grad(lambda x: lj.leaky_relu(x, 0.2).sum()))
    x = as_jax(x_bits, "float32")
    check(g(x), expected, "float32", "jit(grad)")
    batch = jax.vmap(g)(jnp.asarray(np.stack([np.asarray(x)] * 3)))
    for row in np.asarray(batch):
        check(row, expected, "float32", "vmap(jit(grad))")


@pytest.mark.parametrize("name", DTYPES)
def test_jacfwd_jacrev_and_hessian(name):
    x_bits = oracle.special_bits(name)[:12]
    if name in ("float16", "bfloat16"):  # a sample of the 65536 patterns
        x_bits = x_bits[::5461]
    n = x_bits.size
    x = as_jax(x_bits, name)
    f = lambda v: lj.leaky_relu(v, 0.2)  # noqa: E731
    ones = np.ones(n, np_dtype(name)).view(oracle.uint_type(name))
    diagonal = oracle.backward(ones, x_bits, 0.2, name)
    for label, jacobian in (("jacfwd", jax.jacfwd(f)(x)),
                            ("jacrev", jax.jacrev(f)(x))):
        jacobian = np.asarray(jacobian)
        assert jacobian.shape == (n, n)
        check(np.diagonal(jacobian).copy(), diagonal, name, label)
        off = jacobian[~np.eye(n, dtype=bool)].astype(np.float64)
        assert not off.any(), label
    hessian = np.asarray(jax.hessian(lambda v: f(v).sum())(x))
    assert hessian.shape == (n, n) and not hessian.astype(np.float64).any()
    # Second derivative of a scalar function, reverse and forward.
    for label, second in (("grad(grad)", jax.grad(jax.grad(f))),
                          ("jacfwd(jacfwd)", jax.jacfwd(jax.jacfwd(f)))):
        value = second(jnp.asarray(-3.0, np_dtype(name)))
        assert float(value) == 0.0, label


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (1,), (7, 5, 3),
                                   (2, 3, 4, 5, 6), (1 << 20,)])
@pytest.mark.parametrize("name", DTYPES)
def test_shapes(shape, name, rng):
    """Rank 0, empty, N-D and large (split over XLA's thread pool)."""
    size = int(np.prod(shape))
    x_flat = oracle.random_bits(name, size, rng)
    dy_flat = oracle.random_bits(name, size, rng)

    def shaped(expected_and_nan):  # the oracle works on flat arrays
        return tuple(a.reshape(shape) for a in expected_and_nan)

    x = as_jax(x_flat.reshape(shape), name)
    dy = as_jax(dy_flat.reshape(shape), name)
    y = jax.jit(lambda v: lj.leaky_relu(v, 0.2))(x)
    assert y.shape == shape and y.dtype == np_dtype(name)
    check(y, shaped(oracle.forward(x_flat, 0.2, name)), name,
          f"forward {shape}")
    dx = jax.jit(lambda d, v: jax.vjp(lambda u: lj.leaky_relu(u, 0.2),
                                      v)[1](d)[0])(dy, x)
    check(dx, shaped(oracle.backward(dy_flat, x_flat, 0.2, name)), name,
          f"vjp {shape}")


ALPHA_TYPES = [0.2, 1, np.float16(0.2), np.float32(0.2), np.float64(0.2),
               np.longdouble(0.2), np.int32(-1), np.array(0.2, np.float32),
               np.array(0.2), jnp.float32(0.2)]


@pytest.mark.parametrize("alpha", ALPHA_TYPES,
                         ids=[type(a).__name__ + str(getattr(a, "dtype", ""))
                              for a in ALPHA_TYPES])
@pytest.mark.parametrize("name", DTYPES)
def test_alpha_of_any_real_scalar_type(alpha, name, rng):
    """alpha reaches the handler as the caller's exact value (float64), so
    the result is the contract's for that value, whatever its type."""
    x_bits = inputs(name, rng)
    value = float(alpha)
    y = jax.jit(lambda v: lj.leaky_relu(v, alpha))(as_jax(x_bits, name))
    check(y, oracle.forward(x_bits, value, name), name, repr(alpha))


@pytest.mark.parametrize("alpha", ["0.2", None, True, np.bool_(True), 1j,
                                   np.complex64(1), [0.2], np.array([0.2]),
                                   np.array(["a"]), np.array(1 + 1j)])
def test_bad_alpha_refused_at_trace_time(alpha):
    with pytest.raises(TypeError, match="alpha must be a real scalar"):
        jax.jit(lambda v: lj.leaky_relu(v, alpha)).trace(
            jnp.zeros(3, jnp.float32))


def test_traced_alpha_refused():
    with pytest.raises(TypeError, match="not a traced value"):
        jax.jit(lj.leaky_relu)(jnp.zeros(3, jnp.float32), 0.2)


@pytest.mark.parametrize("dtype", [jnp.int32, jnp.int8, jnp.uint16, jnp.bool_,
                                   jnp.complex64, jnp.float8_e4m3fn])
def test_unsupported_dtype_refused_at_trace_time_naming_it(dtype):
    x = jax.ShapeDtypeStruct((4,), dtype)
    with pytest.raises(TypeError, match=f"unsupported dtype {jnp.dtype(dtype)}"):
        jax.jit(lambda v: lj.leaky_relu(v)).trace(x)
    with pytest.raises(TypeError, match="unsupported dtype"):
        jax.jit(lambda v: lj.leaky_relu_backward(v, v)).trace(x)


def test_mismatched_gradient_operands_refused():
    with pytest.raises(TypeError, match="dy and x differ"):
        lj.leaky_relu_backward(jnp.zeros(3, jnp.float32),
                               jnp.zeros(4, jnp.float32))
    with pytest.raises(TypeError, match="dy and x differ"):
        lj.leaky_relu_backward(jnp.zeros(3, jnp.float16),
                               jnp.zeros(3, jnp.float32))


def test_default_alpha_and_seed_example():
    y = lj.leaky_relu(jnp.array([-2.0, -1.0, 0.0, 1.0, 2.0], jnp.float32))
    x_bits = np.array([-2, -1, 0, 1, 2], np.float32).view(np.uint32)
    check(y, oracle.forward(x_bits, 0.01, "float32"), "float32", "seed")


def test_handlers_registered_once_for_the_cpu():
    assert "cpu" in lj._PLATFORMS
    import importlib
    import lrelu.jax as again
    assert again is importlib.import_module("lrelu.jax")


def test_readme_example():
    """examples/quickstart_jax.py, the README's JAX section, as written."""
    import runpy
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                        "quickstart_jax.py")
    names = runpy.run_path(path)
    x_bits = np.asarray(names["x"]).view(np.uint32)
    ones = np.ones(5, np.float32).view(np.uint32)
    check(names["y"], oracle.forward(x_bits, 0.01, "float32"), "float32", "y")
    check(names["dx"], oracle.backward(ones, x_bits, 0.2, "float32"),
          "float32", "dx")
    minus_x = (-np.asarray(names["x"])).view(np.uint32)
    check(np.asarray(names["batched"])[1],
          oracle.backward(ones, minus_x, 0.2, "float32"), "float32", "vmap")
