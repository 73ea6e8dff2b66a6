"""Test data and the bit-level comparison, mirroring bench/cpp/data.cc.

bfloat16 has no NumPy type: it is stored as uint16 and viewed as
torch.bfloat16 where a peer needs it.
"""
import os
import sys

import numpy as np

# The one Python dtype table and oracle (contract/bits.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "contract"))
import bits  # noqa: E402  pylint: disable=wrong-import-position

NP_TYPES = {'f32': np.float32, 'f16': np.float16, 'f64': np.float64,
            'bf16': np.uint16}
UINT = {'f32': np.uint32, 'f16': np.uint16, 'f64': np.uint64,
        'bf16': np.uint16}
# Short name -> the dtype table's name.
NAME = {'f32': 'float32', 'f16': 'float16', 'bf16': 'bfloat16',
        'f64': 'float64'}
ALPHA = 0.01


def from_double(dtype, values):
    if dtype == 'bf16':
        return bits.bf16_round(values.astype(np.float32))
    if dtype == 'f16':
        return values.astype(np.float32).astype(np.float16)
    return values.astype(NP_TYPES[dtype])


def uniform(dtype, n, seed=1):
    """n values uniform in [-1, 1), as contract/v1/bench.json specifies."""
    rng = np.random.default_rng(seed)
    return from_double(dtype, rng.uniform(-1.0, 1.0, n))


def with_specials(dtype, n, seed=7):
    """[-4, 4) with the dtype table's special values mixed in (one element
    in three), as bench/cpp/data.cc does."""
    specials = bits.special_bits(NAME[dtype])
    rng = np.random.default_rng(seed)
    x = from_double(dtype, rng.uniform(-4.0, 4.0, n)).view(UINT[dtype]).copy()
    pick = rng.integers(0, 3 * len(specials), n)
    mask = pick < len(specials)
    x[mask] = specials[pick[mask]]
    return x.view(NP_TYPES[dtype])


def reference(dtype, x, alpha=ALPHA):
    """The contract (contract/bits.py's forward), on x's values."""
    x_bits = np.ascontiguousarray(x).view(UINT[dtype])
    y_bits, _ = bits.forward(x_bits, alpha, NAME[dtype])
    return y_bits.view(NP_TYPES[dtype])


def compare(dtype, expected, actual):
    """Counts as in bench/cpp/data.cc: value, NaN-bit, zero-sign diffs."""
    exp_bits, man_bits = bits.LAYOUT[NAME[dtype]]
    sign = 1 << (exp_bits + man_bits)
    u = UINT[dtype]
    e = np.ascontiguousarray(expected).view(u).astype(np.uint64)
    a = np.ascontiguousarray(actual).view(u).astype(np.uint64)
    differ = e != a
    e, a = e[differ], a[differ]
    e_nan = bits.is_nan_bits(e, NAME[dtype])
    a_nan = bits.is_nan_bits(a, NAME[dtype])
    nan_bits = int(np.sum(e_nan & a_nan))
    nan_lost = int(np.sum(e_nan ^ a_nan))
    numbers = ~e_nan & ~a_nan
    zero = numbers & (((e | a) & ~np.uint64(sign)) == 0)
    value = numbers & ~zero

    def ordered(b):
        mag = (b & ~np.uint64(sign)).astype(np.int64)
        return np.where((b & np.uint64(sign)) != 0, -mag, mag)

    ulps = np.abs(ordered(e[value]) - ordered(a[value]))
    d = {'value': int(np.sum(value)), 'max_ulp': int(ulps.max(initial=0)),
         'nan_bits': nan_bits, 'zero_sign': int(np.sum(zero)),
         'nan_lost': nan_lost, 'n': int(expected.size)}
    exact = not (d['value'] or d['nan_bits'] or d['zero_sign'] or nan_lost)
    if exact:
        return True, 'bit-exact'
    text = (f"{d['value']} value diffs (max {d['max_ulp']} ulp), "
            f"{nan_bits} NaN-bit diffs, {d['zero_sign']} zero-sign diffs")
    if nan_lost:
        text += f', {nan_lost} NaN lost or made'
    return False, text + f" of {d['n']}"
