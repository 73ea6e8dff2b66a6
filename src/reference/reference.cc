#include "reference/reference.h"

#include <cstring>

namespace lrelu::reference {
uint32_t ForwardF32(uint32_t x, float alpha) {
  const float v = BitCast<float>(x);
  return v < 0.0f ? BitCast<uint32_t>(alpha * v) : x;
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
  const double v = BitCast<double>(x);
  return v < 0.0 ? BitCast<uint64_t>(alpha * v) : x;
}

uint32_t BackwardF32(uint32_t dy, uint32_t s, float alpha) {
  return BitCast<float>(s) < 0.0f
             ? BitCast<uint32_t>(alpha * BitCast<float>(dy))
             : dy;
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
  return BitCast<double>(s) < 0.0
             ? BitCast<uint64_t>(alpha * BitCast<double>(dy))
             : dy;
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

bool ElementMatches(lrelu_dtype_t dtype, uint64_t s_bits, uint64_t expected,
                    uint64_t actual) {
  if (expected == actual) return true;
  // Only a computed lane (s < 0) may differ, and only NaN for NaN.
  return IsNegativeBits(dtype, s_bits) && IsNaNBits(dtype, expected) &&
         IsNaNBits(dtype, actual);
}

}  // namespace lrelu::reference
