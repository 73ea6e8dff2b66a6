// PReLU forward on the CUDA backend against the oracle (the cases of
// opencl_prelu_test on device memory, plus a stream, host alpha refused,
// misaligned alpha refused). Without a device only the no-device status is
// checked; LRELU_REQUIRE_CUDA=1 (scripts/gpu-check.sh) makes a missing
// device a failure, so a device run never passes by skipping.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/gpu_test_support.h"
#include "gpu/prelu_device_cases.h"
#include "lrelu/lrelu.h"
#include "support/test_data.h"

#ifdef LRELU_TEST_HAS_CUDA
#include <cuda_runtime.h>

#include "gpu/cuda_test_memory.h"
#endif

namespace lrelu {
namespace {

using testing::BackendOptions;
using testing::CudaRequired;

TEST(CudaPreluTest, NoDeviceIsAClearStatus) {
  if (lrelu_backend_available(LRELU_BACKEND_CUDA)) {
    if (CudaRequired()) return;  // the device tests below apply instead
    GTEST_SKIP() << "a CUDA device is present";
  }
  if (CudaRequired()) {
    FAIL() << "LRELU_REQUIRE_CUDA=1 but no CUDA device: "
           << lrelu_backend_unavailable_reason(LRELU_BACKEND_CUDA);
  }
  std::vector<float> x = {-1, 2}, y(2), alpha = {0.5f};
  const int64_t shape[1] = {2}, ashape[1] = {1};
  lrelu_tensor_t tx = {x.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t ty = {y.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t ta = {alpha.data(), LRELU_DTYPE_FLOAT32, 1, ashape, nullptr};
  const lrelu_options_t o = BackendOptions(LRELU_BACKEND_CUDA);
  EXPECT_EQ(lrelu_prelu(&tx, &ta, &ty, &o), LRELU_STATUS_BACKEND_UNAVAILABLE);
  const std::string message = lrelu_last_error();
  EXPECT_TRUE(message.find("no CUDA device") != std::string::npos ||
              message.find("not built") != std::string::npos)
      << message;
}

#ifdef LRELU_TEST_HAS_CUDA

using testing::AllDTypes;
using testing::g_stream;
using testing::kDeviceMemory;
using testing::PreluCase;
using testing::RunPreluDeviceCase;

using CudaPreluDeviceTest = testing::DeviceTest<LRELU_BACKEND_CUDA>;

TEST_F(CudaPreluDeviceTest, EveryDTypeAndPattern) {
  testing::ExpectEveryPreluPattern(LRELU_BACKEND_CUDA, AllDTypes(),
                                   kDeviceMemory);
}

TEST_F(CudaPreluDeviceTest, LayoutsLargeAndStream) {
  ASSERT_EQ(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking),
            cudaSuccess);
  for (lrelu_dtype_t dtype : AllDTypes()) {
    PreluCase c = Case(dtype, {2, 3, 4, 5}, {3, 1, 1});
    c.x_strides = {60, 1, 15, 3};
    EXPECT_EQ(RunPreluDeviceCase(c, kDeviceMemory, 11), "") << "permuted x";
    c = Case(dtype, {2, 4, 5, 6}, {6});
    c.alpha_strides = {-1};
    EXPECT_EQ(RunPreluDeviceCase(c, kDeviceMemory, 13), "") << "reversed alpha";
    c = Case(dtype, {4, 9}, {4, 1});
    c.x_strides = {-9, 1};
    EXPECT_EQ(RunPreluDeviceCase(c, kDeviceMemory, 15), "") << "reversed x";
    c = Case(dtype, {1, 16387, 64}, {64});
    c.stream = g_stream;
    EXPECT_EQ(RunPreluDeviceCase(c, kDeviceMemory, 21), "") << "NHWC stream";
    c = Case(dtype, {1, 512, 2049}, {512, 1});
    EXPECT_EQ(RunPreluDeviceCase(c, kDeviceMemory, 22), "") << "NCHW";
  }
  cudaStreamDestroy(g_stream);
  g_stream = nullptr;
}

// lrelu_executor_bind: planned on other buffers, bound to these, the
// oracle's bits (patterns, reversed x, in place).
TEST_F(CudaPreluDeviceTest, BoundExecutorsGiveTheOracleBits) {
  testing::ExpectBoundPrelu(LRELU_BACKEND_CUDA, AllDTypes(), kDeviceMemory);
}

TEST_F(CudaPreluDeviceTest, Refusals) {
  void* block = nullptr;
  ASSERT_EQ(cudaMalloc(&block, 256), cudaSuccess);
  auto* x = static_cast<float*>(block);
  float* y = x + 16;
  float* alpha = x + 32;
  const int64_t shape[2] = {4, 4}, ashape[2] = {4, 1};
  lrelu_tensor_t tx = {x, LRELU_DTYPE_FLOAT32, 2, shape, nullptr};
  lrelu_tensor_t ty = {y, LRELU_DTYPE_FLOAT32, 2, shape, nullptr};
  lrelu_tensor_t ta = {alpha, LRELU_DTYPE_FLOAT32, 2, ashape, nullptr};
  lrelu_options_t o = BackendOptions(LRELU_BACKEND_CUDA);
  EXPECT_EQ(lrelu_prelu(&tx, &ta, &ty, &o), LRELU_STATUS_OK)
      << lrelu_last_error();
  float host_alpha[4] = {0.5f, 0.5f, 0.5f, 0.5f};
  lrelu_tensor_t th = {host_alpha, LRELU_DTYPE_FLOAT32, 2, ashape, nullptr};
  EXPECT_EQ(lrelu_prelu(&tx, &th, &ty, &o), LRELU_STATUS_INVALID_ARGUMENT);
  lrelu_tensor_t tm = ta;
  tm.data = reinterpret_cast<char*>(alpha) + 2;
  EXPECT_EQ(lrelu_prelu(&tx, &tm, &ty, &o), LRELU_STATUS_UNSUPPORTED_VARIANT);
  o.variant = "vec4";
  EXPECT_EQ(lrelu_prelu(&tx, &ta, &ty, &o), LRELU_STATUS_UNSUPPORTED_VARIANT);
  // The context is still usable.
  o.variant = nullptr;
  EXPECT_EQ(lrelu_prelu(&tx, &ta, &ty, &o), LRELU_STATUS_OK);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(block);
}

#endif  // LRELU_TEST_HAS_CUDA

}  // namespace
}  // namespace lrelu
