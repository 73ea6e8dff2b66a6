// Every test.json case through the public API, on every variant, layout,
// SIMD target and in place; and the runner catching deliberately broken
// implementations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "expect_all_pass.h"
#include "lrelu/kernel.hpp"

namespace {

const lrelu::Kernel& TheKernel() {
  static const lrelu::Kernel kernel = lrelu::get_kernel("ai.onnx.LeakyRelu", 1);
  return kernel;
}

struct RunSetup {
  const char* name;
  const char* variant;
  lrelu::CaseLayout layout;
  bool in_place;
  std::size_t threads;
};

// Names the setup in test output instead of gtest's byte dump.
void PrintTo(const RunSetup& s, std::ostream* os) { *os << s.name; }

class Conformance : public ::testing::TestWithParam<RunSetup> {};

TEST_P(Conformance, EveryCasePasses) {
  const RunSetup& s = GetParam();
  lrelu::RunOptions run;
  run.options.variant = s.variant;
  run.options.threads = s.threads;
  run.layout = s.layout;
  run.in_place = s.in_place;
  ExpectAllPass(lrelu::run_cases(TheKernel(), run));
}

using L = lrelu::CaseLayout;
INSTANTIATE_TEST_SUITE_P(
    Variants, Conformance,
    ::testing::Values(
        RunSetup{"auto", "", L::kContiguous, false, 0},
        RunSetup{"auto_strided", "", L::kStrided, false, 0},
        RunSetup{"auto_in_place", "", L::kContiguous, true, 0},
        RunSetup{"reference", "reference", L::kContiguous, false, 0},
        RunSetup{"reference_strided", "reference", L::kStrided, false, 0},
        RunSetup{"reference_in_place", "reference", L::kContiguous, true, 0},
        RunSetup{"contiguous", "contiguous", L::kAuto, false, 0},
        RunSetup{"contiguous_in_place", "contiguous", L::kAuto, true, 0},
        RunSetup{"contiguous_one_thread", "contiguous", L::kAuto, false, 1},
        RunSetup{"strided", "strided", L::kAuto, false, 0},
        RunSetup{"strided_in_place", "strided", L::kAuto, true, 0},
        RunSetup{"strided_contiguous_layout", "strided", L::kContiguous, false,
                 0}),
    [](const ::testing::TestParamInfo<RunSetup>& param) {
      return std::string(param.param.name);
    });

// Every SIMD target this CPU runs, on both SIMD variants.
TEST(ConformanceTargets, EveryTarget) {
  const auto targets = lrelu::cpu_targets();
  ASSERT_FALSE(targets.empty());
  for (const std::string& target : targets) {
    for (const char* variant : {"contiguous", "strided"}) {
      SCOPED_TRACE(target + " " + variant);
      lrelu::RunOptions run;
      run.options.variant = variant;
      run.options.cpu_target = target;
      ExpectAllPass(lrelu::run_cases(TheKernel(), run));
    }
  }
}

// The compiled-in kernel's call operator, on the forward cases.
TEST(ConformanceKernelCall, ForwardCases) {
  const lrelu::Kernel& kernel = TheKernel();
  std::vector<lrelu::TestCase> forward;
  for (const auto& c : kernel.test_cases()) {
    if (c.op == "forward") forward.push_back(c);
  }
  ASSERT_GT(forward.size(), 100u);
  lrelu::RunOptions run;
  run.layout = lrelu::CaseLayout::kContiguous;
  ExpectAllPass(lrelu::run_cases(
      forward, run,
      [&](const lrelu::TestCase& c,
          const std::map<std::string, lrelu::TensorView>& inputs,
          const std::map<std::string, lrelu::TensorView>& outputs,
          const lrelu::RunOptions& options) {
        std::map<std::string, double> attributes;
        if (c.alpha) attributes["alpha"] = *c.alpha;
        auto result = kernel(inputs, attributes, options.options);
        const lrelu::Tensor& y = result.at("y");
        if (y.size_bytes() > 0) {
          std::memcpy(outputs.at("y").data, y.data(), y.size_bytes());
        }
      }));
}

// --- The runner catches broken implementations -----------------------------

// A "variant" that computes correctly, then flips the lowest bit of
// output element 0.
void FlipOneBit(const lrelu::TestCase& c,
                const std::map<std::string, lrelu::TensorView>& inputs,
                const std::map<std::string, lrelu::TensorView>& outputs,
                const lrelu::RunOptions& run) {
  lrelu::run_case_with_library(c, inputs, outputs, run);
  if (c.numel() == 0) return;
  auto* first = static_cast<unsigned char*>(outputs.begin()->second.data);
  first[0] ^= 1;  // little-endian: the lowest bit of the element
}

TEST(BrokenVariant, FlippedBitIsCaught) {
  const auto results = lrelu::run_cases(TheKernel(), {}, FlipOneBit);
  std::size_t should_fail = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const lrelu::TestCase& c = TheKernel().test_cases()[i];
    const auto nan = c.anynan.find(c.op == "forward" ? "y" : "dx");
    const bool nan_at_0 =
        nan != c.anynan.end() && !nan->second.empty() && nan->second[0] == 0;
    // A NaN stays a NaN when its low bit flips unless its payload was 1.
    const bool must_fail =
        c.numel() > 0 && c.expected_error.empty() && !nan_at_0;
    if (must_fail) {
      ++should_fail;
      EXPECT_FALSE(results[i].passed) << c.id;
      EXPECT_NE(results[i].message.find("[0]"), std::string::npos)
          << results[i].message;
    }
  }
  EXPECT_GT(should_fail, 250u);
}

