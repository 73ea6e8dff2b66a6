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

std::vector<unsigned char> StoredBits(lrelu_dtype_t dtype,
                                      const std::vector<uint64_t>& bits) {
  std::vector<unsigned char> out(bits.size() * lrelu_dtype_size(dtype));
  for (size_t i = 0; i < bits.size(); ++i)
    StoreBits(dtype, out.data(), i, bits[i]);
  return out;
}

}  // namespace lrelu::testing
