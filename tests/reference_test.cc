// The oracle itself, checked against independent implementations: GCC's
// _Float16 (libgcc's soft-float conversions, round to nearest even) for
// float16, and nearest-neighbour search in double for bfloat16.
#include "reference/reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace lrelu::reference {
namespace {

uint32_t FloatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float BitsFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint16_t HalfBits(_Float16 h) {
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
_Float16 BitsHalf(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return h;
}

TEST(Reference, HalfToFloatMatchesCompilerOnAllPatterns) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float mine = HalfToFloat(static_cast<uint16_t>(b));
    const float gcc = static_cast<float>(BitsHalf(static_cast<uint16_t>(b)));
    if (std::isnan(gcc)) {
      ASSERT_TRUE(std::isnan(mine)) << std::hex << b;
      ASSERT_EQ(std::signbit(mine), std::signbit(gcc)) << std::hex << b;
    } else {
      ASSERT_EQ(FloatBits(mine), FloatBits(gcc)) << std::hex << b;
    }
  }
}

void ExpectFloatToHalf(float f) {
  const uint16_t mine = FloatToHalf(f);
  const uint16_t gcc = HalfBits(static_cast<_Float16>(f));
  if (std::isnan(f)) {
    ASSERT_EQ(mine & 0x7c00, 0x7c00);
    ASSERT_NE(mine & 0x3ff, 0);
  } else {
    ASSERT_EQ(mine, gcc) << std::hex << FloatBits(f);
  }
}

TEST(Reference, FloatToHalfMatchesCompilerNearEveryHalf) {
  // Every half value, the midpoints between neighbours (ties), and one float
  // ulp either side of each: all rounding decisions there are.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = HalfToFloat(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    ExpectFloatToHalf(f);
    ExpectFloatToHalf(std::nextafter(f, INFINITY));
    ExpectFloatToHalf(std::nextafter(f, -INFINITY));
    const float next = HalfToFloat(static_cast<uint16_t>(b + 1));
    if (!std::isnan(next) && !std::isinf(next) && !std::isinf(f) &&
        (b & 0x7fff) != 0x7fff) {
      const float mid = f + (next - f) / 2;
      ExpectFloatToHalf(mid);
      ExpectFloatToHalf(std::nextafter(mid, INFINITY));
      ExpectFloatToHalf(std::nextafter(mid, -INFINITY));
    }
  }
}

TEST(Reference, FloatToHalfMatchesCompilerOnRandomFloats) {
  std::mt19937 rng(1);
  for (int i = 0; i < 2000000; ++i)
    ExpectFloatToHalf(BitsFloat(static_cast<uint32_t>(rng())));
}

// bfloat16 by brute force: the nearest of the two bfloat16 neighbours in
// double arithmetic, the even one on a tie, infinity past the largest.
uint16_t NearestBFloat16(float f) {
  const uint32_t bits = FloatBits(f);
  const uint16_t down = static_cast<uint16_t>(bits >> 16);
  const uint16_t up = static_cast<uint16_t>(down + 1);
  const double value = std::fabs(static_cast<double>(f));
  const double low = std::fabs(static_cast<double>(BFloat16ToFloat(down)));
  double high = std::fabs(static_cast<double>(BFloat16ToFloat(up)));
  if ((up & 0x7fff) == 0x7f80) high = std::ldexp(1.0, 128);  // "next" past max
  if (value - low < high - value) return down;
  if (value - low > high - value) return up;
  return (down & 1) == 0 ? down : up;
}

TEST(Reference, FloatToBFloat16IsNearestEven) {
  std::mt19937 rng(2);
  for (int i = 0; i < 4000000; ++i) {
    const uint32_t bits = i < 1 << 16
                              ? (static_cast<uint32_t>(i) << 16) | 0x8000u
                              : static_cast<uint32_t>(rng());
    const float f = BitsFloat(bits);
    if (std::isnan(f)) {
      const uint16_t b = FloatToBFloat16(f);
      ASSERT_EQ(b & 0x7f80, 0x7f80);
      ASSERT_NE(b & 0x7f, 0);
      continue;
    }
    if (std::isinf(f)) {
      ASSERT_EQ(FloatToBFloat16(f), bits >> 16);
      continue;
    }
    ASSERT_EQ(FloatToBFloat16(f), NearestBFloat16(f)) << std::hex << bits;
  }
}

TEST(Reference, SeedExamples) {
  // Seed 001: [-2,-1,0,1,2] with alpha 0.01 and -3 with alpha 0.2.
  const float alpha = 0.01f;
  EXPECT_EQ(BitsFloat(ForwardF32(FloatBits(-2.0f), alpha)), -0.02f);
  EXPECT_EQ(BitsFloat(ForwardF32(FloatBits(-1.0f), alpha)), -0.01f);
  EXPECT_EQ(ForwardF32(FloatBits(0.0f), alpha), FloatBits(0.0f));
  EXPECT_EQ(ForwardF32(FloatBits(2.0f), alpha), FloatBits(2.0f));
  EXPECT_EQ(BitsFloat(ForwardF32(FloatBits(-3.0f), 0.2f)), -3.0f * 0.2f);
  EXPECT_EQ(ForwardF32(0x80000000u, -5.0f), 0x80000000u);  // -0 passes
  EXPECT_EQ(ForwardF32(0x7fa00000u, 2.0f), 0x7fa00000u);   // sNaN passes
  EXPECT_EQ(ForwardF32(0xbf800000u, 0.01f), 0xbc23d70au);  // -1 -> -0.01
}

TEST(Reference, GradientRule) {
  EXPECT_EQ(BackwardF32(FloatBits(3.0f), FloatBits(-1.0f), 0.5f),
            FloatBits(1.5f));
  EXPECT_EQ(BackwardF32(FloatBits(3.0f), FloatBits(0.0f), 0.5f),
            FloatBits(3.0f));  // 1 at zero
  EXPECT_EQ(BackwardF32(FloatBits(3.0f), 0x80000000u, 0.5f),
            FloatBits(3.0f));  // and at -0
}

}  // namespace
}  // namespace lrelu::reference
