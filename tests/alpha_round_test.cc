// alpha is rounded to float32 once, with the same bits whatever the caller's
// rounding mode and FTZ/DAZ say (the small-call path uses the hardware
// conversion when that is safe): checked through the C API against the
// oracle for random and edge-case alphas in every floating-point setting.
#include <gtest/gtest.h>

#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "lrelu/lrelu.h"
#include "reference/reference.h"

namespace {

std::vector<double> Alphas() {
  std::vector<double> a = {
      0.01, 0.1, 0.2, 0.25, -0.3, 1e-40, -1e-45, 1e-38, 1.1754942e-38, FLT_MIN,
      FLT_MAX, 3.4028235677973366e38, 3.5e38, 1e300, -1e-300, 0.0, -0.0,
      std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::quiet_NaN(),
      std::numeric_limits<double>::denorm_min(),
      // Ties and the spacing change at powers of two
      // (the hardware path must prove its result).
      1.0 + 0x1p-24, 1.0 + 0x1p-23 + 0x1p-24, 1.0 - 0x1p-25, -(1.0 - 0x1p-25),
      1.0 - 0x1p-26, 1.0 - 0x1p-25 - 0x1p-52, 1.0 - 0x1p-25 + 0x1p-52,
      1.0 + 0x1p-24 - 0x1p-52, 0x1p-126 - 0x1p-150, 0x1p-126 + 0x1p-150,
      0x1p-126 - 0x1p-151, 0.3, -0.3, 1.0 / 3};
  std::mt19937_64 rng(5);
  for (int i = 0; i < 2000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    a.push_back(d);
    a.push_back(std::ldexp(static_cast<double>(rng() >> 11), -60));
    // Near a float32 value: within a few float64 steps of it or of a tie.
    const float f = std::ldexp(static_cast<float>((rng() >> 40) | 1), -20);
    const double step = std::ldexp(1.0, std::ilogb(f) - 52);
    const double offset = static_cast<double>(static_cast<int>(rng() % 5) - 2);
    a.push_back(static_cast<double>(f) + offset * step);
    a.push_back(static_cast<double>(f) + std::ldexp(1.0, std::ilogb(f) - 24) +
                offset * step);
  }
  return a;
}

// y = leaky_relu(-1, alpha) for every alpha, in the current environment.
std::vector<float> Apply(bool oracle) {
  int64_t shape[1] = {1};
  std::vector<float> out;
  for (double alpha : Alphas()) {
    float x = -1.0f, y = 0.0f;
    lrelu_tensor_t tx{&x, LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
    lrelu_tensor_t ty{&y, LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
    if (oracle) {
      lrelu::reference::Apply(LRELU_DTYPE_FLOAT32, &x, &x, &y, 1, alpha);
    } else {
      EXPECT_EQ(lrelu_leaky_relu(&tx, alpha, &ty, nullptr), LRELU_STATUS_OK);
    }
    out.push_back(y);
  }
  return out;
}

// The oracle runs in the default environment (it does not protect itself
// from the caller's); the library must give its bits in any environment.
void ExpectOracle(const std::vector<float>& expected, const char* setting) {
  const std::vector<float> got = Apply(false);
  const std::vector<double> alphas = Alphas();
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(std::memcmp(&got[i], &expected[i], sizeof(float)), 0)
        << setting << " alpha " << alphas[i];
  }
}

TEST(AlphaRound, SameBitsInEveryFloatEnvironment) {
  const std::vector<float> expected = Apply(true);
  for (int mode : {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}) {
    std::fesetround(mode);
    ExpectOracle(expected, "rounding mode");
#if defined(__x86_64__)
    const unsigned saved = _mm_getcsr();
    _mm_setcsr(saved | 0x8040u);  // FTZ and DAZ
    ExpectOracle(expected, "FTZ/DAZ");
    _mm_setcsr(saved);
#endif
  }
  std::fesetround(FE_TONEAREST);
}

}  // namespace
