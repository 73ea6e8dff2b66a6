// Every Highway target compiled in, forced one at a time through the public
// options, against the oracle: all 65,536 float16 and bfloat16 patterns
// (forward and gradient), and special plus random float32/float64 data.
// A target this CPU cannot run is skipped, and says so.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "lrelu/lrelu.hpp"
#include "support/lrelu_tester.h"
#include "support/test_data.h"

namespace lrelu {
namespace {

using testing::AllDTypes;
using testing::LeakyReluTester;
using testing::SweepAlphas;

std::vector<std::string> CompiledTargets() {
  std::istringstream in(lrelu_cpu_targets_compiled());
  std::vector<std::string> names;
  for (std::string name; in >> name;) names.push_back(name);
  return names;
}

bool Runnable(const std::string& target) {
  for (const auto& t : cpu_targets()) {
    if (t == target) return true;
  }
  return false;
}

class TargetTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!Runnable(GetParam())) {
      GTEST_SKIP() << "target " << GetParam()
                   << " is compiled in but this CPU cannot run it";
    }
  }
};

// The case on the forced target, one thread.
LeakyReluTester OnTarget(const std::string& target, lrelu_dtype_t dtype,
                         size_t n) {
  LeakyReluTester t;
  t.dtype(dtype).shape({static_cast<int64_t>(n)}).cpu_target(target).threads(1);
  return t;
}

std::vector<uint64_t> AllPatterns16(uint32_t multiplier) {
  std::vector<uint64_t> bits(65536);
  for (uint32_t i = 0; i < 65536; ++i) bits[i] = (i * multiplier) & 0xffffu;
  return bits;
}

// Offsets move the kernel's head, aligned body and tail over the specials.
TEST_P(TargetTest, ExhaustiveSixteenBitForward) {
  for (lrelu_dtype_t dtype : {LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16}) {
    for (double alpha : SweepAlphas()) {
      for (size_t offset : {0, 1, 7}) {
        OnTarget(GetParam(), dtype, 65536)
            .x_bits(AllPatterns16(1))
            .offset(offset)
            .alpha(alpha)
            .Test();
      }
    }
  }
}

TEST_P(TargetTest, ExhaustiveSixteenBitGradient) {
  for (lrelu_dtype_t dtype : {LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16}) {
    for (double alpha : SweepAlphas()) {
      // Signs from every pattern too, in an order unrelated to dy's.
      OnTarget(GetParam(), dtype, 65536)
          .gradient(true)
          .x_bits(AllPatterns16(1))
          .s_bits(AllPatterns16(40503u))
          .offset(3)
          .alpha(alpha)
          .Test();
      // And with every dy paired with a negative s (so every dy is scaled).
      OnTarget(GetParam(), dtype, 65536)
          .gradient(true)
          .x_bits(AllPatterns16(1))
          .s_bits({0xbc00})
          .alpha(alpha)
          .Test();
    }
  }
}

TEST_P(TargetTest, RandomAndSpecialEveryDType) {
  uint64_t seed = 42;
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (double alpha : SweepAlphas()) {
      for (size_t n : {1, 5, 31, 64, 1000, 4099}) {
        OnTarget(GetParam(), dtype, n)
            .offset(n % 3)
            .alpha(alpha)
            .seed(++seed)
            .Test();
        OnTarget(GetParam(), dtype, n)
            .gradient(true)
            .offset(n % 5)
            .alpha(alpha)
            .seed(++seed)
            .Test();
      }
    }
  }
}

TEST_P(TargetTest, ServedByTheForcedTarget) {
  LeakyReluTester t = OnTarget(GetParam(), LRELU_DTYPE_FLOAT32, 4);
  t.alpha(0.1).inplace(true).Test();
  EXPECT_EQ(t.last_cpu_target(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(AllCompiled, TargetTest,
                         ::testing::ValuesIn(CompiledTargets()),
                         [](const auto& param_info) {
                           return param_info.param;
                         });

TEST(Targets, BestIsListedFirstAndUnknownIsRefused) {
  ASSERT_GE(lrelu_cpu_target_count(), 1u);
  float x[1] = {-1};
  Options o;
  o.cpu_target = "NOT_A_TARGET";
  try {
    leaky_relu(TensorView(x, DType::kFloat32, {1}),
               TensorView(x, DType::kFloat32, {1}), 0.1, o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), LRELU_STATUS_UNSUPPORTED_VARIANT);
    EXPECT_NE(std::string(e.what()).find("NOT_A_TARGET"), std::string::npos);
  }
}

}  // namespace
}  // namespace lrelu
