"""Test data and the bit-level comparison, mirroring bench/cpp/data.cc.

bfloat16 has no NumPy type: it is stored as uint16 and viewed as
torch.bfloat16 where a peer needs it.
"""
import numpy as np

NP_TYPES = {'f32': np.float32, 'f16': np.float16, 'f64': np.float64,
            'bf16': np.uint16}
UINT = {'f32': np.uint32, 'f16': np.uint16, 'f64': np.uint64,
        'bf16': np.uint16}
# bits, sign, exponent mask, fraction mask
LAYOUT = {
    'f32': (32, 1 << 31, 0x7f800000, 0x7fffff),
    'f16': (16, 0x8000, 0x7c00, 0x3ff),
    'bf16': (16, 0x8000, 0x7f80, 0x7f),
    'f64': (64, 1 << 63, 0x7ff0000000000000, (1 << 52) - 1),
}
ALPHA = 0.01


def to_bf16_bits(f32):
    """float32 array -> bfloat16 bits, round to nearest even."""
    u = f32.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_double(dtype, values):
    if dtype == 'bf16':
        return to_bf16_bits(values.astype(np.float32))
    if dtype == 'f16':
        return values.astype(np.float32).astype(np.float16)
    return values.astype(NP_TYPES[dtype])


def uniform(dtype, n, seed=1):
    """n values uniform in [-1, 1), as contract/v1/bench.json specifies."""
    rng = np.random.default_rng(seed)
    return from_double(dtype, rng.uniform(-1.0, 1.0, n))


def with_specials(dtype, n, seed=7):
    """[-4, 4) with +-0, +-inf, +-qNaN, sNaN and +-subnormals mixed in."""
    _, sign, exp, frac = LAYOUT[dtype]
    quiet = exp | ((frac + 1) >> 1)
    specials = [0, sign, exp, sign | exp, quiet, sign | quiet,
                exp | ((frac + 1) >> 2), frac, sign | frac, sign | 1]
    rng = np.random.default_rng(seed)
    x = from_double(dtype, rng.uniform(-4.0, 4.0, n)).view(UINT[dtype]).copy()
    pick = rng.integers(0, 3 * len(specials), n)
    mask = pick < len(specials)
    x[mask] = np.array(specials, dtype=np.uint64)[pick[mask]].astype(
        UINT[dtype])
    return x.view(NP_TYPES[dtype])


def reference(dtype, x, alpha=ALPHA):
    """The contract: x < 0 ? alpha * x : x, product in float32 (float64 for
    f64) rounded once to the storage type; everything not negative keeps its
    bits."""
    if dtype == 'f64':
        return np.where(x < 0, x * alpha, x)
    if dtype == 'bf16':
        wide = (x.astype(np.uint32) << 16).view(np.float32)
        prod = to_bf16_bits(wide * np.float32(alpha))
        return np.where(wide < 0, prod, x)
    wide = x.astype(np.float32)
    prod = (wide * np.float32(alpha)).astype(NP_TYPES[dtype])
    return np.where(wide < 0, prod, x)


def compare(dtype, expected, actual):
    """Counts as in bench/cpp/data.cc: value, NaN-bit, zero-sign diffs."""
    _, sign, exp, frac = LAYOUT[dtype]
    u = UINT[dtype]
    e = np.ascontiguousarray(expected).view(u).astype(np.uint64)
    a = np.ascontiguousarray(actual).view(u).astype(np.uint64)
    differ = e != a
    e, a = e[differ], a[differ]
    e_nan = ((e & exp) == exp) & ((e & frac) != 0)
    a_nan = ((a & exp) == exp) & ((a & frac) != 0)
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
