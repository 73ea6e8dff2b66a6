// The contiguous path through the public API against the oracle (through
// LeakyReluTester): every dtype x alpha x size 0..300 (all heads and tails)
// x in-place x unaligned pointers, and large sizes x thread counts, forward
// and gradient.
#include <gtest/gtest.h>

#include <vector>

#include "lrelu/lrelu.hpp"
#include "support/lrelu_tester.h"
#include "support/test_data.h"

namespace lrelu {
namespace {

using testing::AllDTypes;
using testing::LeakyReluTester;
using testing::SweepAlphas;

TEST(Contiguous, EverySizeUpTo300) {
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (double alpha : SweepAlphas()) {
      for (size_t n = 0; n <= 300; ++n) {
        // Element offsets 0..2, in place, and not even element-aligned.
        for (int variant = 0; variant < 4; ++variant) {
          LeakyReluTester t;
          t.dtype(dtype)
              .shape({static_cast<int64_t>(n)})
              .offset(static_cast<size_t>(variant) % 3)
              .misaligned(variant == 3)
              .inplace(variant == 1)
              .gradient(n % 2 == 1)
              .alpha(alpha)
              .threads(1)
              .seed(n * 4 + static_cast<size_t>(variant))
              .Test();
          if (n > 0) {
            ASSERT_EQ(t.last_variant(), "contiguous");
          }
        }
      }
    }
  }
}

TEST(Contiguous, LargeSizesOnSeveralThreads) {
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (size_t n :
         {size_t{1} << 20, (size_t{1} << 20) + 37, size_t{3000017}}) {
      for (size_t threads : {1, 2, 3}) {
        for (bool in_place : {false, true}) {
          LeakyReluTester t;
          t.dtype(dtype)
              .shape({static_cast<int64_t>(n)})
              .offset(threads - 1)
              .inplace(in_place)
              .gradient(threads == 2)
              .alpha(threads == 3 ? -0.5 : 0.01)
              .threads(threads)
              .seed(8)
              .Test();
          EXPECT_EQ(t.last_tasks(), threads)
              << "a large call should use every thread";
        }
      }
    }
  }
}

TEST(Contiguous, StreamingSizeOutOfPlace) {
  // Large enough for non-temporal stores; both pointer alignments.
  for (lrelu_dtype_t dtype : AllDTypes()) {
    const size_t n = (size_t{24} << 20) / lrelu_dtype_size(dtype) + 5;
    for (size_t offset : {0, 1}) {
      LeakyReluTester()
          .dtype(dtype)
          .shape({static_cast<int64_t>(n)})
          .offset(offset)
          .gradient(offset == 1)
          .alpha(0.01)
          .threads(2)
          .seed(9)
          .Test();
    }
  }
}

TEST(Contiguous, SmallCallsStayOnTheCallingThread) {
  std::vector<float> x(1024, -1.0f);
  Options options;
  options.threads = 2;
  Executor e =
      Executor::forward(TensorView(x.data(), DType::kFloat32, {1024}), 0.1,
                        TensorView(x.data(), DType::kFloat32, {1024}), options);
  EXPECT_EQ(e.tasks(), 1u);
}

TEST(Contiguous, AllocatingOverloadsKeepShapeAndDType) {
  const uint16_t x[6] = {0xbc00, 0x3c00, 0x8000, 0x7e01, 0xfc00, 0x0001};
  Tensor y = leaky_relu(
      TensorView(const_cast<uint16_t*>(x), DType::kBFloat16, {2, 3}), 0.5);
  EXPECT_EQ(y.dtype(), DType::kBFloat16);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
  const auto* out = static_cast<const uint16_t*>(y.data());
  EXPECT_EQ(out[0], 0xbb80);  // -2^-7 * 0.5
  EXPECT_EQ(out[1], 0x3c00);  // positive: passes
  EXPECT_EQ(out[2], 0x8000);  // -0 passes
  EXPECT_EQ(out[3], 0x7e01);  // NaN passes with its payload
  EXPECT_EQ(out[4], 0xfb80);  // -2^121 * 0.5
  EXPECT_EQ(out[5], 0x0001);
}

}  // namespace
}  // namespace lrelu
