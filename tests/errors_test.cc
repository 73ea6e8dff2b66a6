// Every argument error of the C ABI: a specific status, a message naming the
// problem, and the output left untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "lrelu/lrelu.h"

namespace {

// Out-of-range enum values, as a caller's bug or a newer header would pass.
template <typename E>
E Invalid(int value) {
  volatile int v = value;
  return static_cast<E>(v);
}

struct Buffers {
  float x[64];
  float y[64];
  Buffers() {
    for (int i = 0; i < 64; ++i) x[i] = -1.0f - static_cast<float>(i);
    std::memset(y, 0x77, sizeof(y));
  }
  bool YUntouched() const {
    unsigned char expected[sizeof(y)];
    std::memset(expected, 0x77, sizeof(expected));
    return std::memcmp(y, expected, sizeof(y)) == 0;
  }
};

lrelu_tensor_t T(void* data, lrelu_dtype_t dtype, std::vector<int64_t>* shape,
                 std::vector<int64_t>* strides = nullptr) {
  lrelu_tensor_t t;
  t.data = data;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape->size());
  t.shape = shape->data();
  t.strides = strides != nullptr ? strides->data() : nullptr;
  return t;
}

void ExpectForwardError(const lrelu_tensor_t* x, const lrelu_tensor_t* y,
                        lrelu_status_t status, const char* words,
                        const Buffers* b = nullptr) {
  EXPECT_EQ(lrelu_leaky_relu(x, 0.1, y, nullptr), status) << lrelu_last_error();
  EXPECT_NE(std::string(lrelu_last_error()).find(words), std::string::npos)
      << "message: " << lrelu_last_error();
  if (b != nullptr) {
    EXPECT_TRUE(b->YUntouched());
  }
  // The two-stage call refuses the same arguments in its first stage.
  size_t size = 123;
  lrelu_executor_t* e = reinterpret_cast<lrelu_executor_t*>(1);
  EXPECT_EQ(lrelu_leaky_relu_get_workspace_size(x, 0.1, y, nullptr, &size, &e),
            status);
  EXPECT_EQ(e, nullptr);
}

TEST(Errors, NullTensors) {
  Buffers b;
  std::vector<int64_t> shape = {4};
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, &shape);
  ExpectForwardError(nullptr, &y, LRELU_STATUS_INVALID_ARGUMENT, "x is NULL",
                     &b);
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, &shape);
  ExpectForwardError(&x, nullptr, LRELU_STATUS_INVALID_ARGUMENT, "y is NULL",
                     &b);
}

TEST(Errors, UnsupportedDType) {
  Buffers b;
  std::vector<int64_t> shape = {4};
  lrelu_tensor_t x = T(b.x, Invalid<lrelu_dtype_t>(9), &shape);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, &shape);
  ExpectForwardError(&x, &y, LRELU_STATUS_UNSUPPORTED_DTYPE,
                     "unsupported dtype 9", &b);
}

TEST(Errors, DTypeAndShapeMismatch) {
  Buffers b;
  std::vector<int64_t> s4 = {4}, s22 = {2, 2}, s5 = {5};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, &s4);
  lrelu_tensor_t y16 = T(b.y, LRELU_DTYPE_FLOAT16, &s4);
  ExpectForwardError(&x, &y16, LRELU_STATUS_DTYPE_MISMATCH,
                     "x is float32 but y is float16", &b);
  lrelu_tensor_t y22 = T(b.y, LRELU_DTYPE_FLOAT32, &s22);
  ExpectForwardError(&x, &y22, LRELU_STATUS_SHAPE_MISMATCH,
                     "x has shape [4] but y has shape [2,2]", &b);
  lrelu_tensor_t y5 = T(b.y, LRELU_DTYPE_FLOAT32, &s5);
  ExpectForwardError(&x, &y5, LRELU_STATUS_SHAPE_MISMATCH, "[5]", &b);
}

TEST(Errors, NegativeRankAndDimensionsAndNullShape) {
  Buffers b;
  std::vector<int64_t> shape = {4};
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, &shape);
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, &shape);
  x.rank = -1;
  ExpectForwardError(&x, &y, LRELU_STATUS_INVALID_ARGUMENT, "negative rank",
                     &b);
  std::vector<int64_t> negative = {3, -2};
  lrelu_tensor_t xn = T(b.x, LRELU_DTYPE_FLOAT32, &negative);
  ExpectForwardError(&xn, &y, LRELU_STATUS_INVALID_ARGUMENT,
                     "x.shape[1] is negative (-2)", &b);
  lrelu_tensor_t xs = T(b.x, LRELU_DTYPE_FLOAT32, &shape);
  xs.shape = nullptr;
  ExpectForwardError(&xs, &y, LRELU_STATUS_INVALID_ARGUMENT, "x.shape is NULL",
                     &b);
}

