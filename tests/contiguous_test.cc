// The contiguous path through the public API against the oracle: every
// dtype x alpha x size 0..300 (all heads and tails) x in-place x unaligned
// pointers, and large sizes x thread counts, forward and gradient.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "lrelu/lrelu.hpp"
#include "support/test_data.h"

namespace lrelu {
namespace {

using testing::AllDTypes;
using testing::CompareWithReference;
using testing::RandomBits;
using testing::SweepAlphas;

struct Case {
  lrelu_dtype_t dtype;
  size_t n;
  size_t offset;  // elements, or a byte for "not even element-aligned"
  bool misaligned_bytes;
  bool in_place;
  bool gradient;
  size_t threads;
};

// Runs one case and returns the oracle comparison ("" = bit-exact).
std::string RunCase(const Case& c, double alpha, std::mt19937_64& rng,
                    size_t* tasks = nullptr) {
  const size_t size = lrelu_dtype_size(c.dtype);
  const auto v = RandomBits(c.dtype, c.n, rng);
  const auto s = RandomBits(c.dtype, c.n, rng);
  const size_t shift = c.misaligned_bytes ? 1 : c.offset * size;
  std::vector<unsigned char> vbuf(v.size() + shift + 64);
  std::vector<unsigned char> sbuf(s.size() + shift + 64);
  std::vector<unsigned char> obuf(v.size() + shift + 64, 0xa5);
  unsigned char* pv = vbuf.data() + shift;
  unsigned char* ps = sbuf.data() + shift;
  unsigned char* po = c.in_place ? pv : obuf.data() + shift;
  std::copy(v.begin(), v.end(), pv);
  std::copy(s.begin(), s.end(), ps);
  const auto d = static_cast<DType>(c.dtype);
  const std::vector<int64_t> shape = {static_cast<int64_t>(c.n)};
  Options options;
  options.threads = c.threads;
  Executor e = c.gradient
                   ? Executor::backward(TensorView(pv, d, shape),
                                        TensorView(ps, d, shape), alpha,
                                        GradSource::kFromX,
                                        TensorView(po, d, shape), options)
                   : Executor::forward(TensorView(pv, d, shape), alpha,
                                       TensorView(po, d, shape), options);
  e.execute();
  if (tasks != nullptr) *tasks = e.tasks();
  if (c.n > 0 && e.variant() != "contiguous") return "variant " + e.variant();
  // Nothing outside the output may change.
  if (!c.in_place) {
    for (size_t i = 0; i < shift; ++i) {
      if (obuf[i] != 0xa5) return "wrote before the output";
    }
    for (size_t i = shift + v.size(); i < obuf.size(); ++i) {
      if (obuf[i] != 0xa5) return "wrote past the output";
    }
  }
  return CompareWithReference(c.dtype, v.data(),
                              c.gradient ? s.data() : v.data(), po, c.n, alpha);
}

TEST(Contiguous, EverySizeUpTo300) {
  std::mt19937_64 rng(7);
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (double alpha : SweepAlphas()) {
      for (size_t n = 0; n <= 300; ++n) {
        for (int variant = 0; variant < 4; ++variant) {
          Case c{dtype,
                 n,
                 static_cast<size_t>(variant) % 3,
                 variant == 3,
                 variant == 1,
                 n % 2 == 1,
                 1};
          ASSERT_EQ(RunCase(c, alpha, rng), "")
              << lrelu_dtype_name(dtype) << " n=" << n << " variant "
              << variant;
        }
      }
    }
  }
}

TEST(Contiguous, LargeSizesOnSeveralThreads) {
  std::mt19937_64 rng(8);
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (size_t n :
         {size_t{1} << 20, (size_t{1} << 20) + 37, size_t{3000017}}) {
      for (size_t threads : {1, 2, 3}) {
        for (bool in_place : {false, true}) {
          Case c{dtype, n, threads - 1, false, in_place, threads == 2, threads};
          size_t tasks = 0;
          ASSERT_EQ(RunCase(c, threads == 3 ? -0.5 : 0.01, rng, &tasks), "")
              << lrelu_dtype_name(dtype) << " n=" << n
              << " threads=" << threads;
          EXPECT_EQ(tasks, threads) << "a large call should use every thread";
        }
      }
    }
  }
}

TEST(Contiguous, StreamingSizeOutOfPlace) {
  // Large enough for non-temporal stores; both pointer alignments.
  std::mt19937_64 rng(9);
  for (lrelu_dtype_t dtype : AllDTypes()) {
    const size_t n = (size_t{24} << 20) / lrelu_dtype_size(dtype) + 5;
    for (size_t offset : {0, 1}) {
      Case c{dtype, n, offset, false, false, offset == 1, 2};
      ASSERT_EQ(RunCase(c, 0.01, rng), "") << lrelu_dtype_name(dtype);
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
