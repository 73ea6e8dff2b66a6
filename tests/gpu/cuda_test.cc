// The CUDA backend. Without a device (or without nvcc at build time) it
// checks the refusal: LRELU_STATUS_BACKEND_UNAVAILABLE with the reason, and
// the CPU still working. With a device it runs the contract cases against
// the oracle: every dtype x alpha x variant, sizes 0..300, a large one,
// every head (offset 0..15 elements), mismatched phases, streams, gradient.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gpu/device_cases.h"
#include "lrelu/lrelu.hpp"
#include "support/test_data.h"

#ifdef LRELU_TEST_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace lrelu {
namespace {

using testing::AllDTypes;
using testing::DeviceCase;
using testing::Memory;
using testing::RunDeviceCase;
using testing::RunSpecials;
using testing::SweepAlphas;

lrelu_status_t RunOnCuda(std::string* message) {
  std::vector<float> x = {-1, 2}, y(2);
  const int64_t shape[1] = {2};
  lrelu_tensor_t tx = {x.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t ty = {y.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.backend = LRELU_BACKEND_CUDA;
  const lrelu_status_t status = lrelu_leaky_relu(&tx, 0.5, &ty, &o);
  *message = lrelu_last_error();
  return status;
}

TEST(CudaTest, NoDeviceIsAClearStatusAndTheCpuKeepsWorking) {
  if (lrelu_backend_available(LRELU_BACKEND_CUDA)) {
    GTEST_SKIP() << "a CUDA device is present: "
                 << lrelu_device_name(LRELU_BACKEND_CUDA, 0);
  }
  std::string message;
  EXPECT_EQ(RunOnCuda(&message), LRELU_STATUS_BACKEND_UNAVAILABLE);
  std::printf("cuda: %s\n", message.c_str());
  const std::string reason =
      lrelu_backend_unavailable_reason(LRELU_BACKEND_CUDA);
  EXPECT_FALSE(reason.empty());
  if (lrelu_backend_built(LRELU_BACKEND_CUDA)) {
    // The cudart message, e.g. "cudaErrorInsufficientDriver: CUDA driver
    // version is insufficient for CUDA runtime version".
    EXPECT_EQ(message.rfind("no CUDA device: ", 0), 0u) << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
  } else {
    EXPECT_NE(message.find("backend cuda is not built into this library"),
              std::string::npos)
        << message;
  }
  EXPECT_EQ(lrelu_device_count(LRELU_BACKEND_CUDA), 0);
  EXPECT_EQ(lrelu_device_name(LRELU_BACKEND_CUDA, 0), nullptr);
  // The same call on the CPU works, before and after.
  float x[2] = {-1, 2}, y[2] = {0, 0};
  const int64_t shape[1] = {2};
  lrelu_tensor_t tx = {x, LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t ty = {y, LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  ASSERT_EQ(lrelu_leaky_relu(&tx, 0.5, &ty, nullptr), LRELU_STATUS_OK);
  EXPECT_EQ(y[0], -0.5f);
  EXPECT_EQ(RunOnCuda(&message), LRELU_STATUS_BACKEND_UNAVAILABLE);
}

#ifdef LRELU_TEST_HAS_CUDA

cudaStream_t g_stream = nullptr;

const Memory kDeviceMemory = {
    [](size_t bytes) {
      void* p = nullptr;
      if (cudaMalloc(&p, bytes) != cudaSuccess) std::abort();
      return p;
    },
    [](void* p) { cudaFree(p); },
    [](void* dst, const void* src, size_t bytes) {
      cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    },
    [](void* dst, const void* src, size_t bytes) {
      cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
    },
    [] {
      if (g_stream != nullptr) cudaStreamSynchronize(g_stream);
      cudaDeviceSynchronize();
    },
};

class CudaDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!lrelu_backend_available(LRELU_BACKEND_CUDA)) {
      GTEST_SKIP() << "no CUDA device: "
                   << lrelu_backend_unavailable_reason(LRELU_BACKEND_CUDA);
    }
  }
  static DeviceCase Base(lrelu_dtype_t dtype, const char* variant) {
    DeviceCase c{};
    c.backend = LRELU_BACKEND_CUDA;
    c.variant = variant;
    c.dtype = dtype;
    c.alpha = 0.01;
    c.source = LRELU_GRAD_FROM_X;
    return c;
  }
};

const char* const kVariants[] = {"vec4", "scalar"};

TEST_F(CudaDeviceTest, SpecialsEveryDTypeAlphaVariant) {
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (const char* variant : kVariants) {
      for (double alpha : SweepAlphas()) {
        for (bool gradient : {false, true}) {
          DeviceCase c = Base(dtype, variant);
          c.alpha = alpha;
          c.gradient = gradient;
          EXPECT_EQ(RunSpecials(c, kDeviceMemory), "")
              << lrelu_dtype_name(dtype) << " " << variant << " alpha "
              << alpha;
        }
      }
    }
  }
}

TEST_F(CudaDeviceTest, EverySizeAndHead) {
  const std::vector<double> alphas = SweepAlphas();
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (const char* variant : kVariants) {
      for (size_t n = 0; n <= 300; ++n) {
        DeviceCase c = Base(dtype, variant);
        c.n = n;
        c.offset = n % 16;  // every head length of every dtype
        c.alpha = alphas[n % alphas.size()];
        c.gradient = n % 3 == 1;
        c.in_place = n % 7 == 3;
        std::string used;
        ASSERT_EQ(
            RunDeviceCase(c, kDeviceMemory, static_cast<unsigned>(n), &used),
            "")
            << lrelu_dtype_name(dtype) << " " << variant << " n " << n;
        EXPECT_EQ(used, n == 0 ? std::string("empty") : std::string(variant));
      }
    }
  }
}

