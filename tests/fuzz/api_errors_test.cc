// C ABI refusals that docs/errors.md lists and tests/errors_test.cc does
// not reach, and regressions for what fuzzing found (hardening; see
// docs/errors.md, "Found by fuzzing"). Each refusal: the status, a message
// naming the problem, and the output untouched.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lrelu/lrelu.h"

namespace {

struct Buffers {
  float x[64];
  float y[64];
  Buffers() {
    for (int i = 0; i < 64; ++i) x[i] = -1.0f - static_cast<float>(i);
    std::memset(y, 0x77, sizeof(y));
  }
  bool YUntouched() const {
    for (size_t i = 0; i < sizeof(y); ++i) {
      if (reinterpret_cast<const unsigned char*>(y)[i] != 0x77) return false;
    }
    return true;
  }
};

lrelu_tensor_t T(void* data, lrelu_dtype_t dtype,
                 const std::vector<int64_t>& shape,
                 const std::vector<int64_t>* strides = nullptr) {
  return lrelu_tensor_t{data, dtype, static_cast<int32_t>(shape.size()),
                        shape.data(), strides ? strides->data() : nullptr};
}

std::string LastError() { return lrelu_last_error(); }

void NeverCalled(void*, lrelu_task_fn, void*, size_t) {
  ADD_FAILURE() << "a refused pool was used";
}

TEST(ErrorCatalogue, UnknownCpuTarget) {
  Buffers b;
  const std::vector<int64_t> shape = {8};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, shape);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, shape);
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.cpu_target = "AVX9000";
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o),
            LRELU_STATUS_UNSUPPORTED_VARIANT);
  EXPECT_NE(LastError().find("cpu target 'AVX9000'"), std::string::npos)
      << LastError();
  EXPECT_TRUE(b.YUntouched());
}

TEST(ErrorCatalogue, ContiguousVariantOnStridedViews) {
  Buffers b;
  const std::vector<int64_t> shape = {8}, stride2 = {2};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, shape, &stride2);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, shape);
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.variant = "contiguous";
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o),
            LRELU_STATUS_UNSUPPORTED_VARIANT);
  EXPECT_NE(LastError().find("dense run"), std::string::npos) << LastError();
  EXPECT_TRUE(b.YUntouched());
}

TEST(ErrorCatalogue, NegativeDevice) {
  Buffers b;
  const std::vector<int64_t> shape = {8};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, shape);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, shape);
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.device = -1;
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o), LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("options.device is -1"), std::string::npos)
      << LastError();
  EXPECT_TRUE(b.YUntouched());
}

TEST(ErrorCatalogue, ThreadPoolWithoutConcurrency) {
  Buffers b;
  const std::vector<int64_t> shape = {8};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, shape);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, shape);
  lrelu_thread_pool_t pool = {&NeverCalled, nullptr, 0};
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.thread_pool = &pool;
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o), LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("concurrency of at least 1"), std::string::npos);
  EXPECT_TRUE(b.YUntouched());
}

TEST(ErrorCatalogue, ExecuteWithABadPoolWritesNothing) {
  Buffers b;
  const std::vector<int64_t> shape = {8};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, shape);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, shape);
  size_t size = 0;
  lrelu_executor_t* e = nullptr;
  ASSERT_EQ(
      lrelu_leaky_relu_get_workspace_size(&x, 0.1, &y, nullptr, &size, &e),
      LRELU_STATUS_OK);
  lrelu_thread_pool_t no_function = {nullptr, nullptr, 2};
  EXPECT_EQ(lrelu_execute(nullptr, 0, e, &no_function),
            LRELU_STATUS_INVALID_ARGUMENT);
  lrelu_thread_pool_t no_concurrency = {&NeverCalled, nullptr, 0};
  EXPECT_EQ(lrelu_execute(nullptr, 0, e, &no_concurrency),
            LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("thread_pool needs"), std::string::npos)
      << LastError();
  EXPECT_TRUE(b.YUntouched());
  // A workspace is optional when the plan needs none (CPU plans never do,
  // so LRELU_STATUS_WORKSPACE_TOO_SMALL cannot happen on the CPU).
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  lrelu_executor_destroy(e);
}

TEST(ErrorCatalogue, NullExecutorPointer) {
  Buffers b;
  const std::vector<int64_t> shape = {8};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, shape);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, shape);
  size_t size = 0;
  EXPECT_EQ(
      lrelu_leaky_relu_get_workspace_size(&x, 0.1, &y, nullptr, &size, nullptr),
      LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("must not be NULL"), std::string::npos)
      << LastError();
  EXPECT_TRUE(b.YUntouched());
}

