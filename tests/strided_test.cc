// Strided views through the public API (through LeakyReluTester): random
// ranks 0..8, shapes with zero-size dimensions, negative and zero (input)
// strides, gaps, Fortran order, in-place, on every variant; each element
// checked against the oracle and every byte outside the output checked
// untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "lrelu/lrelu.hpp"
#include "support/lrelu_tester.h"
#include "support/test_data.h"

namespace lrelu {
namespace {

using testing::LeakyReluTester;

// Element strides: dimensions in a random order, each with a random gap, then
// random signs; `allow_zero` lets an input repeat elements (stride 0).
std::vector<int64_t> RandomStrides(const std::vector<int64_t>& shape,
                                   bool allow_zero, std::mt19937_64& rng) {
  const size_t rank = shape.size();
  std::vector<size_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  if (rng() % 3 == 0) {
    std::reverse(order.begin(), order.end());  // Fortran order
  } else if (rng() % 2 == 0) {
    std::shuffle(order.begin(), order.end(), rng);
  }
  std::vector<int64_t> strides(rank, 0);
  int64_t step = 1 + static_cast<int64_t>(rng() % 2);
  for (size_t k = rank; k-- > 0;) {
    const size_t dim = order[k];
    strides[dim] = step;
    step *= std::max<int64_t>(shape[dim], 1) + static_cast<int64_t>(rng() % 2);
  }
  for (size_t d = 0; d < rank; ++d) {
    if (allow_zero && rng() % 6 == 0) strides[d] = 0;
    if (rng() % 3 == 0) strides[d] = -strides[d];
  }
  // Rank 0 has no strides; an empty list would mean "dense" to the tester,
  // which is the same thing there.
  return strides;
}

std::vector<int64_t> RandomShape(std::mt19937_64& rng) {
  const size_t rank = rng() % 9;
  std::vector<int64_t> shape(rank);
  for (auto& d : shape)
    d = rng() % 17 == 0 ? 0 : 1 + static_cast<int64_t>(rng() % 6);
  return shape;
}

class StridedTest : public ::testing::TestWithParam<const char*> {};

TEST_P(StridedTest, RandomViewsMatchTheOracle) {
  const std::string variant = GetParam();
  std::mt19937_64 rng(1234);
  int64_t checked = 0;
  for (int iteration = 0; iteration < 1500; ++iteration) {
    const lrelu_dtype_t dtype = testing::AllDTypes()[iteration % 4];
    const std::vector<int64_t> shape = RandomShape(rng);
    const bool gradient = iteration % 3 == 0;
    const bool in_place = iteration % 5 == 0;
    const double alpha = testing::SweepAlphas()[iteration % 11];
    const auto x_strides = RandomStrides(shape, !in_place, rng);
    const auto s_strides = RandomStrides(shape, true, rng);
    const auto y_strides =
        in_place ? x_strides : RandomStrides(shape, false, rng);
    LeakyReluTester t;
    t.dtype(dtype)
        .shape(shape)
        .strides(x_strides, s_strides, y_strides)
        .gradient(gradient)
        .inplace(in_place)
        .alpha(alpha)
        .variant(variant)
        .threads(1 + static_cast<size_t>(iteration) % 3)
        .seed(rng());
    std::string diff;
    try {
      diff = t.Run();
    } catch (const Error& e) {
      // Only a forced contiguous variant on a strided layout may refuse.
      ASSERT_EQ(variant, "contiguous") << e.what();
      ASSERT_EQ(e.status(), LRELU_STATUS_UNSUPPORTED_VARIANT);
      continue;
    }
    ASSERT_EQ(diff, "") << "iteration " << iteration << ": " << t.Describe();
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    checked += count;
  }
  // A forced contiguous variant serves only the views that coalesce.
  EXPECT_GT(checked, variant == "contiguous" ? 100 : 10000);
}

INSTANTIATE_TEST_SUITE_P(Variants, StridedTest,
                         ::testing::Values("auto", "strided", "reference",
                                           "contiguous"));

TEST(Strided, AutoPicksContiguousWhenViewsCoalesce) {
  std::vector<float> x(24, -1.0f), y(24);
  // Fortran order in both: still one dense run.
  TensorView fx(x.data(), DType::kFloat32, {2, 3, 4}, {1, 2, 6});
  TensorView fy(y.data(), DType::kFloat32, {2, 3, 4}, {1, 2, 6});
  EXPECT_EQ(Executor::forward(fx, 0.1, fy).variant(), "contiguous");
  // Both reversed: dense too.
  TensorView rx(x.data() + 23, DType::kFloat32, {24}, {-1});
  TensorView ry(y.data() + 23, DType::kFloat32, {24}, {-1});
  EXPECT_EQ(Executor::forward(rx, 0.1, ry).variant(), "contiguous");
  // x reversed into y forward: strided.
  TensorView cy(y.data(), DType::kFloat32, {24});
  EXPECT_EQ(Executor::forward(rx, 0.1, cy).variant(), "strided");
  // Rank 0 and all-ones shapes are one element.
  TensorView scalar(x.data(), DType::kFloat32, {});
  EXPECT_EQ(Executor::forward(scalar, 0.1, scalar).variant(), "contiguous");
  // Empty.
  TensorView empty(nullptr, DType::kFloat32, {3, 0, 2});
  EXPECT_EQ(Executor::forward(empty, 0.1, empty).variant(), "empty");
}

}  // namespace
}  // namespace lrelu
