"""Bit-exact forward and gradient through the NumPy ufunc and NumPy arrays,
against the independent oracle, for every dtype and the contract's alphas."""
import numpy as np
import pytest

import lrelu
import lrelu_oracle as oracle
from lrelu_pytest_support import ALPHAS, dtype_params, numpy_dtype


def inputs(dtype_name, rng):
    """Special values (all of them for 16-bit types), random bit patterns and
    ordinary random values, as storage bits."""
    parts = [oracle.special_bits(dtype_name)]
    if dtype_name in ("float32", "float64"):
        parts.append(oracle.random_bits(dtype_name, 50_000, rng))
    parts.append(oracle.random_values(dtype_name, 10_000, rng))
    return np.concatenate(parts)


@pytest.mark.parametrize("dtype_name", dtype_params())
@pytest.mark.parametrize("alpha", ALPHAS)
def test_forward_bits(dtype_name, alpha, rng):
    x_bits = inputs(dtype_name, rng)
    x = x_bits.view(numpy_dtype(dtype_name))
    y = lrelu.leaky_relu(x, alpha)
    assert y.dtype == x.dtype and y.shape == x.shape
    expected, any_nan = oracle.forward(x_bits, alpha, dtype_name)
    oracle.assert_bits(y.view(oracle.uint_type(dtype_name)), expected,
                       any_nan, dtype_name, f"{dtype_name} alpha={alpha}")


@pytest.mark.parametrize("dtype_name", dtype_params())
def test_forward_default_alpha_is_0_01(dtype_name, rng):
    x = inputs(dtype_name, rng).view(numpy_dtype(dtype_name))
    u = oracle.uint_type(dtype_name)
    np.testing.assert_array_equal(lrelu.leaky_relu(x).view(u),
                                  lrelu.leaky_relu(x, 0.01).view(u))


@pytest.mark.parametrize("dtype_name", dtype_params())
@pytest.mark.parametrize("alpha", (0.01, -0.5, 0.0, float("nan"), 1.5))
def test_gradient_bits(dtype_name, alpha, rng):
    x_bits = inputs(dtype_name, rng)
    dy_bits = oracle.random_bits(dtype_name, x_bits.size, rng)
    dt = numpy_dtype(dtype_name)
    dx = lrelu.leaky_relu_backward(dy_bits.view(dt), x_bits.view(dt), alpha)
    assert dx.dtype == dt
    expected, any_nan = oracle.backward(dy_bits, x_bits, alpha, dtype_name)
    oracle.assert_bits(dx.view(oracle.uint_type(dtype_name)), expected,
                       any_nan, dtype_name, f"gradient {dtype_name} {alpha}")


@pytest.mark.parametrize("dtype_name", dtype_params())
@pytest.mark.parametrize("alpha", (0.01, 0.2, 1.5))
def test_gradient_from_output_bits(dtype_name, alpha, rng):
    x_bits = inputs(dtype_name, rng)
    dt = numpy_dtype(dtype_name)
    y = lrelu.leaky_relu(x_bits.view(dt), alpha)
    dy_bits = oracle.random_bits(dtype_name, x_bits.size, rng)
    dx = lrelu.leaky_relu_backward(dy_bits.view(dt), y, alpha,
                                   from_output=True)
    # From y the sign test reads y: the oracle with s = y.
    y_bits = y.view(oracle.uint_type(dtype_name))
    expected, any_nan = oracle.backward(dy_bits, y_bits, alpha, dtype_name)
    oracle.assert_bits(dx.view(oracle.uint_type(dtype_name)), expected,
                       any_nan, dtype_name, f"from y {dtype_name} {alpha}")


@pytest.mark.parametrize("dtype_name", dtype_params())
def test_no_floating_point_warnings(dtype_name):
    # NaN compares and overflowing products are the contract working: the
    # ufunc leaves the status flags alone, so errstate(all='raise') is quiet.
    x = oracle.special_bits(dtype_name).view(numpy_dtype(dtype_name))
    with np.errstate(all="raise"):
        lrelu.leaky_relu(x, 3e38)
        lrelu.leaky_relu(x, float("nan"))
        lrelu.leaky_relu(x, float("inf"))
