// The OpenCL backend against the oracle, on whatever OpenCL device is
// present (PoCL on the CPU here and in CI): every dtype x alpha x variant on
// the special values, sizes 0..300 and a large one, the gradient from x and
// from y, in-place, unaligned host pointers, and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gpu/device_cases.h"
#include "gpu/gpu_test_support.h"
#include "lrelu/lrelu.hpp"
#include "opencl/runtime.h"
#include "support/lrelu_tester.h"
#include "support/test_data.h"

namespace lrelu {
namespace {

using testing::AllDTypes;
using testing::BackendOptions;
using testing::DeviceCase;
using testing::HostMemory;
using testing::LeakyReluTester;
using testing::RunDeviceCase;
using testing::RunSpecials;
using testing::SweepAlphas;

const char* const kVariants[] = {"vec4", "scalar"};

class OpenClTest : public testing::DeviceTest<LRELU_BACKEND_OPENCL> {
 protected:
  // float64 only where the device has cl_khr_fp64.
  static std::vector<lrelu_dtype_t> DTypes() {
    return testing::DeviceDTypes(LRELU_BACKEND_OPENCL);
  }
  static DeviceCase Base(lrelu_dtype_t dtype, const char* variant) {
    DeviceCase c{};
    c.backend = LRELU_BACKEND_OPENCL;
    c.variant = variant;
    c.dtype = dtype;
    c.alpha = 0.01;
    c.source = LRELU_GRAD_FROM_X;
    return c;
  }
};

TEST_F(OpenClTest, DeviceIsListed) {
  ASSERT_GE(lrelu_device_count(LRELU_BACKEND_OPENCL), 1);
  const char* name = lrelu_device_name(LRELU_BACKEND_OPENCL, 0);
  ASSERT_NE(name, nullptr);
  std::printf("OpenCL device 0: %s (float64: %s)\n", name,
              testing::HasFloat64(LRELU_BACKEND_OPENCL) ? "yes" : "no");
  EXPECT_EQ(lrelu_device_name(LRELU_BACKEND_OPENCL, 1 << 20), nullptr);
}

TEST_F(OpenClTest, SpecialsEveryDTypeAlphaVariant) {
  for (lrelu_dtype_t dtype : DTypes()) {
    for (const char* variant : kVariants) {
      for (double alpha : SweepAlphas()) {
        for (bool gradient : {false, true}) {
          DeviceCase c = Base(dtype, variant);
          c.alpha = alpha;
          c.gradient = gradient;
          EXPECT_EQ(RunSpecials(c, HostMemory()), "")
              << lrelu_dtype_name(dtype) << " " << variant << " alpha " << alpha
              << (gradient ? " gradient" : " forward");
        }
      }
    }
  }
}

// The shared tester on this backend: host pointers, one variant forced.
LeakyReluTester OnOpenCl(lrelu_dtype_t dtype, const char* variant, size_t n) {
  LeakyReluTester t;
  t.backend(LRELU_BACKEND_OPENCL)
      .variant(variant == nullptr ? "auto" : variant)
      .dtype(dtype)
      .shape({static_cast<int64_t>(n)});
  return t;
}

TEST_F(OpenClTest, EverySizeTo300) {
  const std::vector<double> alphas = SweepAlphas();
  for (lrelu_dtype_t dtype : DTypes()) {
    for (const char* variant : kVariants) {
      for (size_t n = 0; n <= 300; ++n) {
        LeakyReluTester t = OnOpenCl(dtype, variant, n);
        t.alpha(alphas[n % alphas.size()]).gradient(n % 3 == 1).seed(n).Test();
        EXPECT_EQ(t.last_variant(),
                  n == 0 ? std::string("empty") : std::string(variant));
      }
    }
  }
}

TEST_F(OpenClTest, LargeAndAutoVariant) {
  for (lrelu_dtype_t dtype : DTypes()) {
    for (bool gradient : {false, true}) {
      LeakyReluTester t = OnOpenCl(dtype, nullptr, (size_t{1} << 20) + 3);
      t.alpha(gradient ? 0.2 : -0.5).gradient(gradient).seed(7).Test();
      EXPECT_EQ(t.last_variant(), "vec4");
    }
  }
}

TEST_F(OpenClTest, GradientFromYInPlaceAndOffsets) {
  for (lrelu_dtype_t dtype : DTypes()) {
    for (const char* variant : kVariants) {
      for (size_t offset = 0; offset < 4; ++offset) {
        OnOpenCl(dtype, variant, 37 + offset)
            .offset(offset)
            .y_offset(offset + (offset * 3) % 4)
            .gradient(true)
            .grad_source(GradSource::kFromY)
            .alpha(1.5)
            .seed(11)
            .Test();
        OnOpenCl(dtype, variant, 37 + offset)
            .offset(offset)
            .gradient(offset % 2 == 0)
            .inplace(true)
            .alpha(-0.5)
            .seed(12)
            .Test();
      }
    }
  }
}

TEST_F(OpenClTest, ThreadsShareTheBackend) {
  std::vector<std::string> errors(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < errors.size(); ++t) {
    threads.emplace_back([t, &errors] {
      for (unsigned round = 0; round < 8 && errors[t].empty(); ++round) {
        LeakyReluTester c =
            OnOpenCl(t % 2 ? LRELU_DTYPE_FLOAT16 : LRELU_DTYPE_FLOAT32,
                     t < 2 ? "vec4" : "scalar", 1000 + round);
        errors[t] = c.gradient(round % 2 == 1).seed(round + 100 * t).Run();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
}

TEST_F(OpenClTest, Refusals) {
  std::vector<float> x(16, -1.0f), y(16);
  const int64_t shape[1] = {8};
  const int64_t stride[1] = {2};
  lrelu_tensor_t tx = {x.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t ty = {y.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t strided = {x.data(), LRELU_DTYPE_FLOAT32, 1, shape, stride};
  lrelu_options_t o = BackendOptions(LRELU_BACKEND_OPENCL);
  EXPECT_EQ(lrelu_leaky_relu(&strided, 0.1, &ty, &o),
            LRELU_STATUS_UNSUPPORTED_VARIANT);
  EXPECT_NE(std::strstr(lrelu_last_error(), "dense"), nullptr)
      << lrelu_last_error();
  o.variant = "contiguous";
  EXPECT_EQ(lrelu_leaky_relu(&tx, 0.1, &ty, &o), LRELU_STATUS_INVALID_ARGUMENT);
  o.variant = nullptr;
  int queue = 0;
  o.stream = &queue;
  EXPECT_EQ(lrelu_leaky_relu(&tx, 0.1, &ty, &o), LRELU_STATUS_INVALID_ARGUMENT);
  o.stream = nullptr;
  o.device = lrelu_device_count(LRELU_BACKEND_OPENCL);
  EXPECT_EQ(lrelu_leaky_relu(&tx, 0.1, &ty, &o), LRELU_STATUS_INVALID_ARGUMENT);
  o.device = 0;
  ASSERT_EQ(lrelu_leaky_relu(&tx, 0.1, &ty, &o), LRELU_STATUS_OK)
      << lrelu_last_error();
  EXPECT_EQ(y[0], -0.1f);
}

// The shared matrix (gpu_test_support.h), on host pointers; and through
// the tester's copies to and from "device" blocks (here host blocks), the
// path CUDA's run of the same matrix takes.
TEST_F(OpenClTest, SharedMatrix) {
  testing::ExpectLeakyReluMatrix(LRELU_BACKEND_OPENCL, DTypes(), nullptr);
  testing::ExpectLeakyReluMatrix(LRELU_BACKEND_OPENCL, DTypes(), &HostMemory());
}

// lrelu_executor_bind: an executor planned on other buffers and bound to
// these gives the oracle's bits (every dtype, variant, pass, in place or
// not, misaligned starts) and leaves the buffers it was planned on alone.
TEST_F(OpenClTest, BoundExecutorsGiveTheOracleBits) {
  testing::ExpectBoundLeakyRelu(LRELU_BACKEND_OPENCL, DTypes(), HostMemory());
}

// What lrelu_executor_bind refuses on this backend, as on the CPU; a
// refused bind keeps the executor's pointers.
TEST_F(OpenClTest, BindRefusals) {
  std::vector<float> x(8, -1.0f), y(8), z(8);
  const int64_t shape[1] = {8};
  lrelu_tensor_t tx = {x.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t ty = {y.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  const lrelu_options_t o = BackendOptions(LRELU_BACKEND_OPENCL);
  size_t ws = 0;
  lrelu_executor_t* e = nullptr;
  ASSERT_EQ(lrelu_leaky_relu_get_workspace_size(&tx, 0.5, &ty, &o, &ws, &e),
            LRELU_STATUS_OK)
      << lrelu_last_error();
  void* const in_place[2] = {x.data(), x.data()};
  EXPECT_EQ(lrelu_executor_bind(e, in_place, 2), LRELU_STATUS_OVERLAP);
  void* const null_y[2] = {x.data(), nullptr};
  EXPECT_EQ(lrelu_executor_bind(e, null_y, 2), LRELU_STATUS_NULL_DATA);
  void* const three[3] = {x.data(), y.data(), z.data()};
  EXPECT_EQ(lrelu_executor_bind(e, three, 3), LRELU_STATUS_INVALID_ARGUMENT);
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  EXPECT_EQ(y[0], -0.5f);  // still y, x untouched
  EXPECT_EQ(x[0], -1.0f);
  void* const to_z[2] = {x.data(), z.data()};
  ASSERT_EQ(lrelu_executor_bind(e, to_z, 2), LRELU_STATUS_OK)
      << lrelu_last_error();
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  EXPECT_EQ(z[7], -0.5f);
  lrelu_executor_destroy(e);
  // Planned in place: bound to disjoint x and y is refused.
  ASSERT_EQ(lrelu_leaky_relu_get_workspace_size(&tx, 0.5, &tx, &o, &ws, &e),
            LRELU_STATUS_OK);
  void* const apart[2] = {x.data(), y.data()};
  EXPECT_EQ(lrelu_executor_bind(e, apart, 2), LRELU_STATUS_OVERLAP);
  lrelu_executor_destroy(e);
}

TEST_F(OpenClTest, CppOptionsSelectTheBackend) {
  Tensor x(DType::kFloat32, {5});
  auto* px = static_cast<float*>(x.data());
  const float values[5] = {-2, -1, -0.0f, 1, 2};
  std::memcpy(px, values, sizeof(values));
  Options options;
  options.backend = LRELU_BACKEND_OPENCL;
  Executor e = Executor::forward(x.view(), 0.01, x.view(), options);
  EXPECT_EQ(e.variant(), "vec4");
  // A device plan names its device, and no SIMD target.
  EXPECT_EQ(e.device(), lrelu_device_name(LRELU_BACKEND_OPENCL, 0));
  EXPECT_EQ(e.cpu_target(), "");
  e.execute();
  EXPECT_EQ(px[0], -2 * 0.01f);
  EXPECT_TRUE(std::signbit(px[2]));
  EXPECT_EQ(px[4], 2.0f);
}

// A device without CL_FP_DENORM (forced here: PoCL has denormals) refuses
// the dtypes whose results can be subnormal in the compute type (float32,
// bfloat16; float64 by its own config) with a clear status; float16 stays
// exact (every float32 subnormal rounds to +-0 in float16 anyway).
TEST_F(OpenClTest, DeviceWithoutDenormalsRefusesWhatItWouldFlush) {
  const std::vector<lrelu_dtype_t> dtypes = DTypes();
  opencl::SetNoDenormalsForTesting(true);
  for (lrelu_dtype_t dtype : dtypes) {
    DeviceCase c = Base(dtype, nullptr);
    c.n = 1000;
    c.alpha = 1e-40;
    const std::string result = RunDeviceCase(c, HostMemory(), 9, nullptr);
    if (dtype == LRELU_DTYPE_FLOAT16) {
      EXPECT_EQ(result, "");
    } else {
      EXPECT_NE(result.find("UNSUPPORTED_DTYPE"), std::string::npos)
          << lrelu_dtype_name(dtype) << ": " << result;
      EXPECT_NE(result.find("CL_FP_DENORM"), std::string::npos) << result;
    }
  }
  opencl::SetNoDenormalsForTesting(false);
  for (lrelu_dtype_t dtype : dtypes) {
    DeviceCase c = Base(dtype, nullptr);
    c.n = 1000;
    c.alpha = 1e-40;
    EXPECT_EQ(RunDeviceCase(c, HostMemory(), 9, nullptr), "")
        << lrelu_dtype_name(dtype);
  }
}

}  // namespace
}  // namespace lrelu