TEST(BrokenVariant, WriteIntoStridedGapIsCaught) {
  lrelu::RunOptions run;
  run.options.variant = "strided";
  const auto results = lrelu::run_cases(
      TheKernel(), run,
      [](const lrelu::TestCase& c,
         const std::map<std::string, lrelu::TensorView>& inputs,
         const std::map<std::string, lrelu::TensorView>& outputs,
         const lrelu::RunOptions& r) {
        lrelu::run_case_with_library(c, inputs, outputs, r);
        const lrelu::TensorView& out = outputs.begin()->second;
        if (c.numel() == 0 || out.strides.empty()) return;
        // The element right after the first one is a gap (stride 2).
        static_cast<unsigned char*>(out.data)[lrelu::dtype_size(c.dtype)] ^= 1;
      });
  for (std::size_t i = 0; i < results.size(); ++i) {
    const lrelu::TestCase& c = TheKernel().test_cases()[i];
    if (c.numel() > 0 && !c.shape.empty() && c.expected_error.empty()) {
      EXPECT_FALSE(results[i].passed) << c.id;
      EXPECT_NE(results[i].message.find("gap"), std::string::npos)
          << results[i].message;
    }
  }
}

TEST(BrokenVariant, ChangedInputIsCaught) {
  const auto results = lrelu::run_cases(
      TheKernel(), {},
      [](const lrelu::TestCase& c,
         const std::map<std::string, lrelu::TensorView>& inputs,
         const std::map<std::string, lrelu::TensorView>& outputs,
         const lrelu::RunOptions& r) {
        lrelu::run_case_with_library(c, inputs, outputs, r);
        if (c.numel() > 0)
          static_cast<unsigned char*>(inputs.begin()->second.data)[0] ^= 1;
      });
  for (std::size_t i = 0; i < results.size(); ++i) {
    const lrelu::TestCase& c = TheKernel().test_cases()[i];
    if (c.numel() > 0 && c.expected_error.empty()) {
      EXPECT_NE(results[i].message.find("changed"), std::string::npos) << c.id;
    }
  }
}

TEST(BrokenVariant, AcceptingAnInvalidCallIsCaught) {
  std::size_t error_cases = 0;
  for (const auto& c : TheKernel().test_cases()) {
    if (c.expected_error.empty()) continue;
    ++error_cases;
    // A gradient that ignores the alpha > 0 rule for y: computes from y.
    const auto r =
        lrelu::run_case(c, {},
                        [](const lrelu::TestCase&,
                           const std::map<std::string, lrelu::TensorView>&,
                           const std::map<std::string, lrelu::TensorView>&,
                           const lrelu::RunOptions&) {});
    EXPECT_FALSE(r.passed) << c.id;
    EXPECT_NE(r.message.find("LRELU_STATUS_INVALID_ALPHA"), std::string::npos)
        << r.message;
  }
  EXPECT_EQ(error_cases, 20u);
}

