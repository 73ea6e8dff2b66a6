// PReLU (contract ai.onnx.PRelu v1) through the C ABI: every dtype x
// broadcast pattern x SIMD target x thread count, y and dx bit-exact against
// the LeakyReLU oracle element by element, dalpha against an independent
// exact oracle (GMP), and the same dalpha bits whatever the threads/target.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "lrelu/lrelu.h"
#include "prelu/exact_oracle.h"
#include "support/test_data.h"

namespace lrelu::testing {
namespace {

struct Pattern {
  const char* name;
  std::vector<int64_t> x_shape;
  std::vector<int64_t> alpha_shape;
};

std::vector<Pattern> Patterns() {
  return {
      {"scalar", {2, 3, 5, 7}, {}},
      {"one", {2, 3, 5, 7}, {1}},
      {"nchw", {2, 6, 5, 7}, {6, 1, 1}},
      {"nhwc", {2, 5, 7, 6}, {6}},
      {"rows", {2, 6, 5, 7}, {5, 1}},
      {"full", {3, 5, 7}, {3, 5, 7}},
      {"middle", {2, 6, 5, 7}, {1, 6, 1, 7}},
      {"vector", {300}, {300}},
      {"nhwc64", {2, 3, 64}, {64}},
      {"nhwc_rows", {4, 3, 70}, {3, 70}},
  };
}

// A C-contiguous tensor of raw bits.
struct Tensor {
  lrelu_dtype_t dtype;
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;
  size_t n() const { return bytes.size() / lrelu_dtype_size(dtype); }
  lrelu_tensor_t View() {
    return {bytes.data(), dtype, static_cast<int32_t>(shape.size()),
            shape.data(), nullptr};
  }
  uint64_t Bits(size_t i) const { return LoadBits(dtype, bytes.data(), i); }
};

size_t Count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

// Finite values only (specials make every sum NaN or inf): random bit
// patterns with the all-ones exponent replaced.
Tensor Random(lrelu_dtype_t dtype, const std::vector<int64_t>& shape,
              std::mt19937_64& rng, bool specials) {
  Tensor t{dtype, shape, RandomBits(dtype, Count(shape), rng)};
  if (!specials) {
    for (size_t i = 0; i < t.n(); ++i) {
      uint64_t b = t.Bits(i);
      const double v = ValueOf(dtype, b);
      if (!std::isfinite(v)) {
        b = LoadBits(dtype, RandomBits(dtype, 1, rng).data(), 0);
        if (!std::isfinite(ValueOf(dtype, b))) b = 0;
        StoreBits(dtype, t.bytes.data(), i, b);
      }
    }
  }
  return t;
}

// alpha made positive and finite for the forward pass's own kernels
// (float16's round trip, bfloat16's sign test): signs cleared, zeros to the
// smallest subnormal. alpha holds finite values (Random without specials).
void MakePositive(Tensor& alpha) {
  const size_t e = lrelu_dtype_size(alpha.dtype);
  for (size_t i = 0; i < alpha.n(); ++i) {
    const uint64_t b = alpha.Bits(i) & ((uint64_t{1} << (8 * e - 1)) - 1);
    StoreBits(alpha.dtype, alpha.bytes.data(), i, b == 0 ? 1 : b);
  }
}

// Index of alpha's element for x's flat index i (unidirectional broadcast).
size_t AlphaIndexOf(const std::vector<int64_t>& xs,
                    const std::vector<int64_t>& as, size_t i) {
  std::vector<int64_t> idx(xs.size());
  for (size_t k = xs.size(); k-- > 0;) {
    idx[k] = static_cast<int64_t>(i % static_cast<size_t>(xs[k]));
    i /= static_cast<size_t>(xs[k]);
  }
  size_t a = 0;
  const size_t off = xs.size() - as.size();
  for (size_t j = 0; j < as.size(); ++j) {
    a = a * static_cast<size_t>(as[j]) +
        static_cast<size_t>(as[j] == 1 ? 0 : idx[off + j]);
  }
  return a;
}

struct Setting {
  const char* target;
  size_t threads;
};

lrelu_options_t Options(const Setting& r) {
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.cpu_target = r.target;
  o.threads = r.threads;
  return o;
}

std::vector<Setting> Settings() {
  std::vector<Setting> runs;
  for (size_t t = 0; t < lrelu_cpu_target_count(); ++t) {
    for (size_t threads : {1, 2, 3, 7}) {
      runs.push_back({lrelu_cpu_target_name(t), threads});
    }
  }
  return runs;
}

// The alpha dtypes a dtype accepts: its own, and float64 for the others.
std::vector<lrelu_dtype_t> AlphaDTypes(lrelu_dtype_t d) {
  if (d == LRELU_DTYPE_FLOAT64) return {d};
  return {d, LRELU_DTYPE_FLOAT64};
}

void CheckForward(const Tensor& x, const Tensor& alpha, const Tensor& y,
                  const std::string& what) {
  for (size_t i = 0; i < x.n(); ++i) {
    const size_t a = AlphaIndexOf(x.shape, alpha.shape, i);
    const double av = ValueOf(alpha.dtype, alpha.Bits(a));
    const uint64_t xb = x.Bits(i);
    const uint64_t yb = y.Bits(i);
    const std::string err =
        CompareWithReference(x.dtype, &x.bytes[i * lrelu_dtype_size(x.dtype)],
                             &x.bytes[i * lrelu_dtype_size(x.dtype)],
                             &y.bytes[i * lrelu_dtype_size(x.dtype)], 1, av);
    ASSERT_EQ(err, "") << what << " element " << i << " x " << Hex(xb, 8)
                       << " y " << Hex(yb, 8);
  }
}

// dx at `dx` (x's shape and dtype) against the LeakyReLU gradient oracle,
// dx = x < 0 ? alpha * dy : dy, element by element (alpha broadcast to x).
// Where dy is NaN and x negative any NaN passes (contract §2).
void CheckDx(const Tensor& x, const Tensor& dy, const Tensor& alpha,
             const unsigned char* dx, const std::string& what) {
  const size_t e = lrelu_dtype_size(x.dtype);
  for (size_t i = 0; i < x.n(); ++i) {
    const size_t a = AlphaIndexOf(x.shape, alpha.shape, i);
    ASSERT_EQ(CompareWithReference(x.dtype, &dy.bytes[i * e], &x.bytes[i * e],
                                   dx + i * e, 1,
                                   ValueOf(alpha.dtype, alpha.Bits(a))),
              "")
        << what << " dx element " << i;
  }
}

// Expected dalpha per alpha element, from the GMP oracle.
std::vector<uint64_t> ExpectedDalpha(const Tensor& x, const Tensor& dy,
                                     const Tensor& alpha) {
  std::vector<std::vector<uint64_t>> xs(alpha.n()), dys(alpha.n());
  for (size_t i = 0; i < x.n(); ++i) {
    const size_t a = AlphaIndexOf(x.shape, alpha.shape, i);
    xs[a].push_back(x.Bits(i));
    dys[a].push_back(dy.Bits(i));
  }
  std::vector<uint64_t> out(alpha.n());
  for (size_t a = 0; a < alpha.n(); ++a) {
    out[a] = ExactDalpha(x.dtype, xs[a], dys[a], alpha.dtype);
  }
  return out;
}

void CheckDalpha(const std::vector<uint64_t>& expected, const Tensor& dalpha,
                 const std::string& what) {
  for (size_t a = 0; a < expected.size(); ++a) {
    const uint64_t got = dalpha.Bits(a);
    if (IsNaNBits(dalpha.dtype, expected[a])) {
      ASSERT_TRUE(IsNaNBits(dalpha.dtype, got)) << what << " dalpha " << a;
    } else {
      ASSERT_EQ(Hex(got, 8), Hex(expected[a], 8)) << what << " dalpha " << a;
    }
  }
}

// dalpha from lrelu_prelu_backward on every Setting() is ExpectedDalpha's.
// (Tensor::View wants a mutable tensor: the test's tensors are copied.)
void CheckDalphaOnEverySetting(Tensor x, Tensor dy, Tensor alpha) {
  const std::vector<uint64_t> want = ExpectedDalpha(x, dy, alpha);
  for (const Setting& r : Settings()) {
    const lrelu_options_t o = Options(r);
    Tensor dalpha = alpha;
    lrelu_tensor_t tx = x.View(), tdy = dy.View(), ta = alpha.View(),
                   tda = dalpha.View();
    ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, nullptr, &tda, &o),
              LRELU_STATUS_OK)
        << lrelu_last_error();
    CheckDalpha(want, dalpha,
                std::string(lrelu_dtype_name(x.dtype)) + " " + r.target +
                    " threads " + std::to_string(r.threads));
  }
}

class PreluSweep : public ::testing::TestWithParam<lrelu_dtype_t> {};

TEST_P(PreluSweep, EveryPatternTargetAndThreadCount) {
  const lrelu_dtype_t dtype = GetParam();
  std::mt19937_64 rng(1234 + static_cast<int>(dtype));
  for (const Pattern& pat : Patterns()) {
    for (lrelu_dtype_t adt : AlphaDTypes(dtype)) {
      for (bool specials : {false, true}) {
        Tensor x = Random(dtype, pat.x_shape, rng, specials);
        Tensor dy = Random(dtype, pat.x_shape, rng, specials);
        Tensor alpha = Random(adt, pat.alpha_shape, rng, specials);
        const std::vector<uint64_t> want = ExpectedDalpha(x, dy, alpha);
        for (const Setting& r : Settings()) {
          const std::string what =
              std::string(pat.name) + " " + lrelu_dtype_name(dtype) +
              " alpha " + lrelu_dtype_name(adt) + " " + r.target + " threads " +
              std::to_string(r.threads) + (specials ? " specials" : "");
          const lrelu_options_t o = Options(r);
          Tensor y = x;
          lrelu_tensor_t tx = x.View(), ta = alpha.View(), ty = y.View();
          ASSERT_EQ(lrelu_prelu(&tx, &ta, &ty, &o), LRELU_STATUS_OK)
              << what << ": " << lrelu_last_error();
          CheckForward(x, alpha, y, what);
          Tensor dx = dy;
          Tensor dalpha = alpha;
          lrelu_tensor_t tdy = dy.View(), tdx = dx.View(), tda = dalpha.View();
          ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, &tdx, &tda, &o),
                    LRELU_STATUS_OK)
              << what << ": " << lrelu_last_error();
          CheckDx(x, dy, alpha, dx.bytes.data(), what);
          CheckDalpha(want, dalpha, what);
        }
      }
    }
  }
}

