"""PReLU's dalpha as the tests expect it: the exact sum (fractions.Fraction)
of the float64 products x * dy over x < 0 along alpha's broadcast axes,
rounded once with the contract generator's rounding
(contract/prelu/generate.py: to nearest even, to the dtype). Shared by the
Python, JAX and MEX tests."""
import importlib.util
import os
from fractions import Fraction

import numpy as np


def _generator():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "contract", "prelu", "generate.py")
    spec = importlib.util.spec_from_file_location("prelu_generate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: round_fraction(q, dtype_name) -> float64 holding q rounded once to dtype.
round_fraction = _generator().round_fraction


def exact_dalpha(x, dy, alpha_shape, dtype_name):
    """dalpha of alpha_shape (float64 values) for x and dy of one shape."""
    xv = np.asarray(x).astype(np.float64)
    dyv = np.asarray(dy).astype(np.float64)
    count = int(np.prod(alpha_shape, dtype=np.int64))
    index = np.broadcast_to(np.arange(count).reshape(alpha_shape), xv.shape)
    sums = [Fraction(0)] * count
    for k, xi, di in zip(index.ravel(), xv.ravel(), dyv.ravel()):
        if xi < 0:
            sums[k] += Fraction(float(xi)) * Fraction(float(di))
    return np.array([round_fraction(s, dtype_name) for s in sums],
                    np.float64).reshape(alpha_shape)