TEST(Errors, ElementCountAndByteOverflow) {
  Buffers b;
  std::vector<int64_t> huge = {int64_t{1} << 32, int64_t{1} << 32};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, &huge);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, &huge);
  ExpectForwardError(&x, &y, LRELU_STATUS_SIZE_OVERFLOW, "overflows", &b);
  std::vector<int64_t> big = {int64_t{1} << 62};
  lrelu_tensor_t xb = T(b.x, LRELU_DTYPE_FLOAT64, &big);
  lrelu_tensor_t yb = T(b.y, LRELU_DTYPE_FLOAT64, &big);
  ExpectForwardError(&xb, &yb, LRELU_STATUS_SIZE_OVERFLOW, "bytes overflows",
                     &b);
  std::vector<int64_t> two = {2};
  std::vector<int64_t> wild = {int64_t{1} << 62};
  lrelu_tensor_t xw = T(b.x, LRELU_DTYPE_FLOAT32, &two, &wild);
  lrelu_tensor_t y2 = T(b.y, LRELU_DTYPE_FLOAT32, &two);
  ExpectForwardError(&xw, &y2, LRELU_STATUS_SIZE_OVERFLOW, "strides reach", &b);
  // Many size-1 dimensions are fine: any rank.
  std::vector<int64_t> ones(200, 1);
  lrelu_tensor_t x1 = T(b.x, LRELU_DTYPE_FLOAT32, &ones);
  lrelu_tensor_t y1 = T(b.y, LRELU_DTYPE_FLOAT32, &ones);
  EXPECT_EQ(lrelu_leaky_relu(&x1, 0.1, &y1, nullptr), LRELU_STATUS_OK);
  EXPECT_FLOAT_EQ(b.y[0], -0.1f);
}

TEST(Errors, NullDataOnlyWhenEmpty) {
  Buffers b;
  std::vector<int64_t> shape = {4};
  lrelu_tensor_t x = T(nullptr, LRELU_DTYPE_FLOAT32, &shape);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, &shape);
  ExpectForwardError(&x, &y, LRELU_STATUS_NULL_DATA,
                     "x.data is NULL but x has 4", &b);
  std::vector<int64_t> empty = {4, 0};
  lrelu_tensor_t xe = T(nullptr, LRELU_DTYPE_FLOAT32, &empty);
  lrelu_tensor_t ye = T(nullptr, LRELU_DTYPE_FLOAT32, &empty);
  EXPECT_EQ(lrelu_leaky_relu(&xe, 0.1, &ye, nullptr), LRELU_STATUS_OK);
}

TEST(Errors, PartialOverlapAndSelfOverlap) {
  Buffers b;
  std::vector<int64_t> shape = {8};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, &shape);
  lrelu_tensor_t shifted = T(b.x + 1, LRELU_DTYPE_FLOAT32, &shape);
  ExpectForwardError(&x, &shifted, LRELU_STATUS_OVERLAP, "partially overlap");
  // Same start, different strides: not the same view.
  std::vector<int64_t> stride2 = {2};
  lrelu_tensor_t x2 = T(b.x, LRELU_DTYPE_FLOAT32, &shape, &stride2);
  ExpectForwardError(&x2, &x, LRELU_STATUS_OVERLAP, "partially overlap");
  // An output that repeats an element.
  std::vector<int64_t> zero = {0};
  lrelu_tensor_t y0 = T(b.y, LRELU_DTYPE_FLOAT32, &shape, &zero);
  ExpectForwardError(&x, &y0, LRELU_STATUS_OVERLAP,
                     "y has overlapping elements", &b);
  std::vector<int64_t> shape2 = {4, 4};
  std::vector<int64_t> interleaved = {1, 2};
  lrelu_tensor_t xi = T(b.x, LRELU_DTYPE_FLOAT32, &shape2);
  lrelu_tensor_t yi = T(b.y, LRELU_DTYPE_FLOAT32, &shape2, &interleaved);
  ExpectForwardError(&xi, &yi, LRELU_STATUS_OVERLAP, "y has overlapping", &b);
  // Exact aliasing is in-place and fine; an input may repeat elements.
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.5, &x, nullptr), LRELU_STATUS_OK);
  EXPECT_FLOAT_EQ(b.x[0], -0.5f);
  lrelu_tensor_t xr = T(b.x, LRELU_DTYPE_FLOAT32, &shape, &zero);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, &shape);
  EXPECT_EQ(lrelu_leaky_relu(&xr, 2.0, &y, nullptr), LRELU_STATUS_OK);
  EXPECT_FLOAT_EQ(b.y[7], -1.0f);
}