TEST(ErrorCatalogue, GradientArgumentErrors) {
  Buffers b;
  const std::vector<int64_t> s4 = {4}, s5 = {5};
  lrelu_tensor_t dy = T(b.x, LRELU_DTYPE_FLOAT32, s4);
  lrelu_tensor_t x = T(b.x + 16, LRELU_DTYPE_FLOAT32, s4);
  lrelu_tensor_t dx = T(b.y, LRELU_DTYPE_FLOAT32, s4);
  EXPECT_EQ(lrelu_leaky_relu_backward(nullptr, &x, 0.1, LRELU_GRAD_FROM_X, &dx,
                                      nullptr),
            LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("dy is NULL"), std::string::npos) << LastError();
  EXPECT_EQ(lrelu_leaky_relu_backward(&dy, &x, 0.1, LRELU_GRAD_FROM_X, nullptr,
                                      nullptr),
            LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("dx is NULL"), std::string::npos) << LastError();
  lrelu_tensor_t x16 = T(b.x + 16, LRELU_DTYPE_FLOAT16, s4);
  EXPECT_EQ(lrelu_leaky_relu_backward(&dy, &x16, 0.1, LRELU_GRAD_FROM_X, &dx,
                                      nullptr),
            LRELU_STATUS_DTYPE_MISMATCH);
  lrelu_tensor_t x5 = T(b.x + 16, LRELU_DTYPE_FLOAT32, s5);
  EXPECT_EQ(
      lrelu_leaky_relu_backward(&dy, &x5, 0.1, LRELU_GRAD_FROM_X, &dx, nullptr),
      LRELU_STATUS_SHAPE_MISMATCH);
  lrelu_tensor_t dx_bad = T(b.y, static_cast<lrelu_dtype_t>(0), s4);
  EXPECT_EQ(lrelu_leaky_relu_backward(&dy, &x, 0.1, LRELU_GRAD_FROM_X, &dx_bad,
                                      nullptr),
            LRELU_STATUS_UNSUPPORTED_DTYPE);
  // dx may be dy (in place) but must not partially overlap dy.
  lrelu_tensor_t dx_shifted = T(b.x + 1, LRELU_DTYPE_FLOAT32, s4);
  EXPECT_EQ(lrelu_leaky_relu_backward(&dy, &x, 0.1, LRELU_GRAD_FROM_X,
                                      &dx_shifted, nullptr),
            LRELU_STATUS_OVERLAP);
  EXPECT_TRUE(b.YUntouched());
}

TEST(ErrorCatalogue, StridesReachingOutsideTheAddressSpace) {
  // Never dereferenced: validation refuses the view first.
  const std::vector<int64_t> shape = {4}, backwards = {-4};
  lrelu_tensor_t x =
      T(reinterpret_cast<void*>(16), LRELU_DTYPE_FLOAT32, shape, &backwards);
  Buffers b;
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, shape);
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, nullptr), LRELU_STATUS_SIZE_OVERFLOW);
  EXPECT_NE(LastError().find("outside the address space"), std::string::npos)
      << LastError();
  EXPECT_TRUE(b.YUntouched());
}

// --- Found by fuzzing (tests/fuzz/api_fuzzer.cc) ---------------------------

// An output whose byte range ends past INTPTR_MAX: problem.cc CheckOverlap
// adds the byte offsets to the base address as intptr_t, which overflows
// (undefined; UBSan aborts) and, wrapped, hides that y shares its first
// element with x. Planning only: nothing is dereferenced.
TEST(FoundByFuzzing, OverlapTestDoesNotOverflowNearTheTopOfTheAddressSpace) {
  Buffers b;
  const std::vector<int64_t> shape = {2};
  const std::vector<int64_t> huge = {INT64_MAX / 4};  // 2^63 - 4 bytes apart
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, shape);
  lrelu_tensor_t y = T(b.x, LRELU_DTYPE_FLOAT32, shape, &huge);
  size_t size = 0;
  lrelu_executor_t* e = nullptr;
  // y[0] is x[0] but y is not x's view: a partial overlap.
  EXPECT_EQ(
      lrelu_leaky_relu_get_workspace_size(&x, 0.1, &y, nullptr, &size, &e),
      LRELU_STATUS_OVERLAP)
      << LastError();
  lrelu_executor_destroy(e);
}

