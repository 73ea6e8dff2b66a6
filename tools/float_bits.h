// Scalar conversions between float32 and the 16-bit storage types, written
// out plainly so that `lrelu demo` can check the library against code that
// shares nothing with it. Rounding is to nearest, ties to even (contract v1).
#ifndef LRELU_TOOLS_FLOAT_BITS_H_
#define LRELU_TOOLS_FLOAT_BITS_H_

#include <cstdint>
#include <cstring>

namespace lrelu_cli {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
inline uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}
inline double BitsToDouble(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof(d));
  return d;
}

// IEEE binary16 -> float32 (exact).
float HalfToFloat(uint16_t h);
// float32 -> binary16, round to nearest even; NaN stays NaN.
uint16_t FloatToHalf(float f);
// bfloat16 -> float32 (exact: the upper 16 bits).
inline float BFloat16ToFloat(uint16_t b) {
  return BitsToFloat(static_cast<uint32_t>(b) << 16);
}
// float32 -> bfloat16, round to nearest even; NaN stays NaN.
uint16_t FloatToBFloat16(float f);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_FLOAT_BITS_H_