TEST(Errors, GradientFromYNeedsPositiveAlpha) {
  Buffers b;
  std::vector<int64_t> shape = {4};
  lrelu_tensor_t dy = T(b.x, LRELU_DTYPE_FLOAT32, &shape);
  lrelu_tensor_t y = T(b.x + 8, LRELU_DTYPE_FLOAT32, &shape);
  lrelu_tensor_t dx = T(b.y, LRELU_DTYPE_FLOAT32, &shape);
  for (double alpha : {0.0, -0.5, std::nan("")}) {
    EXPECT_EQ(lrelu_leaky_relu_backward(&dy, &y, alpha, LRELU_GRAD_FROM_Y, &dx,
                                        nullptr),
              LRELU_STATUS_INVALID_ALPHA);
    EXPECT_NE(std::string(lrelu_last_error()).find("alpha > 0"),
              std::string::npos);
    EXPECT_TRUE(b.YUntouched());
  }
  EXPECT_EQ(
      lrelu_leaky_relu_backward(&dy, &y, 0.5, LRELU_GRAD_FROM_Y, &dx, nullptr),
      LRELU_STATUS_OK);
  EXPECT_EQ(
      lrelu_leaky_relu_backward(&dy, &y, -0.5, LRELU_GRAD_FROM_X, &dx, nullptr),
      LRELU_STATUS_OK);
  EXPECT_EQ(lrelu_leaky_relu_backward(
                &dy, &y, 0.5, Invalid<lrelu_grad_source_t>(7), &dx, nullptr),
            LRELU_STATUS_INVALID_ARGUMENT);
  // dx may not partially overlap x.
  lrelu_tensor_t dx_overlap = T(b.x + 9, LRELU_DTYPE_FLOAT32, &shape);
  EXPECT_EQ(lrelu_leaky_relu_backward(&dy, &y, 0.5, LRELU_GRAD_FROM_X,
                                      &dx_overlap, nullptr),
            LRELU_STATUS_OVERLAP);
}

TEST(Errors, BadOptions) {
  Buffers b;
  std::vector<int64_t> shape = {4};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, &shape);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, &shape);
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.variant = "simd-please";
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o), LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lrelu_last_error()).find("simd-please"),
            std::string::npos);
  lrelu_options_init(&o);
  o.backend = Invalid<lrelu_backend_t>(5);
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o),
            LRELU_STATUS_BACKEND_UNAVAILABLE);
  lrelu_options_init(&o);
  o.struct_size = 0;
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o), LRELU_STATUS_INVALID_ARGUMENT);
  lrelu_options_init(&o);
  lrelu_thread_pool_t pool = {nullptr, nullptr, 1};
  o.thread_pool = &pool;
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o), LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(b.YUntouched());
}

TEST(Errors, ExecutorLifecycle) {
  Buffers b;
  std::vector<int64_t> shape = {4};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, &shape);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, &shape);
  size_t size = 99;
  lrelu_executor_t* e = nullptr;
  ASSERT_EQ(
      lrelu_leaky_relu_get_workspace_size(&x, 0.1, &y, nullptr, &size, &e),
      LRELU_STATUS_OK);
  EXPECT_EQ(size, 0u);
  EXPECT_TRUE(b.YUntouched()) << "planning must not touch data";
  EXPECT_STREQ(lrelu_executor_variant(e), "contiguous");
  EXPECT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  EXPECT_FLOAT_EQ(b.y[3], -0.4f);
  EXPECT_EQ(lrelu_execute(nullptr, 0, e, nullptr),
            LRELU_STATUS_OK);  // reusable
  lrelu_executor_destroy(e);
  EXPECT_EQ(lrelu_execute(nullptr, 0, e, nullptr),
            LRELU_STATUS_INVALID_EXECUTOR);
  EXPECT_EQ(lrelu_executor_variant(e), nullptr);
  lrelu_executor_destroy(e);  // double destroy is ignored
  EXPECT_EQ(lrelu_execute(nullptr, 0, nullptr, nullptr),
            LRELU_STATUS_INVALID_EXECUTOR);
  int not_an_executor = 0;
  EXPECT_EQ(lrelu_execute(nullptr, 0,
                          reinterpret_cast<lrelu_executor_t*>(&not_an_executor),
                          nullptr),
            LRELU_STATUS_INVALID_EXECUTOR);
  EXPECT_EQ(
      lrelu_leaky_relu_get_workspace_size(&x, 0.1, &y, nullptr, nullptr, &e),
      LRELU_STATUS_INVALID_ARGUMENT);
}

TEST(Errors, StatusAndDTypeNames) {
  EXPECT_STREQ(lrelu_status_string(LRELU_STATUS_OVERLAP),
               "LRELU_STATUS_OVERLAP");
  EXPECT_STREQ(lrelu_status_string(Invalid<lrelu_status_t>(99)),
               "LRELU_STATUS_UNKNOWN");
  EXPECT_STREQ(lrelu_dtype_name(LRELU_DTYPE_BFLOAT16), "bfloat16");
  EXPECT_EQ(lrelu_dtype_name(Invalid<lrelu_dtype_t>(0)), nullptr);
  EXPECT_EQ(lrelu_dtype_size(LRELU_DTYPE_FLOAT64), 8u);
  EXPECT_EQ(lrelu_contract_version(), LRELU_CONTRACT_VERSION);
}

}  // namespace
