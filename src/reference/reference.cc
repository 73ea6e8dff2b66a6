#include "reference/reference.h"

#include <cmath>
#include <cstring>

namespace lrelu::reference {
namespace {

template <typename To, typename From>
To Bits(From from) {
  static_assert(sizeof(To) == sizeof(From), "size mismatch");
  To to;
  std::memcpy(&to, &from, sizeof(to));
  return to;
}

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

float HalfToFloat(uint16_t h) {
  const bool negative = (h & 0x8000) != 0;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0x1f) {
    if (mantissa == 0) {
      magnitude = INFINITY;
    } else {
      // Keep the payload and make it quiet, as hardware conversions do.
      const uint32_t bits =
          0x7f800000u | 0x00400000u | (static_cast<uint32_t>(mantissa) << 13);
      magnitude = Bits<float>(bits);
    }
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
  }
  return negative ? -magnitude : magnitude;
}

uint16_t FloatToHalf(float f) {
  const uint32_t bits = Bits<uint32_t>(f);
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

float BFloat16ToFloat(uint16_t b) {
  return Bits<float>(static_cast<uint32_t>(b) << 16);
}

uint16_t FloatToBFloat16(float f) {
  const uint32_t bits = Bits<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((bits >> 16) | 0x0040);
  const uint32_t upper = bits >> 16;
  const uint32_t lower = bits & 0xffff;
  const bool round_up = lower > 0x8000 || (lower == 0x8000 && (upper & 1));
  return static_cast<uint16_t>(upper + (round_up ? 1 : 0));
}

uint32_t ForwardF32(uint32_t x, float alpha) {
  const float v = Bits<float>(x);
  return v < 0.0f ? Bits<uint32_t>(alpha * v) : x;
}

uint16_t ForwardF16(uint16_t x, float alpha) {
  const float v = HalfToFloat(x);
  return v < 0.0f ? FloatToHalf(alpha * v) : x;
}

uint16_t ForwardBF16(uint16_t x, float alpha) {
  const float v = BFloat16ToFloat(x);
  return v < 0.0f ? FloatToBFloat16(alpha * v) : x;
}

uint64_t ForwardF64(uint64_t x, double alpha) {
  const double v = Bits<double>(x);
  return v < 0.0 ? Bits<uint64_t>(alpha * v) : x;
}

uint32_t BackwardF32(uint32_t dy, uint32_t s, float alpha) {
  return Bits<float>(s) < 0.0f ? Bits<uint32_t>(alpha * Bits<float>(dy)) : dy;
}

uint16_t BackwardF16(uint16_t dy, uint16_t s, float alpha) {
  return HalfToFloat(s) < 0.0f ? FloatToHalf(alpha * HalfToFloat(dy)) : dy;
}

uint16_t BackwardBF16(uint16_t dy, uint16_t s, float alpha) {
  return BFloat16ToFloat(s) < 0.0f
             ? FloatToBFloat16(alpha * BFloat16ToFloat(dy))
             : dy;
}

uint64_t BackwardF64(uint64_t dy, uint64_t s, double alpha) {
  return Bits<double>(s) < 0.0 ? Bits<uint64_t>(alpha * Bits<double>(dy)) : dy;
}

namespace {

// Loads and stores through memcpy: any alignment is allowed.
template <typename T, typename F>
void Loop(const void* v, const void* s, void* out, size_t n, F f) {
  const auto* pv = static_cast<const unsigned char*>(v);
  const auto* ps = static_cast<const unsigned char*>(s);
  auto* po = static_cast<unsigned char*>(out);
  for (size_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, pv + i * sizeof(T), sizeof(T));
    std::memcpy(&b, ps + i * sizeof(T), sizeof(T));
    const T r = f(a, b);
    std::memcpy(po + i * sizeof(T), &r, sizeof(T));
  }
}

}  // namespace

void Apply(lrelu_dtype_t dtype, const void* v, const void* s, void* out,
           size_t n, double alpha) {
  const float alpha32 = static_cast<float>(alpha);
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32:
      Loop<uint32_t>(v, s, out, n, [alpha32](uint32_t a, uint32_t b) {
        return BackwardF32(a, b, alpha32);
      });
      break;
    case LRELU_DTYPE_FLOAT16:
      Loop<uint16_t>(v, s, out, n, [alpha32](uint16_t a, uint16_t b) {
        return BackwardF16(a, b, alpha32);
      });
      break;
    case LRELU_DTYPE_BFLOAT16:
      Loop<uint16_t>(v, s, out, n, [alpha32](uint16_t a, uint16_t b) {
        return BackwardBF16(a, b, alpha32);
      });
      break;
    case LRELU_DTYPE_FLOAT64:
      Loop<uint64_t>(v, s, out, n, [alpha](uint64_t a, uint64_t b) {
        return BackwardF64(a, b, alpha);
      });
      break;
    default:  // validated by the caller
      break;
  }
}

}  // namespace lrelu::reference
