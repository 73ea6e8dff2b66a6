// alpha rounded to float32 (contract v1: once, round-to-nearest-even, no
// flush) in integer arithmetic. A float conversion would follow the
// caller's floating-point environment: under FTZ an alpha that rounds to a
// float32 subnormal became 0, under round-toward-zero 0.1 became 0x3dcccccc.
// Header-only so that host code of every backend (CUDA's .cu included) can
// use it.
#ifndef LRELU_SRC_CORE_FLOAT32_H_
#define LRELU_SRC_CORE_FLOAT32_H_

#include <cstdint>
#include <cstring>

namespace lrelu {

// The float32 nearest to `value`, ties to even; subnormals kept, overflow to
// inf, NaN quieted with its sign and top payload bits (as the hardware
// conversion does in the default environment).
inline float RoundToFloat32(double value) {
  uint64_t b;
  std::memcpy(&b, &value, sizeof(b));
  const uint32_t sign = static_cast<uint32_t>(b >> 63) << 31;
  const int biased = static_cast<int>((b >> 52) & 0x7ff);
  const uint64_t mantissa = b & ((uint64_t{1} << 52) - 1);
  uint32_t bits;
  if (biased == 0x7ff) {
    bits = mantissa == 0 ? 0x7f800000u
                         : 0x7fc00000u | static_cast<uint32_t>(mantissa >> 29);
  } else {
    // value = significand * 2^(exponent - 52), significand < 2^53.
    const int exponent = biased == 0 ? -1022 : biased - 1023;
    const uint64_t significand =
        biased == 0 ? mantissa : mantissa | (uint64_t{1} << 52);
    if (exponent > 127) {
      bits = 0x7f800000u;
    } else {
      // Keep 24 bits for a float32 normal, fewer below 2^-126.
      const int shift = 29 + (exponent < -126 ? -126 - exponent : 0);
      if (shift >= 64) {
        bits = 0;  // below half the smallest subnormal
      } else {
        uint64_t q = significand >> shift;
        const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
        const uint64_t half = uint64_t{1} << (shift - 1);
        if (rest > half || (rest == half && (q & 1) != 0)) ++q;
        // A normal's q carries the implicit bit into the exponent field; a
        // carry out of the significand moves the exponent up by one.
        bits = exponent >= -126
                   ? (static_cast<uint32_t>(exponent + 126) << 23) +
                         static_cast<uint32_t>(q)
                   : static_cast<uint32_t>(q);
        if (bits > 0x7f800000u) bits = 0x7f800000u;
      }
    }
  }
  bits |= sign;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// Tests on bits: a comparison such as `alpha > 0` would see the caller's
// DAZ (a subnormal compares equal to 0 then).
inline bool IsPositive(double value) {  // > 0: not NaN, not +-0, sign clear
  uint64_t b;
  std::memcpy(&b, &value, sizeof(b));
  return (b >> 63) == 0 && b != 0 && b <= 0x7ff0000000000000u;
}
inline bool IsFiniteNonZero(double value) {
  uint64_t b;
  std::memcpy(&b, &value, sizeof(b));
  b &= ~(uint64_t{1} << 63);
  return b != 0 && b < 0x7ff0000000000000u;
}
inline bool IsFiniteNonZero(float value) {
  uint32_t b;
  std::memcpy(&b, &value, sizeof(b));
  b &= 0x7fffffffu;
  return b != 0 && b < 0x7f800000u;
}

// alpha in a backend's compute type (float: as above; double: as given).
inline float AlphaFor(double alpha, float) { return RoundToFloat32(alpha); }
inline double AlphaFor(double alpha, double) { return alpha; }

}  // namespace lrelu

#endif  // LRELU_SRC_CORE_FLOAT32_H_