TEST_F(CudaDeviceTest, MismatchedPhasesFallBackToScalar) {
  for (lrelu_dtype_t dtype : AllDTypes()) {
    DeviceCase c = Base(dtype, nullptr);
    c.n = 1000;
    c.out_offset = 1;  // out 1 element off v and s modulo 16 bytes
    std::string used;
    EXPECT_EQ(RunDeviceCase(c, kDeviceMemory, 3, &used), "");
    EXPECT_EQ(used, "scalar");
    c.variant = "vec4";  // asked for explicitly: refused
    EXPECT_NE(
        RunDeviceCase(c, kDeviceMemory, 3, &used).find("UNSUPPORTED_VARIANT"),
        std::string::npos);
  }
}

TEST_F(CudaDeviceTest, LargeOnAStream) {
  ASSERT_EQ(cudaStreamCreate(&g_stream), cudaSuccess);
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (bool gradient : {false, true}) {
      DeviceCase c = Base(dtype, nullptr);
      c.n = (size_t{1} << 24) + 5;
      c.offset = 3;
      c.alpha = gradient ? 0.2 : -0.5;
      c.gradient = gradient;
      c.source = gradient ? LRELU_GRAD_FROM_Y : LRELU_GRAD_FROM_X;
      c.stream = g_stream;
      EXPECT_EQ(RunDeviceCase(c, kDeviceMemory, 5, nullptr), "")
          << lrelu_dtype_name(dtype);
    }
  }
  cudaStreamDestroy(g_stream);
  g_stream = nullptr;
}

TEST_F(CudaDeviceTest, HostPointersAreRefused) {
  std::vector<float> x(8, -1.0f), y(8);
  const int64_t shape[1] = {8};
  lrelu_tensor_t tx = {x.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t ty = {y.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.backend = LRELU_BACKEND_CUDA;
  EXPECT_EQ(lrelu_leaky_relu(&tx, 0.1, &ty, &o), LRELU_STATUS_INVALID_ARGUMENT)
      << lrelu_last_error();
}

#endif  // LRELU_TEST_HAS_CUDA

}  // namespace
}  // namespace lrelu