// The one-shot calls whose options name neither a variant nor a target
// (NULL options, or threads alone) take a checked-once path without a plan
// (api/prelu.cc QuickRows) when x, alpha and the outputs have no strides:
// every pattern, thread count and in-place form against the oracle.
TEST_P(PreluSweep, QuickPathEveryPatternAndThreadCount) {
  const lrelu_dtype_t dtype = GetParam();
  std::mt19937_64 rng(99 + static_cast<int>(dtype));
  for (const Pattern& pat : Patterns()) {
    for (bool specials : {false, true}) {
      const Tensor x = Random(dtype, pat.x_shape, rng, specials);
      const Tensor dy = Random(dtype, pat.x_shape, rng, specials);
      Tensor alpha = Random(dtype, pat.alpha_shape, rng, specials);
      for (size_t threads :
           {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{7}}) {
        lrelu_options_t o;
        lrelu_options_init(&o);
        o.threads = threads;
        const lrelu_options_t* options = threads == 0 ? nullptr : &o;
        const std::string what = std::string(pat.name) + " " +
                                 lrelu_dtype_name(dtype) + " threads " +
                                 std::to_string(threads) +
                                 (specials ? " specials" : "");
        Tensor xc = x, y = x, dyc = dy, dx = dy;
        lrelu_tensor_t tx = xc.View(), ta = alpha.View(), ty = y.View(),
                       tdy = dyc.View(), tdx = dx.View();
        ASSERT_EQ(lrelu_prelu(&tx, &ta, &ty, options), LRELU_STATUS_OK)
            << what << ": " << lrelu_last_error();
        CheckForward(x, alpha, y, what + " out of place");
        Tensor in_place = x;
        lrelu_tensor_t tip = in_place.View();
        ASSERT_EQ(lrelu_prelu(&tip, &ta, &tip, options), LRELU_STATUS_OK);
        CheckForward(x, alpha, in_place, what + " in place");
        // dx alone, out of place, into dy and into x.
        Tensor into_dy = dy, into_x = x;
        lrelu_tensor_t tid = into_dy.View(), tix = into_x.View();
        ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, &tdx, nullptr, options),
                  LRELU_STATUS_OK)
            << what << ": " << lrelu_last_error();
        ASSERT_EQ(lrelu_prelu_backward(&tid, &tx, &ta, &tid, nullptr, options),
                  LRELU_STATUS_OK);
        ASSERT_EQ(lrelu_prelu_backward(&tdy, &tix, &ta, &tix, nullptr, options),
                  LRELU_STATUS_OK);
        for (const Tensor* out : {&dx, &into_dy, &into_x}) {
          CheckDx(x, dy, alpha, out->bytes.data(),
                  what + (out == &dx        ? ""
                          : out == &into_dy ? " into dy"
                                            : " into x"));
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    DTypes, PreluSweep,
    ::testing::Values(LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16,
                      LRELU_DTYPE_BFLOAT16, LRELU_DTYPE_FLOAT64),
    [](const ::testing::TestParamInfo<lrelu_dtype_t>& param) {
      return std::string(lrelu_dtype_name(param.param));
    });

// Large enough that the work splits into tasks: dalpha's bits must not
// depend on the threads or the target.
TEST(Prelu, DalphaSameBitsForEveryThreadCountAndTarget) {
  for (lrelu_dtype_t dtype : AllDTypes()) {
    std::mt19937_64 rng(99);
    for (const auto& shapes :
         std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
             {{4, 64, 32, 32}, {64, 1, 1}},
             {{4, 32, 32, 64}, {64}},
             {{1 << 17}, {}}}) {
      Tensor x = Random(dtype, shapes.first, rng, false);
      Tensor dy = Random(dtype, shapes.first, rng, false);
      Tensor alpha = Random(dtype, shapes.second, rng, false);
      CheckDalphaOnEverySetting(x, dy, alpha);
    }
  }
}

// Cancellation a float sum gets wrong: 2^100 + 1 - 2^100 is exactly 1.
TEST(Prelu, DalphaIsTheExactSumRoundedOnce) {
  const double xs[] = {-1.0, -1.0, -1.0, -3.0};
  const double dys[] = {-0x1p100, -1.0, 0x1p100, 0x1p-60};
  Tensor x{LRELU_DTYPE_FLOAT64, {4}, std::vector<unsigned char>(32)};
  Tensor dy = x;
  std::memcpy(x.bytes.data(), xs, 32);
  std::memcpy(dy.bytes.data(), dys, 32);
  Tensor alpha{LRELU_DTYPE_FLOAT64, {}, std::vector<unsigned char>(8)};
  Tensor dalpha = alpha;
  lrelu_tensor_t tx = x.View(), tdy = dy.View(), ta = alpha.View(),
                 tda = dalpha.View();
  ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, nullptr, &tda, nullptr),
            LRELU_STATUS_OK);
  double got;
  std::memcpy(&got, dalpha.bytes.data(), 8);
  // 2^100 + 1 - 2^100 - 3*2^-60 = 1 - 3*2^-60, rounded once to float64.
  EXPECT_EQ(got, 1.0 - 0x3p-60);
  EXPECT_EQ(Hex(dalpha.Bits(0), 8),
            Hex(ExactDalpha(LRELU_DTYPE_FLOAT64,
                            {x.Bits(0), x.Bits(1), x.Bits(2), x.Bits(3)},
                            {dy.Bits(0), dy.Bits(1), dy.Bits(2), dy.Bits(3)},
                            LRELU_DTYPE_FLOAT64),
                8));
}

// NaN alphas whose payload fills their bits, as a float64 alpha of a 16-bit
// x may have: the AVX-512 bfloat16 rows round each product in 16-bit halves
// (cpu/bfloat16_words-inl.h), and such a NaN product's lower half would
// carry the rounding into the sign, giving -0 or +0. Every 16-bit pattern
// of x, NCHW and NHWC, forward and dx, every target and thread count.
TEST(Prelu, NaNAlphaPayloadsKeepNaN) {
  const uint64_t kNaNs[] = {0x7fffffffffffffffull, 0xffffffffffffffffull,
                            0x7ff0000000000001ull, 0x7ff7ffffffffe000ull};
  constexpr int64_t kChannels = 64;
  constexpr int64_t kPlane = 1024;  // kChannels * kPlane = 2^16 patterns
  for (lrelu_dtype_t dtype : {LRELU_DTYPE_BFLOAT16, LRELU_DTYPE_FLOAT16}) {
    for (bool nhwc : {false, true}) {
      const std::vector<int64_t> shape =
          nhwc ? std::vector<int64_t>{kPlane, kChannels}
               : std::vector<int64_t>{kChannels, kPlane};
      const std::vector<int64_t> ashape =
          nhwc ? std::vector<int64_t>{kChannels}
               : std::vector<int64_t>{kChannels, 1};
      constexpr size_t kPatterns = size_t{1} << 16;
      Tensor x{dtype, shape, std::vector<unsigned char>(2 * kPatterns)};
      for (size_t i = 0; i < kPatterns; ++i) {
        StoreBits(dtype, x.bytes.data(), i, i);
      }
      Tensor dy = x;
      Tensor alpha{LRELU_DTYPE_FLOAT64, ashape,
                   std::vector<unsigned char>(8 * kChannels)};
      for (size_t k = 0; k < static_cast<size_t>(kChannels); ++k) {
        StoreBits(
            LRELU_DTYPE_FLOAT64, alpha.bytes.data(), k,
            k % 2 == 0 ? kNaNs[k / 2 % 4] : reference::BitCast<uint64_t>(0.3));
      }
      for (const Setting& r : Settings()) {
        const std::string what = std::string(lrelu_dtype_name(dtype)) +
                                 (nhwc ? " NHWC " : " NCHW ") + r.target +
                                 " threads " + std::to_string(r.threads);
        const lrelu_options_t o = Options(r);
        Tensor y = x, dx = dy;
        lrelu_tensor_t tx = x.View(), ta = alpha.View(), ty = y.View();
        lrelu_tensor_t tdy = dy.View(), tdx = dx.View();
        ASSERT_EQ(lrelu_prelu(&tx, &ta, &ty, &o), LRELU_STATUS_OK)
            << what << ": " << lrelu_last_error();
        CheckForward(x, alpha, y, what);
        ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, &tdx, nullptr, &o),
                  LRELU_STATUS_OK)
            << what << ": " << lrelu_last_error();
        CheckForward(x, alpha, dx, what + " dx");  // dy is x here
      }
    }
  }
}

