// Unit tests of the scalar float16/bfloat16 conversions `lrelu demo` checks
// the library with, against the compiler's own _Float16.
#include "float_bits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace lrelu_cli {
namespace {

TEST(FloatBitsTest, HalfToFloatIsExactForEveryPattern) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_EQ((h & 0x7fffu) > 0x7c00u, true);
      continue;
    }
    EXPECT_EQ(FloatToHalf(f), h) << h;  // exact values convert back
  }
}

#if defined(__FLT16_MAX__)
TEST(FloatBitsTest, FloatToHalfRoundsLikeTheCompiler) {
  uint64_t state = 1;
  for (int i = 0; i < 2000000; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    const auto bits = static_cast<uint32_t>(state >> 32);
    const float f = BitsToFloat(bits);
    if (std::isnan(f)) continue;
    const _Float16 h = static_cast<_Float16>(f);
    uint16_t expected;
    std::memcpy(&expected, &h, 2);
    ASSERT_EQ(FloatToHalf(f), expected) << std::hex << bits;
  }
}
#endif

TEST(FloatBitsTest, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(FloatToBFloat16(BitsToFloat(0x3f808000u)), 0x3f80u);  // tie, even
  EXPECT_EQ(FloatToBFloat16(BitsToFloat(0x3f818000u)), 0x3f82u);  // tie, odd
  EXPECT_EQ(FloatToBFloat16(BitsToFloat(0x3f808001u)), 0x3f81u);
  EXPECT_EQ(FloatToBFloat16(BitsToFloat(0x7f7fffffu)), 0x7f80u);  // to inf
  EXPECT_EQ(FloatToBFloat16(BitsToFloat(0x80000000u)), 0x8000u);
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(NAN))));
  EXPECT_EQ(BFloat16ToFloat(0xbf80u), -1.0f);
}

}  // namespace
}  // namespace lrelu_cli
