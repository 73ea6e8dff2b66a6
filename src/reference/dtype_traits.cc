#include "reference/dtype_traits.h"

namespace lrelu::reference {
namespace {

// Rounds the non-negative integer `value` right by `shift` bits, to nearest
// with ties to even.
uint32_t ShiftRightRoundEven(uint64_t value, int shift) {
  if (shift <= 0) return static_cast<uint32_t>(value << -shift);
  if (shift >= 64) return 0;
  const uint64_t kept = value >> shift;
  const uint64_t rest = value & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  const bool round_up = rest > half || (rest == half && (kept & 1) != 0);
  return static_cast<uint32_t>(kept + (round_up ? 1 : 0));
}

}  // namespace

std::vector<uint64_t> SpecialBits(lrelu_dtype_t dtype) {
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32:
      return {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
              0xffc00000, 0x7fa00000, 0xffa00001, 0x7f800001, 0x7fc12345,
              0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000,
              0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000,
              0xc0400000, 0xbc23d70a, 0x80400000, 0xc2c80000};
    case LRELU_DTYPE_FLOAT16:
      return {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7d00, 0xfd01,
              0x7c01, 0x7e55, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400,
              0x7bff, 0xfbff, 0x3c00, 0xbc00, 0xc200, 0xa11f, 0x8200, 0xd640};
    case LRELU_DTYPE_BFLOAT16:
      return {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7fa0, 0xffa1,
              0x7f81, 0x7fd5, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080,
              0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0xc040, 0xbc24, 0x8040, 0xc2c8};
    case LRELU_DTYPE_FLOAT64:
      return {
          0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
          0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
          0x7ff4000000000000ull, 0xfff4000000000001ull, 0x7ff0000000000001ull,
          0x7ff8000000012345ull, 0x0000000000000001ull, 0x8000000000000001ull,
          0x000fffffffffffffull, 0x800fffffffffffffull, 0x0010000000000000ull,
          0x8010000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
          0x3ff0000000000000ull, 0xbff0000000000000ull, 0xc008000000000000ull,
          0xbf847ae147ae147bull, 0x8008000000000000ull, 0xc059000000000000ull};
    default:
      break;
  }
  return {};
}

uint32_t HalfBitsToFloatBits(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) {  // inf or NaN: the payload moves up unchanged
    return sign | 0x7f800000u | (mantissa << 13);
  }
  if (exponent != 0) return sign | ((exponent + 112) << 23) | (mantissa << 13);
  if (mantissa == 0) return sign;
  // Subnormal: normalise, so that the leading 1 becomes the implicit bit.
  int shift = 0;
  uint32_t m = mantissa;
  while ((m & 0x400u) == 0) {
    m <<= 1;
    ++shift;
  }
  return sign | static_cast<uint32_t>(113 - shift) << 23 | ((m & 0x3ffu) << 13);
}

uint16_t FloatBitsToHalfBits(uint32_t bits) {
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const int exponent = static_cast<int>((bits >> 23) & 0xff);
  const uint32_t mantissa = bits & 0x7fffff;
  if (exponent == 0xff) {
    if (mantissa == 0) return sign | 0x7c00;
    return static_cast<uint16_t>(sign | 0x7e00 | (mantissa >> 13));
  }
  if (exponent == 0) return sign;  // float32 subnormals are far below half's.
  // value = (mantissa | 1 << 23) * 2^(exponent - 150). In units of the
  // smallest half subnormal, 2^-24, that is a shift by exponent - 126.
  const uint64_t significand = mantissa | 0x800000u;
  const int unbiased = exponent - 127;
  if (unbiased >= 16) return sign | 0x7c00;  // >= 2^16 rounds to infinity.
  if (unbiased < -14) {
    // Subnormal half (or zero): count units of 2^-24.
    const uint32_t units = ShiftRightRoundEven(significand, 126 - exponent);
    return static_cast<uint16_t>(sign | units);  // may round up into 0x400.
  }
  // Normal half: 10 mantissa bits; a carry out of the mantissa bumps the
  // exponent, and past 0x7bff becomes infinity, which is right for RNE.
  const uint32_t rounded = ShiftRightRoundEven(significand, 13);
  const uint32_t biased = static_cast<uint32_t>(unbiased + 15);
  const uint32_t result = (biased << 10) + (rounded - 0x400);
  return static_cast<uint16_t>(sign | (result >= 0x7c00 ? 0x7c00 : result));
}

uint16_t FloatBitsToBFloat16Bits(uint32_t bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u) {  // NaN: quiet, same sign
    return static_cast<uint16_t>((bits >> 16) | 0x0040);
  }
  const uint32_t upper = bits >> 16;
  const uint32_t lower = bits & 0xffff;
  const bool round_up = lower > 0x8000 || (lower == 0x8000 && (upper & 1));
  return static_cast<uint16_t>(upper + (round_up ? 1 : 0));
}

}  // namespace lrelu::reference