// Strided views (a transposed x, y, dx) and in place (y = x, dx = dy).
TEST(Prelu, StridedAndInPlace) {
  std::mt19937_64 rng(7);
  const lrelu_dtype_t dtype = LRELU_DTYPE_FLOAT32;
  Tensor x = Random(dtype, {6, 20}, rng, true);  // viewed as [20, 6]
  Tensor alpha = Random(dtype, {6}, rng, true);
  const std::vector<int64_t> tshape = {20, 6}, tstrides = {1, 20};
  Tensor y = x;
  lrelu_tensor_t tx = {x.bytes.data(), dtype, 2, tshape.data(),
                       tstrides.data()};
  lrelu_tensor_t ty = {y.bytes.data(), dtype, 2, tshape.data(),
                       tstrides.data()};
  lrelu_tensor_t ta = alpha.View();
  ASSERT_EQ(lrelu_prelu(&tx, &ta, &ty, nullptr), LRELU_STATUS_OK)
      << lrelu_last_error();
  Tensor inplace = x;
  lrelu_tensor_t ti = {inplace.bytes.data(), dtype, 2, tshape.data(),
                       tstrides.data()};
  ASSERT_EQ(lrelu_prelu(&ti, &ta, &ti, nullptr), LRELU_STATUS_OK);
  EXPECT_EQ(inplace.bytes, y.bytes);
  for (int64_t i = 0; i < 20; ++i) {
    for (int64_t c = 0; c < 6; ++c) {
      const size_t flat = static_cast<size_t>(c * 20 + i);
      EXPECT_EQ(CompareWithReference(dtype, &x.bytes[flat * 4],
                                     &x.bytes[flat * 4], &y.bytes[flat * 4], 1,
                                     ValueOf(dtype, alpha.Bits(c))),
                "");
    }
  }
}

// The dalpha kernels' paths (contiguous runs through the SIMD kernel with
// partial vectors, NHWC segments gathered, strided runs) and the forward
// rows, for ragged channel counts (1, 3, 64, 513: not multiples of any lane
// count) and x/dy strided in their last axis, on every target and thread
// count: y and dx against the LeakyReLU oracle, dalpha against the GMP one.
TEST(Prelu, KernelPathsRaggedChannelsAndStrides) {
  std::mt19937_64 rng(2024);
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (int64_t c : {1, 3, 64, 513}) {
      for (bool nhwc : {false, true}) {
        for (int64_t step : {1, 2}) {
          const std::vector<int64_t> shape =
              nhwc ? std::vector<int64_t>{2, 41, c}
                   : std::vector<int64_t>{2, c, 3, 11};
          const std::vector<int64_t> ashape =
              nhwc ? std::vector<int64_t>{c} : std::vector<int64_t>{c, 1, 1};
          const bool specials = c == 3;
          Tensor x = Random(dtype, shape, rng, specials);
          Tensor dy = Random(dtype, shape, rng, specials);
          Tensor alpha = Random(dtype, ashape, rng, false);
          const std::vector<uint64_t> want = ExpectedDalpha(x, dy, alpha);
          // x and dy as every step-th element of wider buffers.
          std::vector<int64_t> strides(shape.size());
          int64_t stride = step;
          for (size_t k = shape.size(); k-- > 0;) {
            strides[k] = stride;
            stride *= shape[k];
          }
          const size_t e = lrelu_dtype_size(dtype);
          std::vector<unsigned char> xw(x.bytes.size() * step), dyw(xw.size());
          for (size_t i = 0; i < x.n(); ++i) {
            std::memcpy(&xw[i * step * e], &x.bytes[i * e], e);
            std::memcpy(&dyw[i * step * e], &dy.bytes[i * e], e);
          }
          const auto rank = static_cast<int32_t>(shape.size());
          lrelu_tensor_t tx = {xw.data(), dtype, rank, shape.data(),
                               strides.data()};
          lrelu_tensor_t tdy = {dyw.data(), dtype, rank, shape.data(),
                                strides.data()};
          lrelu_tensor_t ta = alpha.View();
          for (const Setting& r : Settings()) {
            const std::string what = std::string(lrelu_dtype_name(dtype)) +
                                     " C " + std::to_string(c) +
                                     (nhwc ? " NHWC" : " NCHW") + " step " +
                                     std::to_string(step) + " " + r.target +
                                     " threads " + std::to_string(r.threads);
            const lrelu_options_t o = Options(r);
            Tensor y = x, dx = dy, dalpha = alpha;
            lrelu_tensor_t ty = y.View(), tdx = dx.View(), tda = dalpha.View();
            ASSERT_EQ(lrelu_prelu(&tx, &ta, &ty, &o), LRELU_STATUS_OK)
                << what << ": " << lrelu_last_error();
            CheckForward(x, alpha, y, what);
            ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, &tdx, &tda, &o),
                      LRELU_STATUS_OK)
                << what << ": " << lrelu_last_error();
            CheckDx(x, dy, alpha, dx.bytes.data(), what);
            CheckDalpha(want, dalpha, what);
          }
        }
      }
    }
  }
}

// Per-element rows whose alphas the AVX-512 bfloat16 kernel splits by
// parity once per call (cpu/prelu_rows.cc SplitAlphas: up to 2048 alphas
// with the slack) and those it permutes per vector (more), rows of one
// alpha per element (period == n) and rows that start one element off a
// vector (the first vector's alpha index is odd), and the 128 alphas the
// rows keep in registers, on every target and thread count, forward and dx
// against the oracle.
TEST(Prelu, RowsWithSplitAndPermutedAlphas) {
  std::mt19937_64 rng(2032);
  for (lrelu_dtype_t dtype : AllDTypes()) {
    const size_t e = lrelu_dtype_size(dtype);
    struct Case {
      std::vector<int64_t> shape, ashape;
    };
    const std::vector<Case> cases = {
        {{3, 2032}, {2032}},  // 2032 + 16 alphas: split
        {{3, 2033}, {2033}},  // one more: permuted
        {{2, 777}, {777}},    // odd period: the parity changes at the wrap
        {{5, 128}, {128}},    // eight vectors of alphas held in registers
        // period % 16 >= 10 over nine rows: some 32-element steps read the
        // split copies' last, partial group of 16 alphas (AVX2's
        // SplitAlphas copies it lane by lane)
        {{9, 58}, {58}},
        {{9, 1019}, {1019}},
        {{2047}, {2047}},  // one alpha per element
        {{3000}, {3000}},  // one alpha per element, permuted
    };
    for (const Case& c : cases) {
      Tensor x = Random(dtype, c.shape, rng, true);
      Tensor alpha = Random(dtype, c.ashape, rng, false);
      const lrelu_tensor_t ta = alpha.View();
      for (size_t lead : {size_t{0}, size_t{1}}) {
        // x and y `lead` elements past a 64-byte boundary.
        std::vector<unsigned char> xb(x.bytes.size() + 128), yb(xb.size());
        const auto align = [&](std::vector<unsigned char>& b) {
          const auto base = reinterpret_cast<uintptr_t>(b.data());
          return b.data() + (64 - base % 64) + lead * e;
        };
        unsigned char* const xp = align(xb);
        unsigned char* const yp = align(yb);
        std::memcpy(xp, x.bytes.data(), x.bytes.size());
        const auto rank = static_cast<int32_t>(c.shape.size());
        const lrelu_tensor_t tx = {xp, dtype, rank, c.shape.data(), nullptr};
        const lrelu_tensor_t ty = {yp, dtype, rank, c.shape.data(), nullptr};
        for (const Setting& r : Settings()) {
          const std::string what =
              std::string(lrelu_dtype_name(dtype)) + " C " +
              std::to_string(c.ashape[0]) + " lead " + std::to_string(lead) +
              " " + r.target + " threads " + std::to_string(r.threads);
          const lrelu_options_t o = Options(r);
          ASSERT_EQ(lrelu_prelu(&tx, &ta, &ty, &o), LRELU_STATUS_OK)
              << what << ": " << lrelu_last_error();
          Tensor y = x;
          std::memcpy(y.bytes.data(), yp, y.bytes.size());
          CheckForward(x, alpha, y, what);
          // dx with dy = x: the same rule on dy's values.
          ASSERT_EQ(lrelu_prelu_backward(&tx, &tx, &ta, &ty, nullptr, &o),
                    LRELU_STATUS_OK)
              << what << ": " << lrelu_last_error();
          std::memcpy(y.bytes.data(), yp, y.bytes.size());
          CheckForward(x, alpha, y, what + " dx");
        }
      }
    }
  }
}

// Outputs of 8 MiB and more are written with non-temporal stores from the
// first vector-aligned element on. The output here starts one element past
// a 64-byte boundary, and 32 bytes further: its 32-byte-aligned body then
// starts off a 64-byte line and on one (the AVX-512 bfloat16 rows stream
// their 64-byte vectors in halves in the first case). The head, the
// streamed body and the tail all run, on every target, for planes (NCHW:
// one alpha per row, blended at the seams) and per-element rows (NHWC),
// forward and dx, with random alphas and then positive ones.
TEST(Prelu, StreamedOutputsWithUnalignedStarts) {
  std::mt19937_64 rng(7);
  for (lrelu_dtype_t dtype : {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_BFLOAT16}) {
    const size_t e = lrelu_dtype_size(dtype);
    const int64_t hw = (int64_t{9} << 20) / static_cast<int64_t>(e) / 3 + 5;
    for (bool nhwc : {false, true}) {
      const std::vector<int64_t> shape =
          nhwc ? std::vector<int64_t>{hw, 3}
               : std::vector<int64_t>{1, 3, 1, hw};
      const std::vector<int64_t> ashape =
          nhwc ? std::vector<int64_t>{3} : std::vector<int64_t>{3, 1, 1};
      Tensor x = Random(dtype, shape, rng, true);
      Tensor dy = Random(dtype, shape, rng, true);
      Tensor alpha = Random(dtype, ashape, rng, false);
      // Positive alphas in a second round: bfloat16's forward pass takes
      // its own kernels for them.
      for (int round = 0; round < 2; ++round) {
        for (size_t i = 0; round == 1 && i < alpha.n(); ++i) {
          const uint64_t b = alpha.Bits(i) & (e == 2 ? 0x7fffu : 0x7fffffffu);
          StoreBits(dtype, alpha.bytes.data(), i, b == 0 ? 1 : b);
        }
        std::vector<unsigned char> buffer((x.n() + 1) * e + 128);
        const auto base = reinterpret_cast<uintptr_t>(buffer.data());
        unsigned char* const aligned = buffer.data() + (64 - base % 64);
        const lrelu_tensor_t tx = x.View(), tdy = dy.View(), ta = alpha.View();
        for (const size_t lead : {size_t{0}, size_t{32}}) {
          unsigned char* const out = aligned + lead;
          const lrelu_tensor_t to = {out + e, dtype,
                                     static_cast<int32_t>(shape.size()),
                                     shape.data(), nullptr};
          const size_t bytes = x.n() * e;
          // The oracle's bytes (variant "reference": src/reference element by
          // element); every target and thread count must give the same.
          lrelu_options_t ro;
          lrelu_options_init(&ro);
          ro.variant = "reference";
          ASSERT_EQ(lrelu_prelu(&tx, &ta, &to, &ro), LRELU_STATUS_OK);
          const std::vector<unsigned char> want_y(out + e, out + e + bytes);
          ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, &to, nullptr, &ro),
                    LRELU_STATUS_OK);
          const std::vector<unsigned char> want_dx(out + e, out + e + bytes);
          for (size_t t = 0; t < lrelu_cpu_target_count(); ++t) {
            for (size_t threads : {1, 2}) {
              const Setting r = {lrelu_cpu_target_name(t), threads};
              const std::string what = std::string(lrelu_dtype_name(dtype)) +
                                       (nhwc ? " NHWC " : " NCHW ") + r.target +
                                       " threads " + std::to_string(threads) +
                                       " lead " + std::to_string(lead);
              const lrelu_options_t o = Options(r);
              std::fill(out, out + e + bytes, 0xA5);
              ASSERT_EQ(lrelu_prelu(&tx, &ta, &to, &o), LRELU_STATUS_OK)
                  << what << ": " << lrelu_last_error();
              ASSERT_EQ(out[0], 0xA5) << what << ": wrote before y";
              ASSERT_TRUE(std::equal(want_y.begin(), want_y.end(), out + e))
                  << what;
              ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, &to, nullptr, &o),
                        LRELU_STATUS_OK)
                  << what << ": " << lrelu_last_error();
              ASSERT_TRUE(std::equal(want_dx.begin(), want_dx.end(), out + e))
                  << what;
            }
          }
        }
      }
    }
  }
}

