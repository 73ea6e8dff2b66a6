// lrelu_executor_bind: a plan re-bound to new data computes what a fresh
// plan on that data computes, element for element the oracle's answer, for
// every dtype, dense and strided views, in place and the gradient; misuse
// gives a clear status and leaves the executor as it was.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "lrelu/lrelu.h"
#include "lrelu/lrelu.hpp"
#include "reference/reference.h"

namespace {

constexpr lrelu_dtype_t kDTypes[] = {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16,
                                     LRELU_DTYPE_BFLOAT16, LRELU_DTYPE_FLOAT64};

// A layout: shape and strides (elements) shared by every operand.
struct Layout {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // empty: C-contiguous
  // Element offset of data within the buffer (room for negative strides).
  int64_t origin = 0;
  int64_t buffer_elems = 0;
};

std::vector<Layout> Layouts() {
  return {
      {"dense", {1024}, {}, 0, 1024},
      {"dense-3d", {4, 5, 7}, {}, 0, 140},
      {"scalar", {}, {}, 0, 1},
      {"transposed", {5, 7}, {1, 5}, 0, 35},
      {"gapped", {6, 9}, {20, 2}, 0, 120},
      {"reversed", {3, 33}, {-40, -1}, 2 * 40 + 32, 2 * 40 + 33},
  };
}

// One tensor's storage: a byte buffer with slack, and the view on it at a
// byte shift (to misalign it).
struct Storage {
  std::vector<unsigned char> bytes;
  size_t shift = 0;
  void* data(const Layout& l, size_t elem) {
    return bytes.data() + shift + static_cast<size_t>(l.origin) * elem;
  }
};

Storage MakeStorage(const Layout& l, size_t elem, size_t shift,
                    std::mt19937& rng) {
  Storage s;
  s.shift = shift;
  s.bytes.resize(static_cast<size_t>(l.buffer_elems) * elem + 16);
  // Random bits: every sign, NaNs, infinities, subnormals.
  for (auto& b : s.bytes) b = static_cast<unsigned char>(rng());
  return s;
}

lrelu_tensor_t View(const Layout& l, lrelu_dtype_t dtype, void* data) {
  return lrelu_tensor_t{data, dtype, static_cast<int32_t>(l.shape.size()),
                        l.shape.empty() ? nullptr : l.shape.data(),
                        l.strides.empty() ? nullptr : l.strides.data()};
}

// Byte offsets (from data) of every element of the layout.
std::vector<int64_t> Offsets(const Layout& l, size_t elem) {
  std::vector<int64_t> strides = l.strides;
  if (strides.empty()) {
    strides.resize(l.shape.size());
    int64_t s = 1;
    for (size_t i = l.shape.size(); i-- > 0;) {
      strides[i] = s;
      s *= l.shape[i];
    }
  }
  std::vector<int64_t> out = {0};
  for (size_t d = 0; d < l.shape.size(); ++d) {
    std::vector<int64_t> next;
    for (int64_t o : out) {
      for (int64_t i = 0; i < l.shape[d]; ++i) {
        next.push_back(o + i * strides[d] * static_cast<int64_t>(elem));
      }
    }
    out = next;
  }
  return out;
}

// Checks every element of out against the oracle on (v, s).
void ExpectOracle(const Layout& l, lrelu_dtype_t dtype, const void* v,
                  const void* s, const void* out, double alpha) {
  const size_t elem = lrelu_dtype_size(dtype);
  for (int64_t o : Offsets(l, elem)) {
    unsigned char expected[8];
    lrelu::reference::Apply(dtype, static_cast<const char*>(v) + o,
                            static_cast<const char*>(s) + o, expected, 1,
                            alpha);
    ASSERT_EQ(std::memcmp(expected, static_cast<const char*>(out) + o, elem), 0)
        << l.name << " " << lrelu_dtype_name(dtype) << " at byte " << o;
  }
}

lrelu_options_t OneThread() {
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.threads = 1;
  return o;
}

// Binds e to `data` and runs it (for ASSERT_NO_FATAL_FAILURE).
void BindAndExecute(lrelu_executor_t* e, void* const* data, size_t count) {
  ASSERT_EQ(lrelu_executor_bind(e, data, count), LRELU_STATUS_OK)
      << lrelu_last_error();
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
}

// body(dtype, element size, layout) for every dtype and layout.
void ForEachDTypeAndLayout(
    const std::function<void(lrelu_dtype_t, size_t, const Layout&)>& body) {
  for (lrelu_dtype_t dtype : kDTypes) {
    for (const Layout& l : Layouts()) body(dtype, lrelu_dtype_size(dtype), l);
  }
}

TEST(BindTest, ForwardEqualsAFreshPlan) {
  std::mt19937 rng(7);
  const double alpha = 0.1;
  ForEachDTypeAndLayout([&](lrelu_dtype_t dtype, size_t elem, const Layout& l) {
    for (bool in_place : {false, true}) {
      SCOPED_TRACE(l.name + " " + lrelu_dtype_name(dtype) +
                   (in_place ? " in place" : ""));
      Storage xa = MakeStorage(l, elem, 0, rng);
      Storage ya = MakeStorage(l, elem, 0, rng);
      // The new data at another alignment (one byte off: any is accepted).
      Storage xb = MakeStorage(l, elem, 1, rng);
      Storage yb = MakeStorage(l, elem, 1, rng);
      Storage x_fresh = xb, y_fresh = yb;
      Storage x_original = xb;
      void* ya_data = in_place ? xa.data(l, elem) : ya.data(l, elem);
      void* yb_data = in_place ? xb.data(l, elem) : yb.data(l, elem);
      void* yf_data = in_place ? x_fresh.data(l, elem) : y_fresh.data(l, elem);
      lrelu_tensor_t tx = View(l, dtype, xa.data(l, elem));
      lrelu_tensor_t ty = View(l, dtype, ya_data);
      const lrelu_options_t o = OneThread();
      size_t ws = 0;
      lrelu_executor_t* e = nullptr;
      ASSERT_EQ(
          lrelu_leaky_relu_get_workspace_size(&tx, alpha, &ty, &o, &ws, &e),
          LRELU_STATUS_OK)
          << lrelu_last_error();
      const std::vector<unsigned char> ya_before = ya.bytes;
      void* const data[] = {xb.data(l, elem), yb_data};
      ASSERT_NO_FATAL_FAILURE(BindAndExecute(e, data, 2));
      // A fresh one-shot call on a copy of the same new data.
      lrelu_tensor_t fx = View(l, dtype, x_fresh.data(l, elem));
      lrelu_tensor_t fy = View(l, dtype, yf_data);
      ASSERT_EQ(lrelu_leaky_relu(&fx, alpha, &fy, &o), LRELU_STATUS_OK);
      EXPECT_EQ(xb.bytes, x_fresh.bytes);
      EXPECT_EQ(yb.bytes, y_fresh.bytes);
      EXPECT_EQ(ya.bytes, ya_before) << "the old output was written";
      ExpectOracle(l, dtype, x_original.data(l, elem), x_original.data(l, elem),
                   yb_data, alpha);
      lrelu_executor_destroy(e);
    }
  });
}

TEST(BindTest, GradientEqualsAFreshPlan) {
  std::mt19937 rng(11);
  const double alpha = 0.2;
  ForEachDTypeAndLayout([&](lrelu_dtype_t dtype, size_t elem, const Layout& l) {
    for (lrelu_grad_source_t source : {LRELU_GRAD_FROM_X, LRELU_GRAD_FROM_Y}) {
      for (bool in_place : {false, true}) {
        SCOPED_TRACE(l.name + " " + lrelu_dtype_name(dtype) +
                     (source == LRELU_GRAD_FROM_Y ? " from y" : " from x") +
                     (in_place ? " in place" : ""));
        Storage dya = MakeStorage(l, elem, 0, rng);
        Storage sa = MakeStorage(l, elem, 0, rng);
        Storage dxa = MakeStorage(l, elem, 0, rng);
        Storage dyb = MakeStorage(l, elem, elem > 2 ? 2 : 1, rng);
        Storage sb = MakeStorage(l, elem, 0, rng);
        Storage dxb = MakeStorage(l, elem, 1, rng);
        Storage dy_original = dyb, s_original = sb;
        Storage dy_fresh = dyb, dx_fresh = dxb;
        void* dxa_data = in_place ? dya.data(l, elem) : dxa.data(l, elem);
        void* dxb_data = in_place ? dyb.data(l, elem) : dxb.data(l, elem);
        void* dxf_data =
            in_place ? dy_fresh.data(l, elem) : dx_fresh.data(l, elem);
        lrelu_tensor_t tdy = View(l, dtype, dya.data(l, elem));
        lrelu_tensor_t ts = View(l, dtype, sa.data(l, elem));
        lrelu_tensor_t tdx = View(l, dtype, dxa_data);
        const lrelu_options_t o = OneThread();
        size_t ws = 0;
        lrelu_executor_t* e = nullptr;
        ASSERT_EQ(lrelu_leaky_relu_backward_get_workspace_size(
                      &tdy, &ts, alpha, source, &tdx, &o, &ws, &e),
                  LRELU_STATUS_OK)
            << lrelu_last_error();
        void* const data[] = {dyb.data(l, elem), sb.data(l, elem), dxb_data};
        ASSERT_NO_FATAL_FAILURE(BindAndExecute(e, data, 3));
        lrelu_tensor_t fdy = View(l, dtype, dy_fresh.data(l, elem));
        lrelu_tensor_t fs = View(l, dtype, sb.data(l, elem));
        lrelu_tensor_t fdx = View(l, dtype, dxf_data);
        ASSERT_EQ(lrelu_leaky_relu_backward(&fdy, &fs, alpha, source, &fdx, &o),
                  LRELU_STATUS_OK);
        EXPECT_EQ(dyb.bytes, dy_fresh.bytes);
        EXPECT_EQ(dxb.bytes, dx_fresh.bytes);
        ExpectOracle(l, dtype, dy_original.data(l, elem),
                     s_original.data(l, elem), dxb_data, alpha);
        lrelu_executor_destroy(e);
      }
    }
  });
}

// A plan made for aligned 8 MiB tensors (non-temporal stores) and bound to
// misaligned ones must not use the aligned-only path, and must be right.
TEST(BindTest, LargePlanBoundToMisalignedData) {
  const Layout l{"large", {int64_t{1} << 21}, {}, 0, int64_t{1} << 21};
  std::mt19937 rng(3);
  const size_t elem = 4;
  Storage xa = MakeStorage(l, elem, 0, rng), ya = MakeStorage(l, elem, 0, rng);
  Storage xb = MakeStorage(l, elem, 3, rng), yb = MakeStorage(l, elem, 1, rng);
  lrelu_tensor_t tx = View(l, LRELU_DTYPE_FLOAT32, xa.data(l, elem));
  lrelu_tensor_t ty = View(l, LRELU_DTYPE_FLOAT32, ya.data(l, elem));
  size_t ws = 0;
  lrelu_executor_t* e = nullptr;
  ASSERT_EQ(
      lrelu_leaky_relu_get_workspace_size(&tx, -3.0, &ty, nullptr, &ws, &e),
      LRELU_STATUS_OK);
  void* const data[] = {xb.data(l, elem), yb.data(l, elem)};
  ASSERT_EQ(lrelu_executor_bind(e, data, 2), LRELU_STATUS_OK);
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  ExpectOracle(l, LRELU_DTYPE_FLOAT32, xb.data(l, elem), xb.data(l, elem),
               yb.data(l, elem), -3.0);
  lrelu_executor_destroy(e);
}

class BindMisuseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    x_.assign(64, 1.0f);
    y_.assign(64, 0.0f);
    z_.assign(64, 0.0f);
    e_ = Plan(x_.data(), y_.data());
    ASSERT_NE(e_, nullptr);
  }
  void TearDown() override { lrelu_executor_destroy(e_); }
  // A forward plan (alpha 0.5) from x to y, float32 of shape_; nullptr (and
  // a failure) where planning fails.
  lrelu_executor_t* Plan(float* x, float* y) {
    lrelu_tensor_t tx{x, LRELU_DTYPE_FLOAT32, 1, shape_, nullptr};
    lrelu_tensor_t ty{y, LRELU_DTYPE_FLOAT32, 1, shape_, nullptr};
    size_t ws = 0;
    lrelu_executor_t* e = nullptr;
    EXPECT_EQ(
        lrelu_leaky_relu_get_workspace_size(&tx, 0.5, &ty, nullptr, &ws, &e),
        LRELU_STATUS_OK)
        << lrelu_last_error();
    return e;
  }
  // The executor still writes where it was last bound successfully.
  void ExpectStillBoundToY() {
    x_[0] = -2.0f;
    ASSERT_EQ(lrelu_execute(nullptr, 0, e_, nullptr), LRELU_STATUS_OK);
    EXPECT_EQ(y_[0], -1.0f);
    EXPECT_EQ(z_[0], 0.0f);
  }
  std::string Error() const { return lrelu_last_error(); }

  int64_t shape_[1] = {64};
  std::vector<float> x_, y_, z_;
  lrelu_executor_t* e_ = nullptr;
};