TEST(BrokenVariant, WrongRuleIsCaught) {
  // x <= 0 instead of x < 0: -0 with alpha < 0 becomes +0, NaN alpha makes
  // NaN, and so on; the special-value cases must notice.
  const auto results = lrelu::run_cases(
      TheKernel(), {},
      [](const lrelu::TestCase& c,
         const std::map<std::string, lrelu::TensorView>& inputs,
         const std::map<std::string, lrelu::TensorView>& outputs,
         const lrelu::RunOptions& r) {
        lrelu::run_case_with_library(c, inputs, outputs, r);
        if (c.op != "forward" || c.dtype != lrelu::DType::kFloat32) return;
        const auto* x = static_cast<const float*>(inputs.at("x").data);
        auto* y = static_cast<float*>(outputs.at("y").data);
        const float a = static_cast<float>(c.alpha.value_or(0.01));
        for (int64_t i = 0; i < c.numel(); ++i) {
          if (x[i] == 0) y[i] = a * x[i];
        }
      });
  std::size_t caught = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i].passed) {
      ++caught;
      EXPECT_NE(results[i].id.find("float32"), std::string::npos);
    }
  }
  EXPECT_GE(caught, 5u);  // special cases with alpha < 0, NaN, +-inf, -0
}

// The value of a float16 / bfloat16 bit pattern.
double StorageValue(uint64_t bits, lrelu::DType dtype) {
  if (dtype == lrelu::DType::kBFloat16) {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
  const int exponent = static_cast<int>((bits >> 10) & 31);
  const double mantissa = static_cast<double>(bits & 1023);
  const double magnitude = exponent == 0
                               ? std::ldexp(mantissa, -24)
                               : std::ldexp(1024 + mantissa, exponent - 25);
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

TEST(BrokenVariant, AlphaRoundedToStorageIsCaught) {
  // XNNPACK's float16 rule and ONNX's function body (CastLike(alpha, X)):
  // alpha rounded to the storage type before the multiply. Emulated with the
  // library itself: alpha_s = leaky_relu(-1, alpha) negated, then the
  // product alpha_s * x is exact in float32 and rounds once.
  const auto alpha_in_storage =
      [](const lrelu::TestCase& c,
         const std::map<std::string, lrelu::TensorView>& in,
         const std::map<std::string, lrelu::TensorView>& out,
         const lrelu::RunOptions& r) {
        lrelu::TestCase changed = c;
        if (c.op == "forward" && c.alpha && std::isfinite(*c.alpha) &&
            (c.dtype == lrelu::DType::kFloat16 ||
             c.dtype == lrelu::DType::kBFloat16)) {
          const uint16_t minus_one =
              c.dtype == lrelu::DType::kFloat16 ? 0xbc00 : 0xbf80;
          uint16_t bits = minus_one;
          lrelu::TensorView v(&bits, c.dtype, {});
          lrelu::leaky_relu(v, v, *c.alpha);
          changed.alpha = -StorageValue(bits, c.dtype);
        }
        lrelu::run_case_with_library(changed, in, out, r);
      };
  std::size_t rounding_cases = 0;
  for (const auto& c : TheKernel().test_cases()) {
    if (c.category != "rounding" || c.dtype == lrelu::DType::kFloat32 ||
        c.dtype == lrelu::DType::kFloat64 ||
        (*c.alpha != 0.01 && *c.alpha != 0.2)) {
      continue;
    }
    ++rounding_cases;
    EXPECT_FALSE(lrelu::run_case(c, {}, alpha_in_storage).passed) << c.id;
  }
  EXPECT_EQ(rounding_cases, 4u);
}

TEST(RunCase, ForcedContiguousOnStridedLayoutFails) {
  for (const auto& c : TheKernel().test_cases()) {
    if (c.id != "forward/float32/special/alpha=0.2") continue;
    lrelu::RunOptions run;
    run.options.variant = "contiguous";
    run.layout = lrelu::CaseLayout::kStrided;
    const auto r = lrelu::run_case(c, run);
    EXPECT_FALSE(r.passed);
    EXPECT_NE(r.message.find("LRELU_STATUS_UNSUPPORTED_VARIANT"),
              std::string::npos)
        << r.message;
    return;
  }
  FAIL() << "case not found";
}

}  // namespace