// NCHW planes whose length is a whole number of four-vector groups on some
// target (16: SSE4 float32, AVX2 float64; 64: AVX2 and AVX3 float32): the
// planes kernel's group path, with y at every element offset from a vector
// boundary (the last vector of each plane then crosses into the next
// plane), over batches (alpha wraps per image) and, large enough for
// several tasks, with tasks that start inside an image; planes of one group
// (32: AVX2 float32, float16 and bfloat16) among them. Random alphas, then
// positive ones (the forward pass's own kernels: float16's round trip,
// bfloat16's sign test).
TEST(Prelu, WholeGroupPlanesAtEveryOffset) {
  std::mt19937_64 rng(11);
  struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> offsets;
  };
  const std::vector<Case> cases = {
      {{3, 5, 4, 4}, {0, 1, 2, 3, 4, 5, 6, 7}},
      {{2, 3, 8, 8}, {0, 1, 3, 4, 7}},
      {{1, 2, 8, 16}, {0, 5}},
      {{2, 9, 4, 8}, {0, 1, 3, 8}},
      {{601, 7, 8, 8}, {0, 4}},  // 2.2 MB in and out: 8 pieces of 526 rows
  };
  for (lrelu_dtype_t dtype : AllDTypes()) {
    const size_t e = lrelu_dtype_size(dtype);
    for (const Case& c : cases) {
      const bool large = c.shape[0] > 100;
      if (large && dtype != LRELU_DTYPE_FLOAT32) continue;
      const std::vector<int64_t> ashape = {c.shape[1], 1, 1};
      Tensor x = Random(dtype, c.shape, rng, !large);
      Tensor dy = Random(dtype, c.shape, rng, !large);
      Tensor alpha = Random(dtype, ashape, rng, false);
      const lrelu_tensor_t tx = x.View(), tdy = dy.View(), ta = alpha.View();
      const auto rank = static_cast<int32_t>(c.shape.size());
      std::vector<unsigned char> out((x.n() + 8) * e);
      for (int round = 0; round < 2; ++round) {
        if (round == 1) MakePositive(alpha);
        for (int64_t offset : c.offsets) {
          unsigned char* y = out.data() + offset * static_cast<int64_t>(e);
          const lrelu_tensor_t to = {y, dtype, rank, c.shape.data(), nullptr};
          lrelu_options_t ro;
          lrelu_options_init(&ro);
          ro.variant = "reference";
          ASSERT_EQ(lrelu_prelu(&tx, &ta, &to, &ro), LRELU_STATUS_OK);
          const std::vector<unsigned char> want_y(y, y + x.bytes.size());
          for (const Setting& r : Settings()) {
            const std::string what =
                std::string(lrelu_dtype_name(dtype)) + " shape " +
                std::to_string(c.shape[0]) + "x" + std::to_string(c.shape[1]) +
                "x" + std::to_string(c.shape[2] * c.shape[3]) + " offset " +
                std::to_string(offset) + (round == 1 ? " positive " : " ") +
                r.target + " threads " + std::to_string(r.threads);
            const lrelu_options_t o = Options(r);
            std::fill(out.begin(), out.end(), 0xA5);
            ASSERT_EQ(lrelu_prelu(&tx, &ta, &to, &o), LRELU_STATUS_OK)
                << what << ": " << lrelu_last_error();
            ASSERT_TRUE(std::equal(want_y.begin(), want_y.end(), y)) << what;
            ASSERT_TRUE(std::all_of(out.begin(), out.begin() + offset * e,
                                    [](unsigned char b) { return b == 0xA5; }))
                << what << ": wrote before y";
            ASSERT_TRUE(std::all_of(y + x.bytes.size(), out.data() + out.size(),
                                    [](unsigned char b) { return b == 0xA5; }))
                << what << ": wrote past y";
            ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, &to, nullptr, &o),
                      LRELU_STATUS_OK)
                << what << ": " << lrelu_last_error();
            CheckDx(x, dy, alpha, y, what);
          }
        }
      }
    }
  }
}

// NCHW planes of every length from 1 to 70 (so one vector to past a group
// of four on every target: a float32 group is 16 elements on SSE4, 32 on
// AVX2, 64 on AVX-512): planes shorter than a group take overlapping
// unaligned vectors per plane, the last one computed before the others are
// stored. y at two element offsets and in place (x's copy); x with -0,
// infinities and NaNs; random alphas, then positive ones (float16's round
// trip, bfloat16's sign test); forward and dx; every target and thread
// count against the oracle.
TEST(Prelu, ShortPlanesEveryLengthAndInPlace) {
  std::mt19937_64 rng(12);
  for (lrelu_dtype_t dtype : AllDTypes()) {
    const size_t e = lrelu_dtype_size(dtype);
    for (int64_t length = 1; length <= 70; ++length) {
      const std::vector<int64_t> shape = {2, 3, length};
      const std::vector<int64_t> ashape = {3, 1};
      Tensor x = Random(dtype, shape, rng, true);
      Tensor dy = Random(dtype, shape, rng, true);
      Tensor alpha = Random(dtype, ashape, rng, false);
      const size_t bytes = x.bytes.size();
      std::vector<unsigned char> out(bytes + 2 * e);
      for (int round = 0; round < 2; ++round) {
        if (round == 1) MakePositive(alpha);
        const lrelu_tensor_t tx = x.View(), tdy = dy.View(), ta = alpha.View();
        lrelu_options_t ro;
        lrelu_options_init(&ro);
        ro.variant = "reference";
        std::vector<unsigned char> want_y(bytes), want_dx(bytes);
        const lrelu_tensor_t wy = {want_y.data(), dtype, 3, shape.data(),
                                   nullptr},
                             wdx = {want_dx.data(), dtype, 3, shape.data(),
                                    nullptr};
        ASSERT_EQ(lrelu_prelu(&tx, &ta, &wy, &ro), LRELU_STATUS_OK);
        ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, &wdx, nullptr, &ro),
                  LRELU_STATUS_OK);
        for (const Setting& r : Settings()) {
          const lrelu_options_t o = Options(r);
          // mode 0, 1: y one or two elements into out; 2: in place.
          for (int mode = 0; mode < 3; ++mode) {
            const std::string what =
                std::string(lrelu_dtype_name(dtype)) + " length " +
                std::to_string(length) + " mode " + std::to_string(mode) +
                (round == 1 ? " positive " : " ") + r.target + " threads " +
                std::to_string(r.threads);
            unsigned char* const y = out.data() + (mode == 1 ? 2 : 1) * e;
            const lrelu_tensor_t ty = {y, dtype, 3, shape.data(), nullptr};
            // Forward: x, or y holding x's copy when in place.
            std::fill(out.begin(), out.end(), 0xA5);
            if (mode == 2) std::copy(x.bytes.begin(), x.bytes.end(), y);
            ASSERT_EQ(lrelu_prelu(mode == 2 ? &ty : &tx, &ta, &ty, &o),
                      LRELU_STATUS_OK)
                << what << ": " << lrelu_last_error();
            ASSERT_TRUE(std::equal(want_y.begin(), want_y.end(), y))
                << what << " forward";
            // dx: into dy's copy when in place.
            std::fill(out.begin(), out.end(), 0xA5);
            if (mode == 2) std::copy(dy.bytes.begin(), dy.bytes.end(), y);
            ASSERT_EQ(lrelu_prelu_backward(mode == 2 ? &ty : &tdy, &tx, &ta,
                                           &ty, nullptr, &o),
                      LRELU_STATUS_OK)
                << what << ": " << lrelu_last_error();
            CheckDx(x, dy, alpha, y, what);
            ASSERT_TRUE(std::all_of(out.data(), y,
                                    [](unsigned char b) { return b == 0xA5; }))
                << what << ": wrote before y";
            ASSERT_TRUE(std::all_of(y + bytes, out.data() + out.size(),
                                    [](unsigned char b) { return b == 0xA5; }))
                << what << ": wrote past y";
          }
        }
      }
    }
  }
}

