// Strided views through the public API: random ranks 0..8, shapes with
// zero-size dimensions, negative and zero (input) strides, gaps, Fortran
// order, in-place, on every variant; each element checked against the
// oracle and every byte outside the output checked untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "lrelu/lrelu.hpp"
#include "reference/reference.h"
#include "support/test_data.h"

namespace lrelu {
namespace {

using testing::LoadBits;
using testing::StoreBits;

// A random view over its own buffer.
struct View {
  std::vector<unsigned char> buffer;
  int64_t origin = 0;  // element index of the first logical element
  std::vector<int64_t> strides;
  size_t elem = 0;
  void* data() { return buffer.data() + origin * static_cast<int64_t>(elem); }
  int64_t Offset(const std::vector<int64_t>& index) const {
    int64_t o = origin;
    for (size_t k = 0; k < index.size(); ++k) o += index[k] * strides[k];
    return o;
  }
};

// Layout: dimensions in a random order, each with a random gap, then random
// signs; `allow_zero` lets an input repeat elements (stride 0).
View MakeView(const std::vector<int64_t>& shape, size_t elem, bool allow_zero,
              std::mt19937_64& rng) {
  const size_t rank = shape.size();
  std::vector<size_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  if (rng() % 3 == 0) {
    std::reverse(order.begin(), order.end());  // Fortran order
  } else if (rng() % 2 == 0) {
    std::shuffle(order.begin(), order.end(), rng);
  }
  View v;
  v.elem = elem;
  v.strides.assign(rank, 0);
  int64_t step = 1 + static_cast<int64_t>(rng() % 2);
  for (size_t k = rank; k-- > 0;) {
    const size_t dim = order[k];
    v.strides[dim] = step;
    step *= std::max<int64_t>(shape[dim], 1) + static_cast<int64_t>(rng() % 2);
  }
  int64_t lo = 0, hi = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (allow_zero && rng() % 6 == 0) v.strides[d] = 0;
    if (rng() % 3 == 0) v.strides[d] = -v.strides[d];
    const int64_t reach = v.strides[d] * std::max<int64_t>(shape[d] - 1, 0);
    (reach < 0 ? lo : hi) += reach;
  }
  v.origin = -lo;
  v.buffer.assign(static_cast<size_t>(hi - lo + 1) * elem, 0);
  return v;
}

void ForEachIndex(const std::vector<int64_t>& shape,
                  const std::function<void(const std::vector<int64_t>&)>& f) {
  for (int64_t d : shape) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(shape.size(), 0);
  while (true) {
    f(index);
    size_t k = shape.size();
    while (k > 0) {
      --k;
      if (++index[k] < shape[k]) break;
      index[k] = 0;
      if (k == 0) return;
    }
    if (shape.empty()) return;
  }
}

std::vector<int64_t> RandomShape(std::mt19937_64& rng) {
  const size_t rank = rng() % 9;
  std::vector<int64_t> shape(rank);
  for (auto& d : shape)
    d = rng() % 17 == 0 ? 0 : 1 + static_cast<int64_t>(rng() % 6);
  return shape;
}

void Fill(View* v, lrelu_dtype_t dtype, std::mt19937_64& rng) {
  const auto bits = testing::RandomBits(dtype, v->buffer.size() / v->elem, rng);
  std::copy(bits.begin(), bits.end(), v->buffer.begin());
}

class StridedTest : public ::testing::TestWithParam<const char*> {};

TEST_P(StridedTest, RandomViewsMatchTheOracle) {
  const std::string variant = GetParam();
  std::mt19937_64 rng(1234);
  int checked = 0;
  for (int iteration = 0; iteration < 1500; ++iteration) {
    const lrelu_dtype_t dtype = testing::AllDTypes()[iteration % 4];
    const size_t elem = lrelu_dtype_size(dtype);
    const auto d = static_cast<DType>(dtype);
    const std::vector<int64_t> shape = RandomShape(rng);
    const bool gradient = iteration % 3 == 0;
    const bool in_place = iteration % 5 == 0;
    const double alpha = testing::SweepAlphas()[iteration % 11];
    View v = MakeView(shape, elem, !in_place, rng);
    View s = MakeView(shape, elem, true, rng);
    Fill(&v, dtype, rng);
    Fill(&s, dtype, rng);
    View out = in_place ? v : MakeView(shape, elem, false, rng);
    if (!in_place) std::fill(out.buffer.begin(), out.buffer.end(), 0x5a);
    const View v_before = v;
    Options options;
    options.variant = variant;
    options.threads = 1 + iteration % 3;
    TensorView tv(v.data(), d, shape, v.strides);
    TensorView ts(s.data(), d, shape, s.strides);
    TensorView to(in_place ? v.data() : out.data(), d, shape, out.strides);
    try {
      if (gradient) {
        leaky_relu_backward(tv, ts, to, alpha, GradSource::kFromX, options);
      } else {
        leaky_relu(tv, to, alpha, options);
      }
    } catch (const Error& e) {
      // Only a forced contiguous variant on a strided layout may refuse.
      ASSERT_EQ(variant, "contiguous") << e.what();
      ASSERT_EQ(e.status(), LRELU_STATUS_UNSUPPORTED_VARIANT);
      continue;
    }
    View& result = in_place ? v : out;
    std::vector<bool> touched(result.buffer.size() / elem, false);
    ForEachIndex(shape, [&](const std::vector<int64_t>& index) {
      const uint64_t vb =
          LoadBits(dtype, v_before.buffer.data(), v_before.Offset(index));
      const uint64_t sb =
          gradient ? LoadBits(dtype, s.buffer.data(), s.Offset(index)) : vb;
      unsigned char expected[8];
      unsigned char vbytes[8], sbytes[8];
      StoreBits(dtype, vbytes, 0, vb);
      StoreBits(dtype, sbytes, 0, sb);
      reference::Apply(dtype, vbytes, sbytes, expected, 1, alpha);
      const int64_t o = result.Offset(index);
      touched[o] = true;
      ASSERT_TRUE(
          testing::ElementMatches(dtype, sb, LoadBits(dtype, expected, 0),
                                  LoadBits(dtype, result.buffer.data(), o)))
          << "iteration " << iteration << " " << lrelu_dtype_name(dtype);
      ++checked;
    });
    if (!in_place) {
      for (size_t i = 0; i < touched.size(); ++i) {
        if (touched[i]) continue;
        ASSERT_EQ(
            LoadBits(dtype, out.buffer.data(), i),
            LoadBits(dtype, std::vector<unsigned char>(8, 0x5a).data(), 0))
            << "wrote outside the view, iteration " << iteration;
      }
    }
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