TEST_F(BindMisuseTest, InvalidExecutors) {
  void* const data[] = {x_.data(), z_.data()};
  EXPECT_EQ(lrelu_executor_bind(nullptr, data, 2),
            LRELU_STATUS_INVALID_EXECUTOR);
  int foreign = 0;
  EXPECT_EQ(lrelu_executor_bind(reinterpret_cast<lrelu_executor_t*>(&foreign),
                                data, 2),
            LRELU_STATUS_INVALID_EXECUTOR);
  // One byte into a live executor is not an executor either.
  EXPECT_EQ(lrelu_executor_bind(reinterpret_cast<lrelu_executor_t*>(
                                    reinterpret_cast<char*>(e_) + 1),
                                data, 2),
            LRELU_STATUS_INVALID_EXECUTOR);
  ExpectStillBoundToY();
}

TEST_F(BindMisuseTest, DestroyedExecutor) {
  lrelu_executor_t* other = Plan(x_.data(), z_.data());
  ASSERT_NE(other, nullptr);
  lrelu_executor_destroy(other);
  void* const data[] = {x_.data(), z_.data()};
  EXPECT_EQ(lrelu_executor_bind(other, data, 2), LRELU_STATUS_INVALID_EXECUTOR);
  EXPECT_NE(Error().find("destroyed"), std::string::npos) << Error();
}