// dalpha with x at an odd address and a stride of INT64_MAX over an extent
// of 1 (any stride is valid there): the aligned copy of x stepped by that
// stride before testing the extent, an int64 overflow (the prelu fuzzer).
TEST(Prelu, MisalignedDalphaWithAnyStrideOverOne) {
  std::vector<unsigned char> buffer(64);
  const float xs[4] = {-1.5f, 2.0f, -0.25f, -4.0f}, dys[4] = {2, 3, -8, 1};
  unsigned char* const px = buffer.data() + 1;
  std::memcpy(px, xs, sizeof xs);
  const int64_t shape[] = {4, 1}, strides[] = {1, INT64_MAX};
  float a[4] = {0.25f, 0.25f, 0.25f, 0.25f}, da[4] = {}, dy[4];
  std::memcpy(dy, dys, sizeof dy);
  const lrelu_tensor_t tx = {px, LRELU_DTYPE_FLOAT32, 2, shape, strides},
                       tdy = {dy, LRELU_DTYPE_FLOAT32, 2, shape, nullptr},
                       ta = {a, LRELU_DTYPE_FLOAT32, 2, shape, nullptr},
                       tda = {da, LRELU_DTYPE_FLOAT32, 2, shape, nullptr};
  ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, nullptr, &tda, nullptr),
            LRELU_STATUS_OK)
      << lrelu_last_error();
  EXPECT_EQ(da[0], -3.0f);
  EXPECT_EQ(da[1], 0.0f);
  EXPECT_EQ(da[2], 2.0f);
  EXPECT_EQ(da[3], -4.0f);
}

// Empty x (an extent 0) with outputs and inputs whose strides are huge:
// an empty view's strides are not checked, so merging neighbouring axes
// (stride times extent) overflowed, undefined behaviour (the prelu fuzzer:
// 2^61 times 4); dense, with extents whose product overflows (the
// implicit strides: 2^62 times 30); alpha empty too (its count: 2^62 times
// 5). Nothing is written but dalpha, whose elements are empty sums: +0.
// Forward and gradient, one call and two-stage.
TEST(Prelu, EmptyXWithHugeStrides) {
  const auto filled = [](const std::vector<unsigned char>& v, size_t from,
                         size_t to, unsigned char b) {
    return std::all_of(v.begin() + static_cast<std::ptrdiff_t>(from),
                       v.begin() + static_cast<std::ptrdiff_t>(to),
                       [b](unsigned char c) { return c == b; });
  };
  for (lrelu_dtype_t dtype : AllDTypes()) {
    std::vector<unsigned char> x(64, 0x5A), y(64, 0xA5), dy(64, 0x5A),
        a(64, 0x3C), da(64, 0xA5);
    const size_t e = lrelu_dtype_size(dtype);
    // The forward pass (one call and two-stage) into y and the gradient
    // into y (as dx) and da: y must stay as it was.
    const auto run = [&](const lrelu_tensor_t& tx, const lrelu_tensor_t& ta,
                         const lrelu_tensor_t& ty, const lrelu_tensor_t& tdy,
                         const lrelu_tensor_t& tda, const std::string& what) {
      std::fill(da.begin(), da.end(), 0xA5);
      EXPECT_EQ(lrelu_prelu(&tx, &ta, &ty, nullptr), LRELU_STATUS_OK) << what;
      size_t workspace = 0;
      lrelu_executor_t* exec = nullptr;
      ASSERT_EQ(lrelu_prelu_get_workspace_size(&tx, &ta, &ty, nullptr,
                                               &workspace, &exec),
                LRELU_STATUS_OK)
          << what;
      EXPECT_EQ(lrelu_execute(nullptr, 0, exec, nullptr), LRELU_STATUS_OK)
          << what;
      lrelu_executor_destroy(exec);
      ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, &ty, &tda, nullptr),
                LRELU_STATUS_OK)
          << what << ": " << lrelu_last_error();
      EXPECT_TRUE(filled(y, 0, y.size(), 0xA5)) << what << ": y written";
    };
    const std::string name = lrelu_dtype_name(dtype);
    // y and dy with a stride of 2^61 over an extent of 4: dalpha [4] is +0.
    const int64_t shape[] = {5, 0, 1, 4}, ashape[] = {4};
    const int64_t huge[] = {2, 3, 3, int64_t{1} << 61};
    run({x.data(), dtype, 4, shape, nullptr},
        {a.data(), dtype, 1, ashape, nullptr},
        {y.data(), dtype, 4, shape, huge}, {dy.data(), dtype, 4, shape, huge},
        {da.data(), dtype, 1, ashape, nullptr}, name + " strided");
    EXPECT_TRUE(filled(da, 0, 4 * e, 0)) << name << ": dalpha is +0";
    EXPECT_TRUE(filled(da, 4 * e, da.size(), 0xA5)) << name;
    // Dense, with extents whose product overflows int64 before the 0: the
    // implicit strides overflowed too. dalpha [1] is +0.
    const int64_t wide[] = {int64_t{1} << 62, 10, 3, 0}, one[] = {1};
    const lrelu_tensor_t wx = {x.data(), dtype, 4, wide, nullptr};
    run(wx, {a.data(), dtype, 1, one, nullptr},
        {y.data(), dtype, 4, wide, nullptr}, wx,
        {da.data(), dtype, 1, one, nullptr}, name + " dense");
    EXPECT_TRUE(filled(da, 0, e, 0)) << name << ": dalpha is +0";
    // alpha empty as well, its other extents multiplying past int64 (its
    // element count was that product): nothing to write at all.
    const int64_t both[] = {int64_t{1} << 62, 0, 5, 5};
    const lrelu_tensor_t bx = {x.data(), dtype, 4, both, nullptr};
    run(bx, {a.data(), dtype, 4, both, nullptr},
        {y.data(), dtype, 4, both, nullptr}, bx,
        {da.data(), dtype, 4, both, nullptr}, name + " alpha empty");
    EXPECT_TRUE(filled(da, 0, da.size(), 0xA5)) << name;
  }
}

// Data at any byte address (lrelu.h: any alignment is accepted): x, dy,
// alpha, y, dx and dalpha each one byte past an element boundary; forward,
// dx and dalpha (NCHW per channel, a plane long enough for the vector
// paths, NHWC per channel), every dtype, target and thread count, against
// the oracle on aligned copies. The prelu fuzzer's first find: dalpha's
// exact sums read x and dy with typed loads, misaligned here (undefined
// behaviour, reported by UBSan under the asan preset).
TEST(Prelu, DataAtAnyByteAddress) {
  std::mt19937_64 rng(21);
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>
      layouts = {{{2, 3, 5}, {3, 1}}, {{2, 3, 40}, {3, 1}}, {{4, 6}, {6}}};
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (const auto& [shape, ashape] : layouts) {
      Tensor x = Random(dtype, shape, rng, false);
      Tensor dy = Random(dtype, shape, rng, false);
      Tensor alpha = Random(dtype, ashape, rng, false);
      const size_t xb = x.bytes.size(), ab = alpha.bytes.size();
      const auto rank = static_cast<int32_t>(shape.size());
      const auto arank = static_cast<int32_t>(ashape.size());
      const lrelu_tensor_t tx = x.View(), tdy = dy.View(), ta = alpha.View();
      lrelu_options_t ro;
      lrelu_options_init(&ro);
      ro.variant = "reference";
      std::vector<unsigned char> want_y(xb), want_dx(xb), want_da(ab);
      const lrelu_tensor_t wy = {want_y.data(), dtype, rank, shape.data(),
                                 nullptr},
                           wdx = {want_dx.data(), dtype, rank, shape.data(),
                                  nullptr},
                           wda = {want_da.data(), dtype, arank, ashape.data(),
                                  nullptr};
      ASSERT_EQ(lrelu_prelu(&tx, &ta, &wy, &ro), LRELU_STATUS_OK);
      ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, &wdx, &wda, &ro),
                LRELU_STATUS_OK);
      // One buffer, every tensor at an odd byte address (sizes are even).
      std::vector<unsigned char> buffer(3 * xb + 2 * ab + 16);
      unsigned char* const px = buffer.data() + 1;
      unsigned char* const pdy = px + xb + 2;
      unsigned char* const pa = pdy + xb + 2;
      unsigned char* const pout = pa + ab + 2;
      unsigned char* const pda = pout + xb + 2;
      std::copy(x.bytes.begin(), x.bytes.end(), px);
      std::copy(dy.bytes.begin(), dy.bytes.end(), pdy);
      std::copy(alpha.bytes.begin(), alpha.bytes.end(), pa);
      const lrelu_tensor_t mx = {px, dtype, rank, shape.data(), nullptr},
                           mdy = {pdy, dtype, rank, shape.data(), nullptr},
                           ma = {pa, dtype, arank, ashape.data(), nullptr},
                           mout = {pout, dtype, rank, shape.data(), nullptr},
                           mda = {pda, dtype, arank, ashape.data(), nullptr};
      for (const Setting& r : Settings()) {
        const std::string what = std::string(lrelu_dtype_name(dtype)) +
                                 " rank " + std::to_string(rank) + " " +
                                 r.target + " threads " +
                                 std::to_string(r.threads);
        const lrelu_options_t o = Options(r);
        std::fill(pout, pout + xb, 0xA5);
        ASSERT_EQ(lrelu_prelu(&mx, &ma, &mout, &o), LRELU_STATUS_OK)
            << what << ": " << lrelu_last_error();
        ASSERT_TRUE(std::equal(want_y.begin(), want_y.end(), pout))
            << what << " y";
        std::fill(pout, pout + xb, 0xA5);
        std::fill(pda, pda + ab, 0xA5);
        ASSERT_EQ(lrelu_prelu_backward(&mdy, &mx, &ma, &mout, &mda, &o),
                  LRELU_STATUS_OK)
            << what << ": " << lrelu_last_error();
        ASSERT_TRUE(std::equal(want_dx.begin(), want_dx.end(), pout))
            << what << " dx";
        ASSERT_TRUE(std::equal(want_da.begin(), want_da.end(), pda))
            << what << " dalpha";
      }
    }
  }
}

