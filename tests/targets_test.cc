// Every Highway target compiled in, forced one at a time through the public
// options, against the oracle: all 65,536 float16 and bfloat16 patterns
// (forward and gradient), and special plus random float32/float64 data.
// A target this CPU cannot run is skipped, and says so.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lrelu/lrelu.hpp"
#include "support/test_data.h"

namespace lrelu {
namespace {

using testing::AllDTypes;
using testing::CompareWithReference;
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
    options_.cpu_target = GetParam();
    options_.threads = 1;
  }
  Options options_;
};

// Runs forward or gradient on raw buffers starting `offset` elements in, so
// the kernel's head, aligned body and tail all see special values.
std::string RunAndCompare(lrelu_dtype_t dtype,
                          const std::vector<unsigned char>& v,
                          const std::vector<unsigned char>* s, size_t offset,
                          double alpha, const Options& options) {
  const size_t size = lrelu_dtype_size(dtype);
  const size_t n = v.size() / size;
  std::vector<unsigned char> vbuf((n + offset) * size),
      out((n + offset) * size);
  std::copy(v.begin(), v.end(), vbuf.begin() + offset * size);
  const auto d = static_cast<DType>(dtype);
  const TensorView vv(vbuf.data() + offset * size, d,
                      {static_cast<int64_t>(n)});
  const TensorView ov(out.data() + offset * size, d, {static_cast<int64_t>(n)});
  if (s == nullptr) {
    leaky_relu(vv, ov, alpha, options);
    return CompareWithReference(dtype, v.data(), v.data(),
                                out.data() + offset * size, n, alpha);
  }
  std::vector<unsigned char> sbuf((n + offset) * size);
  std::copy(s->begin(), s->end(), sbuf.begin() + offset * size);
  const TensorView sv(sbuf.data() + offset * size, d,
                      {static_cast<int64_t>(n)});
  leaky_relu_backward(vv, sv, ov, alpha, GradSource::kFromX, options);
  return CompareWithReference(dtype, v.data(), s->data(),
                              out.data() + offset * size, n, alpha);
}

std::vector<unsigned char> AllPatterns16() {
  std::vector<unsigned char> bits(65536 * 2);
  for (uint32_t i = 0; i < 65536; ++i) {
    testing::StoreBits(LRELU_DTYPE_FLOAT16, bits.data(), i, i);
  }
  return bits;
}

TEST_P(TargetTest, ExhaustiveSixteenBitForward) {
  const auto all = AllPatterns16();
  for (lrelu_dtype_t dtype : {LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16}) {
    for (double alpha : SweepAlphas()) {
      for (size_t offset : {0, 1, 7}) {
        const std::string diff =
            RunAndCompare(dtype, all, nullptr, offset, alpha, options_);
        ASSERT_EQ(diff, "") << lrelu_dtype_name(dtype) << " offset " << offset;
      }
    }
  }
}

TEST_P(TargetTest, ExhaustiveSixteenBitGradient) {
  const auto all = AllPatterns16();
  // Signs from every pattern too, in an order unrelated to dy's.
  std::vector<unsigned char> s(all.size());
  for (uint32_t i = 0; i < 65536; ++i) {
    testing::StoreBits(LRELU_DTYPE_FLOAT16, s.data(), i,
                       (i * 40503u) & 0xffffu);
  }
  // And with every dy paired with a negative s (so every dy is scaled).
  std::vector<unsigned char> negative(all.size());
  for (uint32_t i = 0; i < 65536; ++i) {
    testing::StoreBits(LRELU_DTYPE_FLOAT16, negative.data(), i, 0xbc00);
  }
  for (lrelu_dtype_t dtype : {LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16}) {
    for (double alpha : SweepAlphas()) {
      ASSERT_EQ(RunAndCompare(dtype, all, &s, 3, alpha, options_), "");
      ASSERT_EQ(RunAndCompare(dtype, all, &negative, 0, alpha, options_), "");
    }
  }
}

TEST_P(TargetTest, RandomAndSpecialEveryDType) {
  std::mt19937_64 rng(42);
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (double alpha : SweepAlphas()) {
      for (size_t n : {1, 5, 31, 64, 1000, 4099}) {
        const auto v = testing::RandomBits(dtype, n, rng);
        const auto s = testing::RandomBits(dtype, n, rng);
        ASSERT_EQ(RunAndCompare(dtype, v, nullptr, n % 3, alpha, options_), "")
            << lrelu_dtype_name(dtype);
        ASSERT_EQ(RunAndCompare(dtype, v, &s, n % 5, alpha, options_), "")
            << lrelu_dtype_name(dtype);
      }
    }
  }
}

TEST_P(TargetTest, ServedByTheForcedTarget) {
  float x[4] = {-1, 2, -3, 4};
  Executor e = Executor::forward(TensorView(x, DType::kFloat32, {4}), 0.1,
                                 TensorView(x, DType::kFloat32, {4}), options_);
  EXPECT_EQ(e.cpu_target(), GetParam());
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
