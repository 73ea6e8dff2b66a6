"""Bit-pattern helpers for the contract generator and its tests.

Every tensor in the contract files is a list of hex strings holding the raw
bits of the storage type, so values such as -0, NaN payloads and subnormals
survive JSON exactly. This module converts between those bit patterns, numpy
values and the contract's arithmetic (compute in float32 for float32, float16
and bfloat16; in float64 for float64; round-to-nearest-even to storage).

Run with /usr/bin/python3 (Debian's numpy).
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
