#include "demo_examples.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lrelu/lrelu.hpp"
#include "reference/dtype_traits.h"

namespace lrelu_cli {
namespace {

using lrelu::reference::BFloat16ToFloat;
using lrelu::reference::BitCast;
using lrelu::reference::FloatToBFloat16;
using lrelu::reference::FloatToHalf;
using lrelu::reference::HalfToFloat;

// y for float32 x, computed by the library.
std::vector<float> Apply(std::vector<float> x, double alpha) {
  const lrelu::TensorView view(x.data(), lrelu::DType::kFloat32,
                               {static_cast<int64_t>(x.size())});
  lrelu::leaky_relu(view, alpha, view);
  return x;
}

std::string List(const std::vector<float>& values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    text += (i > 0 ? ", " : "") + ShortFloat(values[i]);
  }
  return text + "]";
}

// y for one 16-bit x (float16 or bfloat16), computed by the library.
uint16_t Apply16(uint16_t x, lrelu::DType dtype, double alpha) {
  const lrelu::TensorView view(&x, dtype, {});
  lrelu::leaky_relu(view, alpha, view);
  return x;
}

}  // namespace

std::string ShortFloat(float value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits,
                  static_cast<double>(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  return text;
}

void PrintExamples() {
  std::printf("1. Examples: y = x < 0 ? alpha * x : x\n");
  const std::vector<float> x = {-2, -1, 0, 1, 2};
  std::printf("   float32, alpha 0.01 (default)\n");
  std::printf("     x = %s\n", List(x).c_str());
  std::printf("     y = %s\n", List(Apply(x, lrelu::kDefaultAlpha)).c_str());

  const float y = Apply({-3}, 0.2)[0];
  const uint16_t y16 = Apply16(FloatToHalf(-3), lrelu::DType::kFloat16, 0.2);
  const uint16_t ybf16 =
      Apply16(FloatToBFloat16(-3), lrelu::DType::kBFloat16, 0.2);
  std::printf(
      "   alpha 0.2, x = -3: y = %s (float32), %s (float16), %s "
      "(bfloat16): float32 product, rounded once to the storage type\n",
      ShortFloat(y).c_str(), ShortFloat(HalfToFloat(y16)).c_str(),
      ShortFloat(BFloat16ToFloat(ybf16)).c_str());

  std::printf("   special values, float32, alpha 0.01:\n");
  const std::vector<uint32_t> specials = {0x80000000u, 0x7fc12345u,
                                          0xff800001u, 0xff800000u,
                                          0x7f800000u, 0x80000001u};
  const char* notes[] = {"-0 passes through, bits unchanged",
                         "NaN passes through, payload unchanged",
                         "negative signalling NaN passes through unchanged",
                         "-inf * alpha = -inf",
                         "+inf passes through",
                         "tiny negative: alpha * x rounds to -0 (no flush "
                         "of the input)"};
  std::vector<float> values;
  for (uint32_t bits : specials) values.push_back(BitCast<float>(bits));
  const std::vector<float> results = Apply(values, lrelu::kDefaultAlpha);
  for (std::size_t i = 0; i < specials.size(); ++i) {
    std::printf("     %-7s (0x%08x) -> %-5s (0x%08x)  %s\n",
                ShortFloat(values[i]).c_str(), specials[i],
                ShortFloat(results[i]).c_str(), BitCast<uint32_t>(results[i]),
                notes[i]);
  }
}

}  // namespace lrelu_cli