// bfloat16's rows on AVX-512 align y to 64 bytes (two float32 vectors), so
// a call's first vector starts up to 31 elements in, NCHW planes of whole
// 64-element groups meet inside a group at any lane, and other planes of
// 32 elements or more (7x7, 70) go in 32-element vectors, one across each
// seam. The forward pass with every alpha positive and finite takes its
// own kernels (a sign test that lets -0 through: -0 * alpha is -0). x
// holds -0, both infinities and NaNs of both signs among random bits; y
// starts at every element offset of a 64-byte line, with x at the same
// offset, one element further, or y itself (in place); alphas of both
// signs, then positive ones. Every target and thread count gives the
// oracle's bits, forward and dx.
TEST(Prelu, BFloat16RowsAtEveryLineOffset) {
  const lrelu_dtype_t dtype = LRELU_DTYPE_BFLOAT16;
  std::mt19937_64 rng(64);
  struct Case {
    std::vector<int64_t> shape, ashape;
  };
  const std::vector<Case> cases = {
      {{1, 5, 1, 64}, {5, 1, 1}},   // planes of one group
      {{2, 3, 1, 128}, {3, 1, 1}},  // two groups, batches
      {{1, 4, 1, 192}, {4, 1, 1}},  // three groups
      {{1, 6, 1, 70}, {6, 1, 1}},   // planes off the groups
      {{2, 5, 7, 7}, {5, 1, 1}},    // 49: about one seam a vector
      {{1, 4, 1, 32}, {4, 1, 1}},   // one vector a plane
      {{1, 4, 1, 33}, {4, 1, 1}},
      {{1, 3, 1, 63}, {3, 1, 1}},
      {{1, 5, 1, 24}, {5, 1, 1}},  // shorter than a vector
      {{7, 64}, {64}},             // NHWC: alphas held in registers
      {{3, 96}, {96}},             // NHWC: split alphas
      {{2, 600}, {600}},           // NHWC: runs of split alphas
  };
  const uint16_t specials[] = {0x8000, 0x0000, 0xff80, 0x7f80, 0xffc0,
                               0xff81, 0x7fc1, 0x7f81, 0x8001, 0x0001};
  for (const Case& c : cases) {
    Tensor x = Random(dtype, c.shape, rng, true);
    for (size_t i = 0; i < x.n(); i += 7) {
      StoreBits(dtype, x.bytes.data(), i, specials[(i / 7) % 10]);
    }
    Tensor dy = Random(dtype, c.shape, rng, true);
    const lrelu_tensor_t tdy = dy.View();
    Tensor alpha = Random(dtype, c.ashape, rng, false);
    const size_t bytes = x.bytes.size();
    const auto rank = static_cast<int32_t>(c.shape.size());
    std::vector<unsigned char> xb(bytes + 256), yb(bytes + 256);
    const auto line = [](std::vector<unsigned char>& b) {
      return b.data() + (64 - reinterpret_cast<uintptr_t>(b.data()) % 64);
    };
    for (int round = 0; round < 2; ++round) {
      if (round == 1) MakePositive(alpha);
      const lrelu_tensor_t ta = alpha.View();
      for (size_t offset = 0; offset < 34; ++offset) {
        unsigned char* const y = line(yb) + offset * 2;
        // x at y's offset, one element further, or y itself (in place).
        for (int mode = 0; mode < 3; ++mode) {
          unsigned char* const xp =
              mode == 2 ? y : line(xb) + (offset + (mode == 1 ? 1 : 0)) * 2;
          const lrelu_tensor_t tx = {xp, dtype, rank, c.shape.data(), nullptr};
          const lrelu_tensor_t ty = {y, dtype, rank, c.shape.data(), nullptr};
          lrelu_options_t ro;
          lrelu_options_init(&ro);
          ro.variant = "reference";
          std::memcpy(xp, x.bytes.data(), bytes);
          ASSERT_EQ(lrelu_prelu(&tx, &ta, &ty, &ro), LRELU_STATUS_OK);
          const std::vector<unsigned char> want(y, y + bytes);
          std::memcpy(xp, x.bytes.data(), bytes);
          ASSERT_EQ(lrelu_prelu_backward(&tdy, &tx, &ta, &ty, nullptr, &ro),
                    LRELU_STATUS_OK);
          const std::vector<unsigned char> want_dx(y, y + bytes);
          for (const Setting& r : Settings()) {
            const std::string what =
                "shape " + std::to_string(c.shape[1]) + "x" +
                std::to_string(c.shape.back()) + " round " +
                std::to_string(round) + " offset " + std::to_string(offset) +
                " mode " + std::to_string(mode) + " " + r.target + " threads " +
                std::to_string(r.threads);
            const lrelu_options_t o = Options(r);
            for (int pass = 0; pass < 2; ++pass) {  // forward, dx
              std::memcpy(xp, x.bytes.data(), bytes);
              if (mode != 2) std::fill(y, y + bytes, 0xA5);
              ASSERT_EQ(pass == 0 ? lrelu_prelu(&tx, &ta, &ty, &o)
                                  : lrelu_prelu_backward(&tdy, &tx, &ta, &ty,
                                                         nullptr, &o),
                        LRELU_STATUS_OK)
                  << what << ": " << lrelu_last_error();
              const unsigned char* const expected =
                  (pass == 0 ? want : want_dx).data();
              for (size_t i = 0; i < x.n(); ++i) {
                ASSERT_EQ(Hex(LoadBits(dtype, y, i), 4),
                          Hex(LoadBits(dtype, expected, i), 4))
                    << what << (pass == 0 ? " y" : " dx") << " element " << i
                    << " x " << Hex(x.Bits(i), 4);
              }
            }
          }
        }
      }
    }
  }
}

// Many terms in the same exponent bins (every significand bit set, one
// sign): the bins fill up and are flushed many times, exactly. 5000 terms
// per channel, past the 2^11 a bin holds between flushes; NHWC with 16
// channels takes the per-channel bins.
TEST(Prelu, DalphaBinsFlushExactly) {
  for (lrelu_dtype_t dtype :
       {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16}) {
    // Just below -2 with every significand bit set: float16 and bfloat16
    // share the pattern.
    const uint64_t all_ones =
        dtype == LRELU_DTYPE_FLOAT32 ? 0xbfffffffu : 0xbfffu;
    for (bool nhwc : {false, true}) {
      const std::vector<int64_t> shape =
          nhwc ? std::vector<int64_t>{5000, 16} : std::vector<int64_t>{2, 5000};
      const int64_t c = nhwc ? 16 : 2;
      const std::vector<int64_t> ashape =
          nhwc ? std::vector<int64_t>{c} : std::vector<int64_t>{c, 1};
      const size_t n = Count(shape);
      Tensor x{dtype, shape,
               std::vector<unsigned char>(n * lrelu_dtype_size(dtype))};
      Tensor dy = x;
      for (size_t i = 0; i < n; ++i) {
        StoreBits(dtype, x.bytes.data(), i, all_ones);
        // Alternate dy's last bit so the terms differ.
        StoreBits(dtype, dy.bytes.data(), i, (all_ones ^ (i & 1)) & ~0x8000u);
      }
      Tensor alpha{dtype, ashape,
                   std::vector<unsigned char>(static_cast<size_t>(c) *
                                              lrelu_dtype_size(dtype))};
      CheckDalphaOnEverySetting(x, dy, alpha);
    }
  }
}

