"""The one Python module of lrelu's dtypes and its oracle (docs/design.md).

The dtype table (names, C tags, storage types, bit layouts), the NaN and
sign tests on bits, exact float16/bfloat16 <-> float32 conversions, the
special values every check covers, and contract v1's arithmetic. The
contract generators (contract/, contract/prelu/) write the contract files
with it; the CLI, GPU and bench checks (tests/cli, tests/gpu, bench/py)
import it; tests/python/lrelu_oracle.py is the one deliberately independent
second oracle.

Every tensor in the contract files is a list of hex strings holding the raw
bits of the storage type, so values such as -0, NaN payloads and subnormals
survive JSON exactly. This module converts between those bit patterns, numpy
values and the contract's arithmetic (compute in float32 for float32, float16
and bfloat16; in float64 for float64; round-to-nearest-even to storage).

Run with /usr/bin/python3 (Debian's numpy). Modules outside contract/ put
contract/ on sys.path and `import bits`.
"""

import struct

import numpy as np

# dtype name -> (unsigned storage type, hex digits, compute type).
FORMATS = {
    "float32": (np.uint32, 8, np.float32),
    "float16": (np.uint16, 4, np.float32),
    "bfloat16": (np.uint16, 4, np.float32),
    "float64": (np.uint64, 16, np.float64),
}
DTYPES = ("float32", "float16", "bfloat16", "float64")
# dtype name -> lrelu_dtype_t (include/lrelu/lrelu.h).
TAGS = {"float32": 1, "float16": 2, "bfloat16": 3, "float64": 4}
NAMES = {tag: name for name, tag in TAGS.items()}

# (exponent bits, explicit mantissa bits) of each storage format.
LAYOUT = {
    "float32": (8, 23),
    "float16": (5, 10),
    "bfloat16": (8, 7),
    "float64": (11, 52),
}


def utype(dtype):
  return FORMATS[dtype][0]


def hex_digits(dtype):
  return FORMATS[dtype][1]


def compute_type(dtype):
  return FORMATS[dtype][2]


def to_hex(bits, dtype):
  """Bit patterns (uint array) -> list of fixed-width lowercase hex strings."""
  width = hex_digits(dtype)
  return ["%0*x" % (width, int(b)) for b in np.asarray(bits).reshape(-1)]


def from_hex(strings, dtype):
  return np.array([int(s, 16) for s in strings], dtype=utype(dtype))


def bf16_round(f32_values):
  """float32 values -> bfloat16 bits, round-to-nearest-even.

  NaN keeps its sign and top payload bits and is forced quiet, the way
  PyTorch's c10::BFloat16 does; the contract accepts any NaN there anyway.
  """
  f32 = np.atleast_1d(np.asarray(f32_values, dtype=np.float32))
  u = f32.view(np.uint32).astype(np.uint64)
  sixteen = np.uint64(16)
  rounded = (u + np.uint64(0x7FFF) + ((u >> sixteen) & np.uint64(1))) >> sixteen
  quiet = (u >> sixteen) | np.uint64(0x0040)
  out = np.where(np.isnan(f32), quiet, rounded).astype(np.uint16)
  return out.reshape(np.shape(f32_values))


def to_compute(bits, dtype):
  """Storage bits -> values in the compute type (exact widening)."""
  bits = np.asarray(bits, dtype=utype(dtype))
  if dtype == "float32":
    return bits.view(np.float32)
  if dtype == "float64":
    return bits.view(np.float64)
  if dtype == "float16":
    return bits.view(np.float16).astype(np.float32)
  return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def from_compute(values, dtype):
  """Compute-type values -> storage bits, round-to-nearest-even."""
  with np.errstate(all="ignore"):
    if dtype == "float32":
      return np.asarray(values, dtype=np.float32).view(np.uint32)
    if dtype == "float64":
      return np.asarray(values, dtype=np.float64).view(np.uint64)
    if dtype == "float16":
      return np.asarray(values, dtype=np.float32).astype(np.float16).view(
          np.uint16)
    return bf16_round(values)


def from_double(values, dtype):
  """Python/float64 values -> storage bits (one RNE rounding, via float64).

  For float16 numpy rounds float64 -> float16 directly. For bfloat16 the
  value goes through float32 first, which is fine for the generator's inputs
  (small integers and float32 data).
  """
  with np.errstate(all="ignore"):
    values = np.asarray(values, dtype=np.float64)
    if dtype == "float64":
      return values.view(np.uint64)
    if dtype == "float16":
      return values.astype(np.float16).view(np.uint16)
    f32 = values.astype(np.float32)
    if dtype == "float32":
      return f32.view(np.uint32)
    return bf16_round(f32)


def compute_alpha(alpha, dtype):
  """alpha as the contract uses it: float32 once for the float32-computed
  dtypes, the double itself for float64."""
  with np.errstate(all="ignore"):
    return compute_type(dtype)(alpha)


def is_nan_bits(bits, dtype):
  exp_bits, man_bits = LAYOUT[dtype]
  bits = np.asarray(bits).astype(np.uint64)
  exp_mask = np.uint64((1 << exp_bits) - 1)
  man_mask = np.uint64((1 << man_bits) - 1)
  return (((bits >> np.uint64(man_bits)) & exp_mask) == exp_mask) & (
      (bits & man_mask) != 0)