TEST_F(BindMisuseTest, WrongCountOrNoArray) {
  void* const data[] = {x_.data(), z_.data(), y_.data()};
  EXPECT_EQ(lrelu_executor_bind(e_, data, 3), LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(Error().find("needs 2 data pointers"), std::string::npos)
      << Error();
  EXPECT_EQ(lrelu_executor_bind(e_, data, 1), LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(lrelu_executor_bind(e_, nullptr, 2), LRELU_STATUS_INVALID_ARGUMENT);
  ExpectStillBoundToY();
}

TEST_F(BindMisuseTest, NullData) {
  void* const no_y[] = {x_.data(), nullptr};
  EXPECT_EQ(lrelu_executor_bind(e_, no_y, 2), LRELU_STATUS_NULL_DATA);
  EXPECT_NE(Error().find("y is NULL"), std::string::npos) << Error();
  void* const no_x[] = {nullptr, z_.data()};
  EXPECT_EQ(lrelu_executor_bind(e_, no_x, 2), LRELU_STATUS_NULL_DATA);
  ExpectStillBoundToY();
}

TEST_F(BindMisuseTest, OverlapThePlanDidNotAssume) {
  // Planned disjoint: x and y may not share memory now, not even exactly.
  void* const same[] = {x_.data(), x_.data()};
  EXPECT_EQ(lrelu_executor_bind(e_, same, 2), LRELU_STATUS_OVERLAP);
  EXPECT_NE(Error().find("disjoint"), std::string::npos) << Error();
  void* const shifted[] = {x_.data(), x_.data() + 1};
  EXPECT_EQ(lrelu_executor_bind(e_, shifted, 2), LRELU_STATUS_OVERLAP);
  ExpectStillBoundToY();
}

TEST_F(BindMisuseTest, InPlacePlanNeedsInPlaceData) {
  lrelu_executor_t* e = Plan(z_.data(), z_.data());
  ASSERT_NE(e, nullptr);
  void* const disjoint[] = {x_.data(), y_.data()};
  EXPECT_EQ(lrelu_executor_bind(e, disjoint, 2), LRELU_STATUS_OVERLAP);
  EXPECT_NE(Error().find("in place"), std::string::npos) << Error();
  void* const in_place[] = {y_.data(), y_.data()};
  EXPECT_EQ(lrelu_executor_bind(e, in_place, 2), LRELU_STATUS_OK);
  lrelu_executor_destroy(e);
}

TEST_F(BindMisuseTest, GradientOverlapOfSource) {
  lrelu_tensor_t tdy{x_.data(), LRELU_DTYPE_FLOAT32, 1, shape_, nullptr};
  lrelu_tensor_t ts{y_.data(), LRELU_DTYPE_FLOAT32, 1, shape_, nullptr};
  lrelu_tensor_t tdx{z_.data(), LRELU_DTYPE_FLOAT32, 1, shape_, nullptr};
  size_t ws = 0;
  lrelu_executor_t* e = nullptr;
  ASSERT_EQ(lrelu_leaky_relu_backward_get_workspace_size(
                &tdy, &ts, 0.5, LRELU_GRAD_FROM_X, &tdx, nullptr, &ws, &e),
            LRELU_STATUS_OK);
  void* const two[] = {x_.data(), z_.data()};
  EXPECT_EQ(lrelu_executor_bind(e, two, 2), LRELU_STATUS_INVALID_ARGUMENT);
  void* const s_is_dx[] = {x_.data(), z_.data(), z_.data()};
  EXPECT_EQ(lrelu_executor_bind(e, s_is_dx, 3), LRELU_STATUS_OVERLAP);
  // Inputs may share memory with each other.
  void* const dy_is_s[] = {x_.data(), x_.data(), z_.data()};
  EXPECT_EQ(lrelu_executor_bind(e, dy_is_s, 3), LRELU_STATUS_OK);
  lrelu_executor_destroy(e);
}

TEST_F(BindMisuseTest, EmptyTensorsTakeAnyPointer) {
  int64_t zero[1] = {0};
  lrelu_tensor_t t{nullptr, LRELU_DTYPE_FLOAT32, 1, zero, nullptr};
  size_t ws = 0;
  lrelu_executor_t* e = nullptr;
  ASSERT_EQ(lrelu_leaky_relu_get_workspace_size(&t, 0.5, &t, nullptr, &ws, &e),
            LRELU_STATUS_OK);
  void* const none[] = {nullptr, nullptr};
  EXPECT_EQ(lrelu_executor_bind(e, none, 2), LRELU_STATUS_OK);
  EXPECT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  lrelu_executor_destroy(e);
}

// PReLU executors re-bound: {x, alpha, y} and {dy, x, alpha, dx, dalpha}
// give what a one-shot call on the new data gives, bit for bit; the planned
// relations are enforced as for LeakyReLU's.
class PreluBindTest : public ::testing::Test {
 protected:
  static std::vector<float> Values(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    std::vector<float> v(n);
    for (float& f : v) f = normal(rng);
    return v;
  }
  lrelu_tensor_t T(std::vector<float>& v, const int64_t* shape, int rank) {
    return {v.data(), LRELU_DTYPE_FLOAT32, rank, shape, nullptr};
  }
  int64_t shape_[2] = {5, 7};  // NHWC-like: alpha along the last axis
  int64_t ashape_[1] = {7};
};

TEST_F(PreluBindTest, ForwardGivesTheOneShotBits) {
  for (bool in_place : {false, true}) {
    auto x1 = Values(35, 1), x2 = Values(35, 2), a1 = Values(7, 3),
         a2 = Values(7, 4);
    std::vector<float> y1(35), y2(35), want(35);
    lrelu_tensor_t tx = T(x1, shape_, 2), ta = T(a1, ashape_, 1),
                   ty = in_place ? tx : T(y1, shape_, 2);
    size_t ws = 0;
    lrelu_executor_t* e = nullptr;
    ASSERT_EQ(lrelu_prelu_get_workspace_size(&tx, &ta, &ty, nullptr, &ws, &e),
              LRELU_STATUS_OK)
        << lrelu_last_error();
    lrelu_tensor_t tx2 = T(x2, shape_, 2), ta2 = T(a2, ashape_, 1),
                   tw = T(want, shape_, 2);
    ASSERT_EQ(lrelu_prelu(&tx2, &ta2, &tw, nullptr), LRELU_STATUS_OK);
    void* const data[] = {x2.data(), a2.data(),
                          in_place ? x2.data() : y2.data()};
    ASSERT_EQ(lrelu_executor_bind(e, data, 3), LRELU_STATUS_OK)
        << lrelu_last_error();
    ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
    EXPECT_EQ(0, std::memcmp(in_place ? x2.data() : y2.data(), want.data(),
                             want.size() * sizeof(float)));
    // The planned relation of x and y holds for new pointers too.
    void* const broken[] = {x2.data(), a2.data(),
                            in_place ? y2.data() : x2.data()};
    EXPECT_EQ(lrelu_executor_bind(e, broken, 3), LRELU_STATUS_OVERLAP);
    // y over alpha, NULL alpha, the wrong count: refused, nothing changed.
    void* const over[] = {x2.data(), a2.data(), a2.data()};
    if (!in_place) {
      EXPECT_EQ(lrelu_executor_bind(e, over, 3), LRELU_STATUS_OVERLAP);
    }
    void* const null_alpha[] = {x2.data(), nullptr,
                                in_place ? x2.data() : y2.data()};
    EXPECT_EQ(lrelu_executor_bind(e, null_alpha, 3), LRELU_STATUS_NULL_DATA);
    EXPECT_EQ(lrelu_executor_bind(e, data, 2), LRELU_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(lrelu_last_error()).find("x, alpha, y"),
              std::string::npos)
        << lrelu_last_error();
    lrelu_executor_destroy(e);
  }
}

TEST_F(PreluBindTest, GradientGivesTheOneShotBits) {
  auto dy1 = Values(35, 5), x1 = Values(35, 6), a1 = Values(7, 7);
  auto dy2 = Values(35, 8), x2 = Values(35, 9), a2 = Values(7, 10);
  std::vector<float> dx1(35), da1(7), dx2(35), da2(7), want_dx(35), want_da(7);
  lrelu_tensor_t tdy = T(dy1, shape_, 2), tx = T(x1, shape_, 2),
                 ta = T(a1, ashape_, 1), tdx = T(dx1, shape_, 2),
                 tda = T(da1, ashape_, 1);
  size_t ws = 0;
  lrelu_executor_t* e = nullptr;
  ASSERT_EQ(lrelu_prelu_backward_get_workspace_size(&tdy, &tx, &ta, &tdx, &tda,
                                                    nullptr, &ws, &e),
            LRELU_STATUS_OK)
      << lrelu_last_error();
  lrelu_tensor_t tdy2 = T(dy2, shape_, 2), tx2 = T(x2, shape_, 2),
                 ta2 = T(a2, ashape_, 1), twdx = T(want_dx, shape_, 2),
                 twda = T(want_da, ashape_, 1);
  ASSERT_EQ(lrelu_prelu_backward(&tdy2, &tx2, &ta2, &twdx, &twda, nullptr),
            LRELU_STATUS_OK);
  void* const data[] = {dy2.data(), x2.data(), a2.data(), dx2.data(),
                        da2.data()};
  ASSERT_EQ(lrelu_executor_bind(e, data, 5), LRELU_STATUS_OK)
      << lrelu_last_error();
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  EXPECT_EQ(0, std::memcmp(dx2.data(), want_dx.data(), 35 * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(da2.data(), want_da.data(), 7 * sizeof(float)));
  // dalpha over dx, and a dalpha for an executor planned without one.
  void* const over[] = {dy2.data(), x2.data(), a2.data(), dx2.data(),
                        dx2.data()};
  EXPECT_EQ(lrelu_executor_bind(e, over, 5), LRELU_STATUS_OVERLAP);
  lrelu_executor_destroy(e);
  ASSERT_EQ(lrelu_prelu_backward_get_workspace_size(&tdy, &tx, &ta, &tdx,
                                                    nullptr, nullptr, &ws, &e),
            LRELU_STATUS_OK);
  EXPECT_EQ(lrelu_executor_bind(e, data, 5), LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lrelu_last_error()).find("without dalpha"),
            std::string::npos)
      << lrelu_last_error();
  void* const no_dalpha[] = {dy2.data(), x2.data(), a2.data(), dx2.data(),
                             nullptr};
  ASSERT_EQ(lrelu_executor_bind(e, no_dalpha, 5), LRELU_STATUS_OK)
      << lrelu_last_error();
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  EXPECT_EQ(0, std::memcmp(dx2.data(), want_dx.data(), 35 * sizeof(float)));
  lrelu_executor_destroy(e);
}

// Many executors alive at once (several slabs), each still valid, and every
// one of them refused after destruction.
TEST(BindTest, ManyExecutors) {
  std::vector<float> x(8, -1.0f), y(8, 0.0f);
  int64_t shape[1] = {8};
  lrelu_tensor_t tx{x.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t ty{y.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  std::vector<lrelu_executor_t*> all(300);
  for (auto& e : all) {
    size_t ws = 0;
    ASSERT_EQ(
        lrelu_leaky_relu_get_workspace_size(&tx, 0.5, &ty, nullptr, &ws, &e),
        LRELU_STATUS_OK);
  }
  for (auto* e : all) {
    ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  }
  EXPECT_EQ(y[0], -0.5f);
  for (auto* e : all) lrelu_executor_destroy(e);
  for (auto* e : all) {
    EXPECT_EQ(lrelu_execute(nullptr, 0, e, nullptr),
              LRELU_STATUS_INVALID_EXECUTOR);
  }
}

// The C++ wrapper: Executor::bind for both passes, errors as exceptions.
TEST(BindTest, CppWrapper) {
  std::vector<float> xa(16, -1.0f), ya(16), xb(16, -4.0f), yb(16);
  auto e = lrelu::Executor::forward(
      lrelu::TensorView(xa.data(), lrelu::DType::kFloat32, {16}), 0.5,
      lrelu::TensorView(ya.data(), lrelu::DType::kFloat32, {16}));
  e.bind(xb.data(), yb.data());
  e.execute();
  EXPECT_EQ(yb[15], -2.0f);
  EXPECT_EQ(ya[15], 0.0f);
  EXPECT_THROW(e.bind(xb.data(), xb.data()), lrelu::Error);
  std::vector<float> dy(16, 3.0f), dx(16);
  auto g = lrelu::Executor::backward(
      lrelu::TensorView(dy.data(), lrelu::DType::kFloat32, {16}),
      lrelu::TensorView(xa.data(), lrelu::DType::kFloat32, {16}), 0.5,
      lrelu::GradSource::kFromX,
      lrelu::TensorView(dx.data(), lrelu::DType::kFloat32, {16}));
  std::vector<float> dx2(16);
  g.bind(dy.data(), xb.data(), dx2.data());
  g.execute();
  EXPECT_EQ(dx2[0], 1.5f);
  EXPECT_EQ(dx[0], 0.0f);
}

}  // namespace
