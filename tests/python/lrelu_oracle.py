"""Python's one deliberately independent second oracle for contract v1.

contract/bits.py is the oracle the contract files are generated with, so a
mistake there would be frozen into the files the library is tested against.
The arithmetic below (widening, the multiply, float16 and bfloat16 rounding)
is written separately from it on purpose, and the Python tests check the
library against this one: a slip in either shows up as a failure. Only the
dtype table and the special values are shared (contract/bits.py), as they
are data, not arithmetic. Products that are NaN (alpha NaN, -inf * 0) may be
any NaN, so the oracle returns where that is allowed alongside the bits.
"""
import os
import sys

import numpy as np

# The dtype table and special values (contract/bits.py): found next to the
# tests both in a build tree and when scripts/test-wheel.sh runs them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "contract"))
import bits as contract_bits  # noqa: E402  pylint: disable=wrong-import-position

DTYPES = contract_bits.DTYPES


def uint_type(dtype_name):
    return contract_bits.utype(dtype_name)


def to_compute(bits, dtype_name):
    """The values of storage bits in the compute type (float32, or float64)."""
    if dtype_name == "bfloat16":
        return (bits.astype(np.uint32) << 16).view(np.float32)
    if dtype_name == "float64":
        return bits.view(np.float64)
    return bits.view(np.dtype(dtype_name)).astype(np.float32)


def round_to_storage(values, dtype_name):
    """Round-to-nearest-even from the compute type to storage bits."""
    if dtype_name == "float64":
        return values.view(np.uint64)
    if dtype_name == "float32":
        return values.view(np.uint32)
    if dtype_name == "float16":
        with np.errstate(over="ignore"):
            return values.astype(np.float16).view(np.uint16)
    u = values.view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    nan = np.isnan(values)
    rounded[nan] = (u[nan] >> 16) | 0x40
    return rounded.astype(np.uint16)


def alpha_in_compute(alpha, dtype_name):
    """alpha (a scalar, or an array of one alpha per element) rounded as the
    contract says: to float32 for every type but float64."""
    alpha = np.asarray(alpha, np.float64)
    return alpha if dtype_name == "float64" else alpha.astype(np.float32)


def scaled(s_bits, v_bits, alpha, dtype_name):
    """(bits of s < 0 ? alpha * v : v, mask where any NaN is allowed)."""
    with np.errstate(all="ignore"):
        s = to_compute(s_bits, dtype_name)
        v = to_compute(v_bits, dtype_name)
        product = alpha_in_compute(alpha, dtype_name) * v
        negative = s < 0
    product_bits = round_to_storage(product, dtype_name)
    expected = np.where(negative, product_bits, v_bits)
    return expected, negative & np.isnan(product)


def forward(x_bits, alpha, dtype_name):
    """Expected y bits and the any-NaN mask for x given as storage bits."""
    return scaled(x_bits, x_bits, alpha, dtype_name)


def backward(dy_bits, x_bits, alpha, dtype_name):
    """Expected dx bits (from x) and the any-NaN mask."""
    return scaled(x_bits, dy_bits, alpha, dtype_name)


def assert_bits(actual_bits, expected, any_nan, dtype_name, context=""):
    """actual equals expected bit for bit, except any NaN where allowed."""
    actual_bits = np.asarray(actual_bits)
    assert actual_bits.shape == expected.shape, context
    actual_is_nan = np.isnan(to_compute(actual_bits, dtype_name))
    wrong = np.where(any_nan, ~actual_is_nan, actual_bits != expected)
    if wrong.any():
        i = np.flatnonzero(wrong)[:5]
        flat_a = actual_bits.reshape(-1)[i]
        flat_e = expected.reshape(-1)[i]
        raise AssertionError(
            f"{context}: {wrong.sum()} of {wrong.size} elements differ; first "
            f"at {i.tolist()}: got {[hex(v) for v in flat_a]}, want "
            f"{[hex(v) for v in flat_e]}")


def special_bits(dtype_name):
    """Signed zeros, infinities, NaNs (quiet, signalling, negative, with
    payloads), subnormals, extremes and ordinary values, as storage bits."""
    if dtype_name in ("float16", "bfloat16"):
        # Every 16-bit pattern: exhaustive.
        return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    return contract_bits.special_bits(dtype_name)


def random_bits(dtype_name, n, rng):
    """n uniformly random bit patterns: every class of value shows up."""
    u = uint_type(dtype_name)
    return rng.integers(0, np.iinfo(u).max, size=n, dtype=u, endpoint=True)


def random_values(dtype_name, n, rng, scale=4.0):
    """n normally distributed values as storage bits (no zeros, no NaNs)."""
    values = (rng.standard_normal(n) * scale)
    if dtype_name == "float64":
        return values.view(np.uint64)
    return round_to_storage(values.astype(np.float32), dtype_name)