def is_negative_bits(bits, dtype):
  """value < 0 on bits: negative finite values and -inf, not -0 or a NaN."""
  exp_bits, man_bits = LAYOUT[dtype]
  sign = np.uint64(1 << (exp_bits + man_bits))
  inf = np.uint64(((1 << exp_bits) - 1) << man_bits)
  bits = np.asarray(bits).astype(np.uint64)
  magnitude = bits & (sign - np.uint64(1))
  return ((bits & sign) != 0) & (magnitude != 0) & (magnitude <= inf)


def mismatches(s_bits, expected, actual, dtype):
  """Indices where `actual` is wrong: bits differ, except that where s < 0
  and the oracle's product is a NaN any NaN is right (contract v1)."""
  expected = np.asarray(expected).reshape(-1)
  actual = np.asarray(actual).reshape(-1)
  s_bits = np.asarray(s_bits).reshape(-1)
  ok = (expected == actual) | (is_negative_bits(s_bits, dtype) & is_nan_bits(
      expected, dtype) & is_nan_bits(actual, dtype))
  return np.flatnonzero(~ok)


def multiply(alpha, values_bits, dtype):
  """alpha * v in the contract's way. Returns (storage bits, product is NaN)."""
  a = compute_alpha(alpha, dtype)
  v = to_compute(values_bits, dtype)
  with np.errstate(all="ignore"):
    product = (a * v).astype(compute_type(dtype))
  return from_compute(product, dtype), np.isnan(product)


def forward(x_bits, alpha, dtype):
  """y = x < 0 ? alpha * x : x. Returns (y bits, mask of produced NaNs)."""
  x_bits = np.asarray(x_bits, dtype=utype(dtype))
  negative = to_compute(x_bits, dtype) < 0
  product, nan = multiply(alpha, x_bits, dtype)
  y = np.where(negative, product, x_bits).astype(utype(dtype))
  return y, negative & nan


def backward(dy_bits, s_bits, alpha, dtype):
  """dx = s < 0 ? alpha * dy : dy (s = x, or y when alpha > 0)."""
  dy_bits = np.asarray(dy_bits, dtype=utype(dtype))
  negative = to_compute(np.asarray(s_bits, dtype=utype(dtype)), dtype) < 0
  product, nan = multiply(alpha, dy_bits, dtype)
  dx = np.where(negative, product, dy_bits).astype(utype(dtype))
  return dx, negative & nan


class Format:
  """Named bit patterns of one storage format."""

  def __init__(self, dtype):
    e, m = LAYOUT[dtype]
    self.dtype = dtype
    self.sign = 1 << (e + m)
    self.exp_all = ((1 << e) - 1) << m
    self.quiet = 1 << (m - 1)
    self.one = ((1 << (e - 1)) - 1) << m
    self.min_sub = 1
    self.max_sub = (1 << m) - 1
    self.min_normal = 1 << m
    self.max_finite = self.exp_all - 1
    self.inf = self.exp_all
    self.qnan = self.exp_all | self.quiet

  def neg(self, b):
    return b | self.sign

  def value(self, v):
    return int(from_double([v], self.dtype)[0])


def special_bits(dtype):
  """Every special value of a dtype, as bit patterns, in a fixed order."""
  f = Format(dtype)
  pos = [
      0, f.inf, f.min_sub, f.max_sub, f.min_normal, f.max_finite, f.one,
      f.one - 1, f.one + 1, f.value(0.5), f.value(2.0), f.value(3.0),
      f.value(0.1), f.min_normal + 1, f.min_sub + 1
  ]
  nans = [
      f.qnan,  # canonical quiet NaN
      f.neg(f.qnan),  # negative quiet NaN
      f.qnan | 1,  # quiet NaN with payload
      f.neg(f.qnan | 0x5),  # negative quiet NaN with payload
      f.exp_all | 1,  # signalling NaN, payload 1
      f.neg(f.exp_all | 1),  # negative signalling NaN
      f.exp_all | (f.quiet - 1),  # signalling NaN, largest payload
  ]
  out = []
  for b in pos:
    out += [b, f.neg(b)]
  return np.array(out + nans, dtype=utype(dtype))


def alpha_text(alpha):
  """A decimal string that float() and strtod() read back exactly."""
  if alpha != alpha:
    return "nan"
  if alpha in (float("inf"), float("-inf")):
    return "inf" if alpha > 0 else "-inf"
  text = repr(float(alpha))
  return text[:-2] if text.endswith(".0") else text


def alpha_attribute(alpha):
  """The contract's encoding of alpha: the float64 the caller passes (exact),
  the float32 it rounds to for the float32-computed dtypes, and text."""
  f64 = struct.pack(">d", alpha).hex()
  with np.errstate(all="ignore"):
    f32 = "%08x" % int(np.array([alpha], dtype=np.float32).view(np.uint32)[0])
  return {"text": alpha_text(alpha), "f64": f64, "f32": f32}
