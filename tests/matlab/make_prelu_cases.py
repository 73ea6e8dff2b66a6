"""Writes the PReLU MEX tests' cases (lrelu.prelu, lrelu.prelu_backward)
with expected bits: y and dx from lrelu's independent NumPy oracle
(tests/python/lrelu_oracle.py), dalpha as the exact Fraction sum rounded
once (tests/python/exact_sums.py), as JSON for Octave.

Sizes are MATLAB's (column-major); NumPy works on the reversed sizes in
row-major order, the same memory, where MATLAB's left-aligned expansion is
NumPy's right-aligned broadcast. Bits travel as 32-bit words (float64: low
word, high word). Usage: make_prelu_cases.py OUT.json
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import lrelu_oracle as oracle  # noqa: E402
from exact_sums import exact_dalpha  # noqa: E402

# (X size, alpha size, X class, alpha class), MATLAB's sizes.
PATTERNS = [([4, 5, 3, 2], [1, 1, 3]), ([6, 4], [6, 1]), ([6, 4], [1, 4]),
            ([3, 4, 5], [3, 4, 5]), ([5, 1], [1, 1]), ([2, 3, 4], [2, 1, 4]),
            ([7, 1], [7, 1]), ([3, 4], [1, 1, 1]), ([0, 3], [1, 3])]
CLASSES = [("float32", "float32"), ("float64", "float64"),
           ("float32", "float64")]
MATLAB = {"float32": "single", "float64": "double"}


def words(bits):
    return np.ascontiguousarray(bits).view(np.uint32).tolist()


def matlab_size(size):
    """size as MATLAB keeps it: trailing ones dropped down to two."""
    size = list(size)
    while len(size) > 2 and size[-1] == 1:
        size.pop()
    return size


def case(x_size, alpha_size, dtype, alpha_dtype, rng):
    x_size, alpha_size = matlab_size(x_size), matlab_size(alpha_size)
    shape = tuple(reversed(x_size))
    alpha_shape = tuple(reversed(alpha_size))
    n = int(np.prod(shape, dtype=np.int64))
    na = int(np.prod(alpha_shape, dtype=np.int64))
    u, ua = oracle.uint_type(dtype), oracle.uint_type(alpha_dtype)
    # Forward: any bits for x, alpha from random values and specials.
    x_bits = oracle.random_bits(dtype, n, rng)
    alpha_bits = oracle.random_bits(alpha_dtype, na, rng)
    with np.errstate(invalid="ignore"):
        alpha_full = np.broadcast_to(
            alpha_bits.view(alpha_dtype).astype(np.float64).reshape(
                alpha_shape), shape).ravel()
    y, y_nan = oracle.forward(x_bits, alpha_full, dtype)
    # Gradient: finite values, so that the sums are numbers.
    xv = oracle.random_values(dtype, n, rng).view(dtype).reshape(shape)
    dyv = oracle.random_values(dtype, n, rng, 1e3).view(dtype).reshape(shape)
    av = oracle.random_values(alpha_dtype, na, rng, 1.0).view(alpha_dtype)
    a_full = np.broadcast_to(av.astype(np.float64).reshape(alpha_shape),
                             shape).ravel()
    dx, dx_nan = oracle.backward(dyv.view(u).ravel(), xv.view(u).ravel(),
                                 a_full, dtype)
    dalpha = exact_dalpha(xv, dyv, alpha_shape, alpha_dtype).ravel().astype(
        alpha_dtype)
    return {
        "name": f"{MATLAB[dtype]} X {x_size}, {MATLAB[alpha_dtype]} alpha "
                f"{alpha_size}",
        "class": MATLAB[dtype], "alpha_class": MATLAB[alpha_dtype],
        "x_size": x_size, "alpha_size": alpha_size,
        "x": words(x_bits), "alpha": words(alpha_bits), "y": words(y),
        "y_anynan": y_nan.astype(int).tolist(),
        "gx": words(xv.view(u).ravel()), "gdy": words(dyv.view(u).ravel()),
        "galpha": words(av.view(ua)), "dx": words(dx),
        "dx_anynan": dx_nan.astype(int).tolist(),
        "dalpha": words(dalpha.view(ua)),
    }


def main(out):
    rng = np.random.default_rng(15)
    cases = [case(x_size, alpha_size, dtype, alpha_dtype, rng)
             for dtype, alpha_dtype in CLASSES
             for x_size, alpha_size in PATTERNS]
    with open(out, "w") as f:
        json.dump(cases, f)


if __name__ == "__main__":
    main(sys.argv[1])
