"""An independent NumPy oracle for lrelu contract v1, on raw bits.

It shares nothing with the library: float16 rounding is NumPy's, bfloat16
widening and rounding are done here on integers. Products that are NaN
(alpha NaN, -inf * 0) may be any NaN, so the oracle returns where that is
allowed alongside the expected bits.
"""
import numpy as np

STORAGE = {
    "float16": (np.float16, np.uint16),
    "bfloat16": (None, np.uint16),
    "float32": (np.float32, np.uint32),
    "float64": (np.float64, np.uint64),
}
DTYPES = tuple(STORAGE)


def uint_type(dtype_name):
    return STORAGE[dtype_name][1]


def to_compute(bits, dtype_name):
    """The values of storage bits in the compute type (float32, or float64)."""
    if dtype_name == "bfloat16":
        return (bits.astype(np.uint32) << 16).view(np.float32)
    if dtype_name == "float64":
        return bits.view(np.float64)
    return bits.view(STORAGE[dtype_name][0]).astype(np.float32)


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
    if dtype_name == "float32":
        patterns = [
            0x00000000, 0x80000000, 0x7F800000, 0xFF800000,  # +-0, +-inf
            0x7FC00000, 0x7FC12345, 0xFFC00000, 0xFFC54321,  # quiet NaNs
            0x7F800001, 0x7FA00000, 0xFF800001, 0xFFB00123,  # signalling
            0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF,  # subnormals
            0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF,  # min/max normal
            0x3F800000, 0xBF800000, 0xBFC00000, 0xC0490FDB,  # 1, -1, -1.5, -pi
            0x80400000, 0x80000003, 0x81000001, 0xFE800000,  # near underflow
        ]
        return np.array(patterns, dtype=np.uint32)
    patterns = [
        0x0000000000000000, 0x8000000000000000,
        0x7FF0000000000000, 0xFFF0000000000000,
        0x7FF8000000000000, 0x7FF8000000012345,
        0xFFF8000000000000, 0xFFF8000000054321,
        0x7FF0000000000001, 0x7FF4000000000000,
        0xFFF0000000000001, 0xFFF4000000000123,
        0x0000000000000001, 0x8000000000000001,
        0x000FFFFFFFFFFFFF, 0x800FFFFFFFFFFFFF,
        0x0010000000000000, 0x8010000000000000,
        0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
        0x3FF0000000000000, 0xBFF0000000000000,
        0xBFF8000000000000, 0xC00921FB54442D18,
        0x8008000000000000, 0x8000000000000003,
    ]
    return np.array(patterns, dtype=np.uint64)


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
