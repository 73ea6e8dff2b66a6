// The CUDA backend. Without a device (or without nvcc at build time) it
// checks the refusal: LRELU_STATUS_BACKEND_UNAVAILABLE with the reason, and
// the CPU still working. With a device it runs the contract cases against
// the oracle: every dtype x alpha x variant, sizes 0..300, a large one,
// every head (offset 0..15 elements), mismatched phases, streams, gradient,
// in place, a subnormal alpha, element-misaligned pointers (refused at
// planning, the context still usable), more than 2^31 elements.
//
// LRELU_REQUIRE_CUDA=1 (scripts/gpu-check.sh on the device) turns "no
// device" into a failure instead of a skip, so a device run never passes
// by skipping.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpu/device_cases.h"
#include "gpu/gpu_test_support.h"
#include "lrelu/lrelu.hpp"
#include "reference/reference.h"
#include "support/test_data.h"

#ifdef LRELU_TEST_HAS_CUDA
#include <cuda_runtime.h>

#include "gpu/cuda_test_memory.h"
#endif

namespace lrelu {
namespace {

using testing::AllDTypes;
using testing::DeviceCase;
using testing::RunDeviceCase;
using testing::RunSpecials;
using testing::SweepAlphas;

lrelu_status_t RunOnCuda(std::string* message) {
  std::vector<float> x = {-1, 2}, y(2);
  const int64_t shape[1] = {2};
  lrelu_tensor_t tx = {x.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t ty = {y.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  const lrelu_options_t o = testing::BackendOptions(LRELU_BACKEND_CUDA);
  const lrelu_status_t status = lrelu_leaky_relu(&tx, 0.5, &ty, &o);
  *message = lrelu_last_error();
  return status;
}

TEST(CudaTest, NoDeviceIsAClearStatusAndTheCpuKeepsWorking) {
  if (lrelu_backend_available(LRELU_BACKEND_CUDA)) {
    if (testing::CudaRequired())
      return;  // the device tests below apply instead
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

using testing::g_stream;
using testing::kDeviceMemory;

class CudaDeviceTest : public testing::DeviceTest<LRELU_BACKEND_CUDA> {
 protected:
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

// The shared matrix (gpu_test_support.h), on device memory.
TEST_F(CudaDeviceTest, SharedMatrix) {
  testing::ExpectLeakyReluMatrix(LRELU_BACKEND_CUDA, AllDTypes(),
                                 &kDeviceMemory);
}

// lrelu_executor_bind: planned on buffers one element further on (another
// phase modulo 16 bytes: the head is derived again), bound to these, the
// oracle's bits; the buffers planned on stay untouched.
TEST_F(CudaDeviceTest, BoundExecutorsGiveTheOracleBits) {
  testing::ExpectBoundLeakyRelu(LRELU_BACKEND_CUDA, AllDTypes(), kDeviceMemory);
}

// Host memory and element-misaligned pointers are refused; a plan made
// with "vec4" refuses pointers out of phase, one made with "auto" takes
// them with the scalar kernel.
TEST_F(CudaDeviceTest, BindChecksDevicePointersAndPhase) {
  float* block = nullptr;
  ASSERT_EQ(cudaMalloc(&block, 4096), cudaSuccess);
  const int64_t shape[1] = {256};
  lrelu_tensor_t tx = {block, LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t ty = {block + 512, LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_options_t o = testing::BackendOptions(LRELU_BACKEND_CUDA);
  o.variant = "vec4";
  size_t ws = 0;
  lrelu_executor_t* e = nullptr;
  ASSERT_EQ(lrelu_leaky_relu_get_workspace_size(&tx, 0.5, &ty, &o, &ws, &e),
            LRELU_STATUS_OK)
      << lrelu_last_error();
  std::vector<float> host(256);
  void* const on_host[2] = {host.data(), block + 512};
  EXPECT_EQ(lrelu_executor_bind(e, on_host, 2), LRELU_STATUS_INVALID_ARGUMENT);
  void* const out_of_phase[2] = {block, block + 513};
  EXPECT_EQ(lrelu_executor_bind(e, out_of_phase, 2),
            LRELU_STATUS_UNSUPPORTED_VARIANT);
  EXPECT_STREQ(lrelu_executor_variant(e), "vec4");
  void* const misaligned[2] = {reinterpret_cast<char*>(block) + 2, block + 512};
  EXPECT_EQ(lrelu_executor_bind(e, misaligned, 2),
            LRELU_STATUS_UNSUPPORTED_VARIANT);
  lrelu_executor_destroy(e);
  // "auto": the same out-of-phase pointers are taken, one by one.
  o.variant = nullptr;
  ASSERT_EQ(lrelu_leaky_relu_get_workspace_size(&tx, 0.5, &ty, &o, &ws, &e),
            LRELU_STATUS_OK);
  EXPECT_STREQ(lrelu_executor_variant(e), "vec4");
  ASSERT_EQ(lrelu_executor_bind(e, out_of_phase, 2), LRELU_STATUS_OK)
      << lrelu_last_error();
  EXPECT_STREQ(lrelu_executor_variant(e), "scalar");
  lrelu_executor_destroy(e);
  cudaFree(block);
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
  lrelu_options_t o = testing::BackendOptions(LRELU_BACKEND_CUDA);
  EXPECT_EQ(lrelu_leaky_relu(&tx, 0.1, &ty, &o), LRELU_STATUS_INVALID_ARGUMENT)
      << lrelu_last_error();
}

TEST_F(CudaDeviceTest, SubnormalAlphaIsKept) {
  // alpha = 1e-40 is a float32 subnormal: any flush would zero the products.
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (const char* variant : kVariants) {
      for (bool gradient : {false, true}) {
        DeviceCase c = Base(dtype, variant);
        c.alpha = 1e-40;
        c.gradient = gradient;
        EXPECT_EQ(RunSpecials(c, kDeviceMemory), "")
            << lrelu_dtype_name(dtype) << " " << variant;
        c.n = 100003;
        c.offset = 5;
        EXPECT_EQ(RunDeviceCase(c, kDeviceMemory, 17, nullptr), "")
            << lrelu_dtype_name(dtype) << " " << variant;
      }
    }
  }
}

TEST_F(CudaDeviceTest, InPlaceEveryDTypeVariantAndPass) {
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (const char* variant : kVariants) {
      for (bool gradient : {false, true}) {
        for (size_t n : {size_t{1}, size_t{17}, (size_t{1} << 20) + 3}) {
          DeviceCase c = Base(dtype, variant);
          c.n = n;
          c.offset = n % 7;
          c.alpha = gradient ? 0.2 : -0.5;
          c.gradient = gradient;
          c.in_place = true;
          std::string used;
          EXPECT_EQ(RunDeviceCase(c, kDeviceMemory, 11, &used), "")
              << lrelu_dtype_name(dtype) << " " << variant << " n " << n;
          EXPECT_EQ(used, variant);
        }
      }
    }
  }
}

// A float32 at an address = 2 mod 4 (a float16 at an odd one, a float64 at
// 4 mod 8) is refused at planning with a clear status, for every operand and
// variant; nothing is launched, so the context stays usable.
TEST_F(CudaDeviceTest, ElementMisalignedPointersAreRefusedAtPlanning) {
  for (lrelu_dtype_t dtype : AllDTypes()) {
    const size_t elem = lrelu_dtype_size(dtype);
    const size_t n = 1000;
    unsigned char* block = nullptr;
    ASSERT_EQ(cudaMalloc(&block, 3 * (n + 2) * elem), cudaSuccess);
    unsigned char* a = block;
    unsigned char* b = block + (n + 2) * elem;
    unsigned char* c = block + 2 * (n + 2) * elem;
    const size_t off = elem / 2;  // half an element
    const int64_t shape[1] = {static_cast<int64_t>(n)};
    for (const char* variant : {"auto", "scalar", "vec4"}) {
      for (int which = 0; which < 3; ++which) {
        lrelu_options_t o = testing::BackendOptions(LRELU_BACKEND_CUDA);
        o.variant = variant;
        lrelu_tensor_t tdy = {a + (which == 0 ? off : 0), dtype, 1, shape,
                              nullptr};
        lrelu_tensor_t tx = {b + (which == 1 ? off : 0), dtype, 1, shape,
                             nullptr};
        lrelu_tensor_t tdx = {c + (which == 2 ? off : 0), dtype, 1, shape,
                              nullptr};
        size_t workspace = 0;
        lrelu_executor_t* executor = nullptr;
        EXPECT_EQ(lrelu_leaky_relu_backward_get_workspace_size(
                      &tdy, &tx, 0.1, LRELU_GRAD_FROM_X, &tdx, &o, &workspace,
                      &executor),
                  LRELU_STATUS_UNSUPPORTED_VARIANT)
            << lrelu_dtype_name(dtype) << " " << variant << " " << which;
        EXPECT_EQ(executor, nullptr);
        const std::string message = lrelu_last_error();
        EXPECT_NE(message.find("element-aligned"), std::string::npos)
            << message;
        // The forward pass, x or y misaligned, through the one-call API.
        lrelu_tensor_t ty = tdx;
        EXPECT_EQ(lrelu_leaky_relu(which == 1 ? &tx : &tdy, 0.1, &ty, &o),
                  LRELU_STATUS_UNSUPPORTED_VARIANT)
            << lrelu_dtype_name(dtype) << " " << variant << " " << which;
      }
    }
    std::printf("%s\n", lrelu_last_error());
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    cudaFree(block);
    // Aligned work on the same context afterwards is exact.
    DeviceCase ok = Base(dtype, nullptr);
    ok.n = 4097;
    ok.offset = 1;
    EXPECT_EQ(RunDeviceCase(ok, kDeviceMemory, 3, nullptr), "");
  }
}

TEST_F(CudaDeviceTest, NonBlockingAndPerThreadStreams) {
  cudaStream_t non_blocking = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking),
            cudaSuccess);
  for (cudaStream_t stream : {non_blocking, cudaStreamPerThread}) {
    g_stream = stream;
    for (lrelu_dtype_t dtype : AllDTypes()) {
      for (bool gradient : {false, true}) {
        DeviceCase c = Base(dtype, nullptr);
        c.n = (size_t{1} << 22) + 9;
        c.offset = 2;
        c.gradient = gradient;
        c.stream = stream;
        EXPECT_EQ(RunDeviceCase(c, kDeviceMemory, 23, nullptr), "")
            << lrelu_dtype_name(dtype);
      }
    }
  }
  g_stream = nullptr;
  cudaStreamDestroy(non_blocking);
}

// 2^31 + 77 elements: indices past int32 in the vec4 and scalar kernels.
// The data repeats a random block of P elements (P odd, so every phase
// occurs), so the expected output repeats too and is checked everywhere.
TEST_F(CudaDeviceTest, MoreThan2To31Elements) {
  const size_t n = (size_t{1} << 31) + 77;
  const size_t period = (size_t{1} << 20) + 3;
  const double alpha = 0.01;  // finite, nonzero: no product is a NaN
  for (lrelu_dtype_t dtype : AllDTypes()) {
    const size_t elem = lrelu_dtype_size(dtype);
    const size_t bytes = n * elem;
    size_t free_bytes = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    if (free_bytes < 2 * bytes + (size_t{1} << 30)) {
      GTEST_SKIP() << "not enough device memory for 2 x " << bytes << " bytes ("
                   << free_bytes << " free)";
    }
    std::mt19937_64 rng(41);
    const auto x = testing::RandomBits(dtype, period, rng);
    unsigned char* dx = nullptr;
    unsigned char* dy = nullptr;
    ASSERT_EQ(cudaMalloc(&dx, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dy, bytes), cudaSuccess);
    size_t done = period * elem;
    ASSERT_EQ(cudaMemcpy(dx, x.data(), done, cudaMemcpyHostToDevice),
              cudaSuccess);
    while (done < bytes) {
      const size_t step = std::min(done - done % (period * elem), bytes - done);
      ASSERT_EQ(cudaMemcpy(dx + done, dx, step, cudaMemcpyDeviceToDevice),
                cudaSuccess);
      done += step;
    }
    // Forward, auto (vec4), out of place; then the gradient in place over
    // y (as dy) with the scalar kernel.
    std::vector<unsigned char> y_block(period * elem), dx_block(period * elem);
    reference::Apply(dtype, x.data(), x.data(), y_block.data(), period, alpha);
    reference::Apply(dtype, y_block.data(), x.data(), dx_block.data(), period,
                     alpha);
    const int64_t shape[1] = {static_cast<int64_t>(n)};
    lrelu_tensor_t tx = {dx, dtype, 1, shape, nullptr};
    lrelu_tensor_t ty = {dy, dtype, 1, shape, nullptr};
    lrelu_options_t o = testing::BackendOptions(LRELU_BACKEND_CUDA);
    std::unique_ptr<unsigned char[]> host(new unsigned char[bytes]);
    for (int pass = 0; pass < 2; ++pass) {
      lrelu_status_t status;
      if (pass == 0) {
        status = lrelu_leaky_relu(&tx, alpha, &ty, &o);
      } else {
        o.variant = "scalar";
        status = lrelu_leaky_relu_backward(&ty, &tx, alpha, LRELU_GRAD_FROM_X,
                                           &ty, &o);
      }
      ASSERT_EQ(status, LRELU_STATUS_OK) << lrelu_last_error();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(host.get(), dy, bytes, cudaMemcpyDeviceToHost),
                cudaSuccess);
      const std::vector<unsigned char>& want = pass == 0 ? y_block : dx_block;
      size_t bad = 0;
      for (size_t at = 0; at < bytes; at += period * elem) {
        const size_t len = std::min(period * elem, bytes - at);
        if (std::memcmp(host.get() + at, want.data(), len) != 0) {
          ++bad;
          if (bad == 1) {
            ADD_FAILURE() << lrelu_dtype_name(dtype) << " pass " << pass
                          << ": block at element " << at / elem << " differs";
          }
        }
      }
      EXPECT_EQ(bad, 0u);
    }
    cudaFree(dx);
    cudaFree(dy);
  }
}

#endif  // LRELU_TEST_HAS_CUDA

}  // namespace
}  // namespace lrelu