TEST(Prelu, Validation) {
  float xs[24] = {}, ys[24] = {}, as[4] = {};
  double ad[4] = {};
  const int64_t xshape[] = {2, 3, 4}, bad[] = {3, 1, 2}, good[] = {3, 1};
  lrelu_tensor_t x = {xs, LRELU_DTYPE_FLOAT32, 3, xshape, nullptr};
  lrelu_tensor_t y = {ys, LRELU_DTYPE_FLOAT32, 3, xshape, nullptr};
  lrelu_tensor_t a_bad = {as, LRELU_DTYPE_FLOAT32, 3, bad, nullptr};
  EXPECT_EQ(lrelu_prelu(&x, &a_bad, &y, nullptr), LRELU_STATUS_SHAPE_MISMATCH);
  EXPECT_NE(std::string(lrelu_last_error()).find("broadcast"),
            std::string::npos);
  lrelu_tensor_t a_long = {as, LRELU_DTYPE_FLOAT32, 3, xshape, nullptr};
  a_long.rank = 3;
  const int64_t four[] = {1, 2, 3, 4};
  a_long.shape = four;
  a_long.rank = 4;
  EXPECT_EQ(lrelu_prelu(&x, &a_long, &y, nullptr), LRELU_STATUS_SHAPE_MISMATCH);
  lrelu_tensor_t a_f64 = {ad, LRELU_DTYPE_FLOAT64, 2, good, nullptr};
  EXPECT_EQ(lrelu_prelu(&x, &a_f64, &y, nullptr), LRELU_STATUS_OK);
  lrelu_tensor_t a_f16 = {as, LRELU_DTYPE_FLOAT16, 2, good, nullptr};
  EXPECT_EQ(lrelu_prelu(&x, &a_f16, &y, nullptr), LRELU_STATUS_DTYPE_MISMATCH);
  EXPECT_EQ(lrelu_prelu(&x, nullptr, &y, nullptr),
            LRELU_STATUS_INVALID_ARGUMENT);
  lrelu_tensor_t a = {as, LRELU_DTYPE_FLOAT32, 2, good, nullptr};
  EXPECT_EQ(lrelu_prelu_backward(&x, &x, &a, nullptr, nullptr, nullptr),
            LRELU_STATUS_INVALID_ARGUMENT);
  // Partial overlap of x and y is LeakyReLU's OVERLAP.
  lrelu_tensor_t y_shifted = {xs + 1, LRELU_DTYPE_FLOAT32, 3, xshape, nullptr};
  EXPECT_EQ(lrelu_prelu(&x, &a, &y_shifted, nullptr), LRELU_STATUS_OVERLAP);
  // ... and of dx with dy or x; y or dx inside alpha.
  EXPECT_EQ(lrelu_prelu_backward(&y, &x, &a, &y_shifted, nullptr, nullptr),
            LRELU_STATUS_OVERLAP);
  lrelu_tensor_t dy_shifted = {ys + 1, LRELU_DTYPE_FLOAT32, 3, xshape, nullptr};
  EXPECT_EQ(lrelu_prelu_backward(&dy_shifted, &x, &a, &y, nullptr, nullptr),
            LRELU_STATUS_OVERLAP);
  lrelu_tensor_t a_in_y = {ys + 4, LRELU_DTYPE_FLOAT32, 2, good, nullptr};
  EXPECT_EQ(lrelu_prelu(&x, &a_in_y, &y, nullptr), LRELU_STATUS_OVERLAP);
  EXPECT_EQ(lrelu_prelu_backward(&x, &x, &a_in_y, &y, nullptr, nullptr),
            LRELU_STATUS_OVERLAP);
  // A shape mismatch between x and y, or dy and dx.
  const int64_t other[] = {2, 4, 3};
  lrelu_tensor_t y_other = {ys, LRELU_DTYPE_FLOAT32, 3, other, nullptr};
  EXPECT_EQ(lrelu_prelu(&x, &a, &y_other, nullptr),
            LRELU_STATUS_SHAPE_MISMATCH);
  EXPECT_EQ(lrelu_prelu_backward(&x, &x, &a, &y_other, nullptr, nullptr),
            LRELU_STATUS_SHAPE_MISMATCH);
  // dalpha written twice (stride 0) and dalpha inside dx.
  const int64_t zero[] = {0, 0};
  lrelu_tensor_t da_bad = {as, LRELU_DTYPE_FLOAT32, 2, good, zero};
  EXPECT_EQ(lrelu_prelu_backward(&x, &x, &a, nullptr, &da_bad, nullptr),
            LRELU_STATUS_OVERLAP);
  lrelu_tensor_t da_in_dx = {ys, LRELU_DTYPE_FLOAT32, 2, good, nullptr};
  EXPECT_EQ(lrelu_prelu_backward(&x, &x, &a, &y, &da_in_dx, nullptr),
            LRELU_STATUS_OVERLAP);
  // A device backend is refused for the gradient with a clear status (the
  // forward runs there: tests/gpu/opencl_prelu_test.cc).
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.backend = LRELU_BACKEND_OPENCL;
  const lrelu_status_t s = lrelu_prelu_backward(&x, &x, &a, &y, nullptr, &o);
  EXPECT_EQ(s, LRELU_STATUS_BACKEND_UNAVAILABLE) << lrelu_last_error();
}

#if defined(__x86_64__) || defined(__i386__)
// float16's forward rows through the round trip (every alpha positive and
// finite, out of place: cpu/prelu_rows.h): every float16 pattern, the
// signalling NaNs too (then the task runs again exactly) or with them made
// quiet, against the oracle; NHWC rows and NCHW planes, every target, the
// caller's invalid flag clear and raised. With one thread the flag ends
// raised exactly where the caller's was or x held a signalling NaN; with
// two (x four times over, so that two tasks run), the caller's thread
// keeps a raised flag and none is raised where x holds no signalling NaN.
TEST(Prelu, Float16RoundTripEveryPatternAndTheInvalidFlag) {
  std::vector<uint16_t> all(4 << 16), quiet(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    all[i] = static_cast<uint16_t>(i);
    const bool signalling =
        (i & 0x7c00) == 0x7c00 && (i & 0x3ff) != 0 && (i & 0x200) == 0;
    quiet[i] = static_cast<uint16_t>(signalling ? i | 0x200 : i);
  }
  for (bool signalling : {true, false}) {
    const std::vector<uint16_t>& bits = signalling ? all : quiet;
    for (int64_t copies : {1, 4}) {
      for (bool nhwc : {true, false}) {
        const std::vector<int64_t> shape =
            nhwc ? std::vector<int64_t>{1024 * copies, 64}
                 : std::vector<int64_t>{2 * copies, 16, 2048};
        const std::vector<int64_t> ashape =
            nhwc ? std::vector<int64_t>{64} : std::vector<int64_t>{16, 1};
        Tensor x{LRELU_DTYPE_FLOAT16, shape,
                 std::vector<unsigned char>(Count(shape) * 2)};
        std::memcpy(x.bytes.data(), bits.data(), x.bytes.size());
        // Positive finite alphas: 0.25 upwards, a few float16 steps apart.
        Tensor alpha{LRELU_DTYPE_FLOAT16, ashape,
                     std::vector<unsigned char>(Count(ashape) * 2)};
        for (size_t k = 0; k < alpha.n(); ++k) {
          StoreBits(LRELU_DTYPE_FLOAT16, alpha.bytes.data(), k,
                    0x3400 + 37 * k);
        }
        const lrelu_tensor_t tx = x.View(), ta = alpha.View();
        for (const Setting& r : Settings()) {
          if (r.threads != (copies == 1 ? 1u : 2u)) continue;
          for (bool caller_flag : {false, true}) {
            const std::string what =
                std::string(signalling ? "signalling" : "quiet") + " x" +
                std::to_string(copies) + (nhwc ? " NHWC " : " NCHW ") +
                r.target + " threads " + std::to_string(r.threads) +
                " caller's flag " + std::to_string(caller_flag);
            const lrelu_options_t o = Options(r);
            Tensor y = x;
            std::memset(y.bytes.data(), 0xa5, y.bytes.size());
            lrelu_tensor_t ty = y.View();
            const unsigned csr = _mm_getcsr();
            _mm_setcsr(caller_flag ? csr | 1u : csr & ~1u);
            const lrelu_status_t status = lrelu_prelu(&tx, &ta, &ty, &o);
            const bool flag = (_mm_getcsr() & 1u) != 0;
            _mm_setcsr(csr);
            ASSERT_EQ(status, LRELU_STATUS_OK)
                << what << ": " << lrelu_last_error();
            CheckForward(x, alpha, y, what);
            if (r.threads == 1) {
              EXPECT_EQ(flag, caller_flag || signalling) << what;
            } else if (caller_flag || !signalling) {
              EXPECT_EQ(flag, caller_flag) << what;
            }
          }
        }
      }
    }
  }
}
#endif

// Every 16-bit pattern as a per-channel alpha (NHWC rows and NCHW planes,
// alpha dense and strided, every target): the rows widen the alphas to
// float32 on their bits (the target's WidenAlphasKernel, cpu/prelu_rows.h,
// or api/prelu_rows.cc's scalar loop for strided alphas), subnormals
// included, with the caller's DAZ and FTZ set as well as clear.
TEST(Prelu, EverySixteenBitAlphaPattern) {
  // All patterns in order, then an odd count of them scattered (a partial
  // last vector on every target).
  for (const int64_t alphas : {int64_t{1} << 16, int64_t{4133}}) {
    for (lrelu_dtype_t dtype : {LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16}) {
      const uint64_t scatter = alphas == int64_t{1} << 16 ? 1 : 16411;
      const bool half = dtype == LRELU_DTYPE_FLOAT16;
      // Negative x of every kind (-1, -max, -smallest subnormal, -0.5) and
      // one positive: each alpha pattern multiplies the negatives.
      const std::vector<uint64_t> xs =
          half ? std::vector<uint64_t>{0xbc00, 0xfbff, 0x8001, 0xb800, 0x3c00}
               : std::vector<uint64_t>{0xbf80, 0xff7f, 0x8001, 0xbf00, 0x3f80};
      const int64_t kx = static_cast<int64_t>(xs.size());
      Tensor alpha{dtype, {alphas}, std::vector<unsigned char>(alphas * 2)};
      // The same alphas every other element, for the strided view.
      std::vector<uint16_t> spaced(2 * alphas, 0x7e00);
      for (int64_t k = 0; k < alphas; ++k) {
        const uint64_t bits = (static_cast<uint64_t>(k) * scatter) & 0xffff;
        StoreBits(dtype, alpha.bytes.data(), static_cast<size_t>(k), bits);
        spaced[static_cast<size_t>(2 * k)] = static_cast<uint16_t>(bits);
      }
      for (bool nhwc : {true, false}) {
        // NHWC: [x kinds, alphas] against alpha [alphas]; NCHW: [alphas, x
        // kinds] against alpha [alphas, 1].
        Tensor x{dtype,
                 nhwc ? std::vector<int64_t>{kx, alphas}
                      : std::vector<int64_t>{alphas, kx},
                 std::vector<unsigned char>(alphas * kx * 2)};
        for (int64_t k = 0; k < alphas; ++k) {
          for (int64_t j = 0; j < kx; ++j) {
            StoreBits(dtype, x.bytes.data(),
                      static_cast<size_t>(nhwc ? j * alphas + k : k * kx + j),
                      xs[static_cast<size_t>(j)]);
          }
        }
        Tensor check_alpha = alpha;
        if (!nhwc) check_alpha.shape = {alphas, 1};
        for (const Setting& r : Settings()) {
          if (r.threads != 1) continue;
          const lrelu_options_t o = Options(r);
          for (bool strided : {false, true}) {
            for (bool daz_ftz : {false, true}) {
              const std::string what = std::string(lrelu_dtype_name(dtype)) +
                                       (nhwc ? " NHWC " : " NCHW ") + r.target +
                                       (strided ? " strided alpha" : "") +
                                       (daz_ftz ? " DAZ/FTZ" : "");
              const int64_t astrides[2] = {2, 1};
              lrelu_tensor_t ta = check_alpha.View();
              if (strided) {
                ta.data = spaced.data();
                ta.strides = astrides;
              }
              Tensor y = x;
              std::memset(y.bytes.data(), 0xa5, y.bytes.size());
              const lrelu_tensor_t tx = x.View();
              lrelu_tensor_t ty = y.View();
#if defined(__x86_64__) || defined(__i386__)
              const unsigned csr = _mm_getcsr();
              if (daz_ftz) _mm_setcsr(csr | 0x8040u);
#endif
              const lrelu_status_t status = lrelu_prelu(&tx, &ta, &ty, &o);
#if defined(__x86_64__) || defined(__i386__)
              _mm_setcsr(csr);
#endif
              ASSERT_EQ(status, LRELU_STATUS_OK)
                  << what << ": " << lrelu_last_error();
              CheckForward(x, check_alpha, y, what);
            }
          }
        }
      }
    }
  }
}

