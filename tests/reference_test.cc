// The oracle itself, checked against independent implementations: GCC's
// _Float16 (libgcc's soft-float conversions, round to nearest even) for
// float16, and nearest-neighbour search in double for bfloat16. This is
// C++'s one deliberately independent second oracle (docs/design.md): it
// shares no code with src/reference, so the oracle cannot be wrong alone.
#include "reference/reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string_view>

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
      // Not the compiler's: it quiets a signalling NaN. The payload moves up
      // unchanged, so that pass-through checks can compare through float32.
      const uint32_t payload = (b & 0x3ffu) << 13;
      ASSERT_EQ(FloatBits(mine), ((b & 0x8000u) << 16) | 0x7f800000u | payload)
          << std::hex << b;
    } else {
      ASSERT_EQ(FloatBits(mine), FloatBits(gcc)) << std::hex << b;
    }
  }
}

TEST(Reference, SixteenBitPatternsRoundTripThroughFloat32) {
  for (const lrelu_dtype_t dtype :
       {LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16}) {
    const DTypeTraits& t = Traits(dtype);
    for (uint32_t b = 0; b < 0x10000; ++b) {
      const auto bits = static_cast<uint16_t>(b);
      const bool half = dtype == LRELU_DTYPE_FLOAT16;
      const uint32_t wide =
          half ? HalfBitsToFloatBits(bits) : BFloat16BitsToFloatBits(bits);
      ASSERT_EQ(std::isnan(BitsFloat(wide)), t.IsNaN(bits)) << std::hex << b;
      ASSERT_EQ(BitsFloat(wide) < 0.0f, t.IsNegative(bits)) << std::hex << b;
      const uint16_t back =
          half ? FloatBitsToHalfBits(wide) : FloatBitsToBFloat16Bits(wide);
      // Narrowing quiets a NaN (as hardware does); all else is exact.
      const uint16_t expected =
          t.IsNaN(bits) ? static_cast<uint16_t>(bits | t.QuietBit()) : bits;
      ASSERT_EQ(back, expected) << std::hex << b;
    }
  }
}

TEST(DTypeTraits, TableAgreesWithTheCompilerAndTheApi) {
  for (const DTypeTraits& t : kDTypes) {
    EXPECT_EQ(FindDType(t.tag), &t);
    EXPECT_EQ(FindDType(std::string_view(t.name)), &t);
    EXPECT_EQ(1 + t.exponent_bits + t.mantissa_bits,
              8 * static_cast<int>(t.size));
    EXPECT_TRUE(t.IsNaN(t.QuietNaN()));
    EXPECT_TRUE(t.IsQuietNaN(t.QuietNaN()));
    EXPECT_FALSE(t.IsQuietNaN(t.PositiveInfinity() | 1));  // signalling
    EXPECT_TRUE(t.IsNaN(t.PositiveInfinity() | 1));
    EXPECT_FALSE(t.IsNaN(t.PositiveInfinity()));
    EXPECT_TRUE(t.IsNegative(t.NegativeInfinity()));
    EXPECT_FALSE(t.IsNegative(t.SignBit()));  // -0
    EXPECT_FALSE(t.IsNegative(t.SignBit() | t.QuietNaN()));
    for (uint64_t bits : SpecialBits(t.tag)) {
      EXPECT_EQ(bits >> (8 * t.size - 1) >> 1, 0u) << t.name;  // fits
    }
  }
  EXPECT_EQ(FindDType(static_cast<lrelu_dtype_t>(0)), nullptr);
  EXPECT_EQ(FindDType(std::string_view("int8")), nullptr);
  EXPECT_EQ(Traits(LRELU_DTYPE_FLOAT32).PositiveInfinity(),
            FloatBits(INFINITY));
  EXPECT_EQ(Traits(LRELU_DTYPE_FLOAT32).QuietNaN(), FloatBits(NAN));
  double inf = INFINITY, nan = NAN;
  uint64_t inf_bits, nan_bits;
  std::memcpy(&inf_bits, &inf, 8);
  std::memcpy(&nan_bits, &nan, 8);
  EXPECT_EQ(Traits(LRELU_DTYPE_FLOAT64).PositiveInfinity(), inf_bits);
  EXPECT_EQ(Traits(LRELU_DTYPE_FLOAT64).QuietNaN(), nan_bits);
  EXPECT_EQ(Traits(LRELU_DTYPE_FLOAT16).NegativeInfinity(),
            HalfBits(static_cast<_Float16>(-INFINITY)));
  // Every float32 special agrees with the compiler's classification.
  for (uint64_t bits : SpecialBits(LRELU_DTYPE_FLOAT32)) {
    const float f = BitsFloat(static_cast<uint32_t>(bits));
    EXPECT_EQ(Traits(LRELU_DTYPE_FLOAT32).IsNaN(bits), std::isnan(f));
    EXPECT_EQ(Traits(LRELU_DTYPE_FLOAT32).IsNegative(bits), f < 0.0f);
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