// options.struct_size that ends inside a field (here: half of thread_pool).
// The library copies struct_size bytes, so it would use half a pointer; a
// size that is not the end of a field must be refused.
TEST(FoundByFuzzing, StructSizeInsideAFieldIsRefused) {
  Buffers b;
  const std::vector<int64_t> shape = {8};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, shape);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, shape);
  lrelu_thread_pool_t pool = {&NeverCalled, nullptr, 1};
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.thread_pool = &pool;
  o.struct_size = offsetof(lrelu_options_t, thread_pool) + 4;
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o), LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(b.YUntouched());
}

// Every NaN passes through with identical bits, signalling ones included,
// on every target, dtype and operation. Found by api_fuzzer in the clang
// build (fuzz preset): the float32 and float64 SIMD kernels return
// 0x7fa00001 as 0x7fe00001 there (LLVM folds `s < 0 ? alpha * v : v` into
// `v * (s < 0 ? alpha : 1.0)`, and v * 1.0 quiets a signalling NaN); gcc
// builds keep the bits.
TEST(FoundByFuzzing, SignallingNaNsPassThroughOnEveryTarget) {
  const int n = 67;  // a vector body and a tail on every target
  for (const lrelu_dtype_t dtype :
       {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16,
        LRELU_DTYPE_FLOAT64}) {
    const size_t e = lrelu_dtype_size(dtype);
    const uint64_t snan = e == 8                         ? 0x7ff4000000000001ull
                          : e == 4                       ? 0x7fa00001u
                          : dtype == LRELU_DTYPE_FLOAT16 ? 0x7d01u
                                                         : 0x7f81u;
    std::vector<unsigned char> v(n * e), s(n * e, 0), out(n * e);
    for (int i = 0; i < n; ++i) std::memcpy(&v[i * e], &snan, e);
    const std::vector<int64_t> shape = {n};
    lrelu_tensor_t vt = T(v.data(), dtype, shape);
    lrelu_tensor_t st = T(s.data(), dtype, shape);  // +0: dx = dy
    lrelu_tensor_t ot = T(out.data(), dtype, shape);
    for (size_t t = 0; t < lrelu_cpu_target_count(); ++t) {
      for (const char* variant : {"contiguous", "strided"}) {
        for (const bool backward : {false, true}) {
          lrelu_options_t o;
          lrelu_options_init(&o);
          o.cpu_target = lrelu_cpu_target_name(t);
          o.variant = variant;
          std::memset(out.data(), 0, out.size());
          ASSERT_EQ(backward ? lrelu_leaky_relu_backward(
                                   &vt, &st, 0.01, LRELU_GRAD_FROM_X, &ot, &o)
                             : lrelu_leaky_relu(&vt, 0.01, &ot, &o),
                    LRELU_STATUS_OK);
          EXPECT_EQ(std::memcmp(v.data(), out.data(), out.size()), 0)
              << lrelu_dtype_name(dtype)
              << (backward ? " gradient" : " forward") << " on " << o.cpu_target
              << ", " << variant;
        }
      }
    }
  }
}

// A negative dtype or backend from a C caller: lrelu.h's enums have no
// negative enumerator, so their C++ value range is [0, 2^31) and loading -1
// from the struct is undefined behaviour (UBSan: "load of value 4294967295,
// which is not a valid value for type 'lrelu_dtype'", problem.cc CheckTensor
// and lrelu.cc SelectBackend). Passes in plain builds; aborts under
// -fsanitize=undefined until the enums get a negative enumerator.
TEST(FoundByFuzzing, NegativeEnumValues) {
  Buffers b;
  const std::vector<int64_t> shape = {8};
  lrelu_tensor_t x = T(b.x, LRELU_DTYPE_FLOAT32, shape);
  lrelu_tensor_t y = T(b.y, LRELU_DTYPE_FLOAT32, shape);
  const int minus_one = -1;
  std::memcpy(&x.dtype, &minus_one, sizeof minus_one);
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, nullptr),
            LRELU_STATUS_UNSUPPORTED_DTYPE);
  x.dtype = LRELU_DTYPE_FLOAT32;
  lrelu_options_t o;
  lrelu_options_init(&o);
  std::memcpy(&o.backend, &minus_one, sizeof minus_one);
  EXPECT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o),
            LRELU_STATUS_BACKEND_UNAVAILABLE);
  EXPECT_TRUE(b.YUntouched());
}

}  // namespace