// float64 alphas rounded to float32 once (the 32/16-bit dtypes), for a
// full-shape alpha and NHWC rows of more than a stack buffer's alphas (the
// heap buffer and the contiguous float64 loop of api/prelu_rows.cc, which
// NumPy's ufunc reaches with its buffered alpha) and a strided alpha (the
// scalar loop): NaN payloads, infinities, overflow and its tie, float32
// subnormals and their ties, ties at float32 precision, signed zeros and
// random doubles, under the caller's default, DAZ/FTZ and directed
// rounding MXCSR.
TEST(Prelu, Float64AlphasRoundOnceInEveryEnvironment) {
  const uint64_t kSpecials[] = {
      0x7ff8000000000001ull, 0xfff0000000000001ull, 0x7ff7ffffffffffffull,
      0x7ff0000000000000ull, 0xfff0000000000000ull,
      0x7e37e43c8800759cull,  // 1e300
      0x47efffffe0000000ull,  // FLT_MAX + half an ulp: a tie, to inf
      0x47efffffdfffffffull,  // just below it: FLT_MAX
      0x47efffffe0000001ull,  // just above it: inf
      0x381c16c0b2e0c98bull,  // 1e-40, a float32 subnormal
      0x3690000000000000ull,  // 2^-150: a tie, to +0
      0xb6a8000000000000ull,  // -3 * 2^-150: a tie, to -2^-148
      0x3690000000000001ull,  // just above 2^-150: 2^-149
      0x3ff0000010000000ull,  // 1 + 2^-24: a tie, to 1
      0x3ff0000030000000ull,  // 1 + 3 * 2^-24: a tie, to 1 + 2^-22
      0x3ff0000010000001ull,  // just above 1 + 2^-24: 1 + 2^-23
      0x8000000000000000ull, 0x0000000000000000ull, 0x3f847ae147ae147bull};
  constexpr int64_t kAlphas = 3001;  // more than the stack's 2048 + slack
  std::mt19937_64 rng(2026);
  std::vector<uint64_t> alpha_bits(static_cast<size_t>(kAlphas));
  for (size_t k = 0; k < alpha_bits.size(); ++k) {
    const size_t nspecial = sizeof(kSpecials) / sizeof(kSpecials[0]);
    if (k % 3 == 0 && k / 3 < 4 * nspecial) {
      alpha_bits[k] = kSpecials[k / 3 % nspecial];
    } else {  // a random sign and mantissa, exponents around float32's
      const uint64_t e = 1023 - 155 + rng() % 290;
      alpha_bits[k] = (rng() & 0x800fffffffffffffull) | (e << 52);
    }
  }
  Tensor alpha{
      LRELU_DTYPE_FLOAT64, {kAlphas}, std::vector<unsigned char>(8 * kAlphas)};
  std::vector<uint64_t> spaced(2 * alpha_bits.size(), 0);
  for (size_t k = 0; k < alpha_bits.size(); ++k) {
    StoreBits(LRELU_DTYPE_FLOAT64, alpha.bytes.data(), k, alpha_bits[k]);
    spaced[2 * k] = alpha_bits[k];
  }
  for (lrelu_dtype_t dtype :
       {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16}) {
    // x: -1 mostly (y shows alpha's float32 value, rounded to x's dtype),
    // and -0.75, -2^-10 and 2; bits of float32, float16, bfloat16.
    constexpr uint64_t kx[][3] = {
        {0xbf800000u, 0xbc00u, 0xbf80u}, {0xbf800000u, 0xbc00u, 0xbf80u},
        {0xbf800000u, 0xbc00u, 0xbf80u}, {0xbf400000u, 0xba00u, 0xbf40u},
        {0xba800000u, 0x9400u, 0xba80u}, {0x40000000u, 0x4000u, 0x4000u}};
    const size_t column = dtype == LRELU_DTYPE_FLOAT32   ? 0
                          : dtype == LRELU_DTYPE_FLOAT16 ? 1
                                                         : 2;
    for (int64_t rows : {1, 3}) {  // a full-shape alpha; NHWC rows
      Tensor x{dtype,
               {rows, kAlphas},
               std::vector<unsigned char>(static_cast<size_t>(rows * kAlphas) *
                                          lrelu_dtype_size(dtype))};
      for (size_t i = 0; i < x.n(); ++i) {
        StoreBits(dtype, x.bytes.data(), i,
                  kx[(i * 7) % (sizeof(kx) / sizeof(kx[0]))][column]);
      }
      for (const Setting& r : Settings()) {
        if (r.threads > 2) continue;
        for (bool strided : {false, true}) {
          for (unsigned csr_bits : {0u, 0x8040u, 0x6000u, 0x4000u}) {
            const std::string what =
                std::string(lrelu_dtype_name(dtype)) + " rows " +
                std::to_string(rows) + " " + r.target + " threads " +
                std::to_string(r.threads) + (strided ? " strided" : "") +
                " mxcsr " + Hex(csr_bits, 4);
            const lrelu_options_t o = Options(r);
            const int64_t astride = 2;
            lrelu_tensor_t ta = alpha.View();
            if (strided) {
              ta.data = spaced.data();
              ta.strides = &astride;
            }
            Tensor y = x;
            std::memset(y.bytes.data(), 0xa5, y.bytes.size());
            const lrelu_tensor_t tx = x.View();
            lrelu_tensor_t ty = y.View();
            const unsigned csr = _mm_getcsr();
            _mm_setcsr(csr | csr_bits);
            const lrelu_status_t status = lrelu_prelu(&tx, &ta, &ty, &o);
            _mm_setcsr(csr);
            ASSERT_EQ(status, LRELU_STATUS_OK)
                << what << ": " << lrelu_last_error();
            CheckForward(x, alpha, y, what);
          }
        }
      }
    }
  }
}

// dalpha written through its own strides, an axis of extent 1 among them
// (its stride is never stepped) and a negative one: the same bits as a
// dense dalpha, and nothing else in the buffer touched.
TEST(Prelu, DalphaThroughStridesWithUnitAxes) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  std::vector<float> xs(size_t{3} * 2 * 4), dys(xs.size());
  for (float& v : xs) v = normal(rng);
  for (float& v : dys) v = normal(rng);
  float as[12] = {};
  const int64_t xshape[] = {3, 2, 4}, ashape[] = {3, 1, 4};
  lrelu_tensor_t x = {xs.data(), LRELU_DTYPE_FLOAT32, 3, xshape, nullptr};
  lrelu_tensor_t dy = {dys.data(), LRELU_DTYPE_FLOAT32, 3, xshape, nullptr};
  lrelu_tensor_t a = {as, LRELU_DTYPE_FLOAT32, 3, ashape, nullptr};
  float dense[12];
  lrelu_tensor_t da = {dense, LRELU_DTYPE_FLOAT32, 3, ashape, nullptr};
  ASSERT_EQ(lrelu_prelu_backward(&dy, &x, &a, nullptr, &da, nullptr),
            LRELU_STATUS_OK);
  // Element (i, 0, j) at 9 i - 2 j from the start, which is buffer[6].
  std::vector<float> buffer(40, 7.0f);
  const int64_t strides[] = {9, 5, -2};
  lrelu_tensor_t da_strided = {buffer.data() + 6, LRELU_DTYPE_FLOAT32, 3,
                               ashape, strides};
  ASSERT_EQ(lrelu_prelu_backward(&dy, &x, &a, nullptr, &da_strided, nullptr),
            LRELU_STATUS_OK);
  auto bits = [](float v) {
    uint32_t b;
    std::memcpy(&b, &v, sizeof(b));
    return b;
  };
  std::vector<bool> written(buffer.size(), false);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      const size_t at = 6 + 9 * i - 2 * j;
      written[at] = true;
      EXPECT_EQ(bits(buffer[at]), bits(dense[4 * i + j])) << i << "," << j;
    }
  }
  for (size_t k = 0; k < buffer.size(); ++k) {
    if (!written[k]) {
      EXPECT_EQ(buffer[k], 7.0f) << k;
    }
  }
}

// The two-stage form: plan, execute twice, the executor reports "prelu".
TEST(Prelu, TwoStage) {
  float xs[6] = {-1, 2, -3, 4, -5, 6}, ys[6] = {}, as[2] = {0.5f, 0.25f};
  const int64_t xshape[] = {3, 2}, ashape[] = {2};
  lrelu_tensor_t x = {xs, LRELU_DTYPE_FLOAT32, 2, xshape, nullptr};
  lrelu_tensor_t y = {ys, LRELU_DTYPE_FLOAT32, 2, xshape, nullptr};
  lrelu_tensor_t a = {as, LRELU_DTYPE_FLOAT32, 1, ashape, nullptr};
  size_t ws = 1;
  lrelu_executor_t* e = nullptr;
  ASSERT_EQ(lrelu_prelu_get_workspace_size(&x, &a, &y, nullptr, &ws, &e),
            LRELU_STATUS_OK);
  EXPECT_EQ(ws, 0u);
  EXPECT_STREQ(lrelu_executor_variant(e), "prelu");
  as[0] = 2.0f;  // alpha is read at execution, not planning
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  lrelu_executor_destroy(e);
  const float want[6] = {-2, 2, -6, 4, -10, 6};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(ys[i], want[i]) << i;
}

}  // namespace
}  // namespace lrelu::testing
