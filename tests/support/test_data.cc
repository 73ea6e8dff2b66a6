#include "support/test_data.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "reference/reference.h"

namespace lrelu::testing {

std::vector<lrelu_dtype_t> AllDTypes() {
  return {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16,
          LRELU_DTYPE_FLOAT64};
}

std::vector<double> SweepAlphas() {
  return {0.01,
          0.2,
          0.0,
          -0.5,
          1.5,
          std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity(),
          std::numeric_limits<double>::quiet_NaN(),
          -0.0,
          1e-30,
          3e38};
}

uint64_t LoadBits(lrelu_dtype_t dtype, const void* base, size_t i) {
  const size_t size = lrelu_dtype_size(dtype);
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const unsigned char*>(base) + i * size, size);
  return bits;
}

void StoreBits(lrelu_dtype_t dtype, void* base, size_t i, uint64_t bits) {
  const size_t size = lrelu_dtype_size(dtype);
  std::memcpy(static_cast<unsigned char*>(base) + i * size, &bits, size);
}

bool IsNaNBits(lrelu_dtype_t dtype, uint64_t bits) {
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32:
      return (bits & 0x7fffffffu) > 0x7f800000u;
    case LRELU_DTYPE_FLOAT16:
      return (bits & 0x7fffu) > 0x7c00u;
    case LRELU_DTYPE_BFLOAT16:
      return (bits & 0x7fffu) > 0x7f80u;
    case LRELU_DTYPE_FLOAT64:
      return (bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
  }
  return false;
}

bool IsNegativeBits(lrelu_dtype_t dtype, uint64_t bits) {
  const size_t size = lrelu_dtype_size(dtype);
  const uint64_t sign = uint64_t{1} << (size * 8 - 1);
  const uint64_t magnitude = bits & (sign - 1);
  return (bits & sign) != 0 && magnitude != 0 && !IsNaNBits(dtype, bits);
}

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
          0x0000000000000001ull, 0x8000000000000001ull, 0x000fffffffffffffull,
          0x800fffffffffffffull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
          0x3ff0000000000000ull, 0xbff0000000000000ull, 0xc008000000000000ull};
  }
  return {};
}

std::vector<unsigned char> RandomBits(lrelu_dtype_t dtype, size_t n,
                                      std::mt19937_64& rng) {
  const size_t size = lrelu_dtype_size(dtype);
  std::vector<unsigned char> data(n * size);
  const std::vector<uint64_t> specials = SpecialBits(dtype);
  std::normal_distribution<double> normal(0.0, 4.0);
  std::uniform_int_distribution<int> pick(0, 9);
  for (size_t i = 0; i < n; ++i) {
    const int kind = pick(rng);
    uint64_t bits;
    if (kind == 0) {
      bits = specials[rng() % specials.size()];
    } else if (kind == 1) {
      bits = rng();  // any bit pattern at all
    } else {
      const double value = normal(rng);
      switch (dtype) {
        case LRELU_DTYPE_FLOAT32: {
          const float f = static_cast<float>(value);
          uint32_t b;
          std::memcpy(&b, &f, 4);
          bits = b;
          break;
        }
        case LRELU_DTYPE_FLOAT16:
          bits = reference::FloatToHalf(static_cast<float>(value));
          break;
        case LRELU_DTYPE_BFLOAT16:
          bits = reference::FloatToBFloat16(static_cast<float>(value));
          break;
        default:
          std::memcpy(&bits, &value, 8);
          break;
      }
    }
    StoreBits(dtype, data.data(), i, bits);
  }
  return data;
}

bool ElementMatches(lrelu_dtype_t dtype, uint64_t s_bits, uint64_t expected,
                    uint64_t actual) {
  if (expected == actual) return true;
  // Only a computed lane (s < 0) may differ, and only NaN for NaN.
  return IsNegativeBits(dtype, s_bits) && IsNaNBits(dtype, expected) &&
         IsNaNBits(dtype, actual);
}

std::string Hex(uint64_t bits, size_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%0*" PRIx64,
                static_cast<int>(bytes * 2), bits);
  return buffer;
}

std::string CompareWithReference(lrelu_dtype_t dtype, const void* v,
                                 const void* s, const void* actual, size_t n,
                                 double alpha) {
  const size_t size = lrelu_dtype_size(dtype);
  std::vector<unsigned char> expected(n * size);
  reference::Apply(dtype, v, s, expected.data(), n, alpha);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t e = LoadBits(dtype, expected.data(), i);
    const uint64_t a = LoadBits(dtype, actual, i);
    const uint64_t sb = LoadBits(dtype, s, i);
    if (!ElementMatches(dtype, sb, e, a)) {
      return "element " + std::to_string(i) + " of " + std::to_string(n) +
             ": v=" + Hex(LoadBits(dtype, v, i), size) + " s=" + Hex(sb, size) +
             " expected " + Hex(e, size) + " got " + Hex(a, size) + " (alpha " +
             std::to_string(alpha) + ")";
    }
  }
  return "";
}

}  // namespace lrelu::testing
