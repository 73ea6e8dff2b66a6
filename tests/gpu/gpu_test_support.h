// Pieces the device-backend tests (cuda_*, opencl_*) share: options for one
// backend, host memory as "device" memory, the dtypes a device runs, and
// the fixture that skips (or fails) without a device.
#ifndef LRELU_TESTS_GPU_GPU_TEST_SUPPORT_H_
#define LRELU_TESTS_GPU_GPU_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gpu/device_cases.h"
#include "gpu/prelu_device_cases.h"
#include "lrelu/lrelu.h"

namespace lrelu::testing {

// Default options with `backend` chosen.
lrelu_options_t BackendOptions(lrelu_backend_t backend);

// For backends that take host pointers (OpenCL): "device" memory is host
// memory.
const Memory& HostMemory();

// Whether `backend` plans a float64 call (OpenCL: the device has
// cl_khr_fp64).
bool HasFloat64(lrelu_backend_t backend);

// Every dtype, float64 only where HasFloat64(backend).
std::vector<lrelu_dtype_t> DeviceDTypes(lrelu_backend_t backend);

// LRELU_REQUIRE_CUDA=1 (scripts/gpu-check.sh on the device): a missing CUDA
// device is a failure, so a device run never passes by skipping.
bool CudaRequired();

// For a fixture's SetUp: skips the test without a device of `backend` (a
// failure instead for CUDA where CudaRequired()).
void SkipWithoutDevice(lrelu_backend_t backend);

// A C-contiguous out-of-place PReLU case.
PreluCase MakePreluCase(lrelu_backend_t backend, lrelu_dtype_t dtype,
                        std::vector<int64_t> x_shape,
                        std::vector<int64_t> alpha_shape);

// Every dtype of `dtypes` x PreluPatterns(), out of place and in place, on
// `backend` against the oracle (non-fatal failures); check_variant, where
// given, is called with each pattern and the executor's variant.
void ExpectEveryPreluPattern(
    lrelu_backend_t backend, const std::vector<lrelu_dtype_t>& dtypes,
    const Memory& memory,
    const std::function<void(const PreluPattern&, const std::string&)>&
        check_variant = nullptr);

// LeakyReLU's matrix on `backend` through the shared builder
// (support/lrelu_tester.h), so every device backend runs the same cases:
// each dtype of `dtypes` x forward, gradient from x, gradient from y x out
// of place, in place x 0, 1, 5, 33, 1000 elements (rank 1) and [3, 0, 2],
// [7, 9, 11] x starts 0, 1, 3 elements past 64 bytes x variants vec4,
// scalar, auto x a planned executor and the one-shot call, against the
// oracle with guard bytes around the output (non-fatal failures). memory:
// where the library's operands live (nullptr: host pointers).
void ExpectLeakyReluMatrix(lrelu_backend_t backend,
                           const std::vector<lrelu_dtype_t>& dtypes,
                           const Memory* memory);

// lrelu_executor_bind on `backend`: executors planned on other buffers and
// bound to these (DeviceCase::rebind, PreluCase::rebind) give the oracle's
// bits. LeakyReLU: each dtype x vec4, scalar, auto x forward, gradient x
// out of place, in place; PReLU: each dtype x PreluPatterns() x out of
// place, in place, and x reversed in every axis (the run below x.data).
void ExpectBoundLeakyRelu(lrelu_backend_t backend,
                          const std::vector<lrelu_dtype_t>& dtypes,
                          const Memory& memory);
void ExpectBoundPrelu(lrelu_backend_t backend,
                      const std::vector<lrelu_dtype_t>& dtypes,
                      const Memory& memory);

// The fixture of kBackend's device tests: skipped without its device, and
// PReLU cases on it.
template <lrelu_backend_t kBackend>
class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { SkipWithoutDevice(kBackend); }
  static PreluCase Case(lrelu_dtype_t dtype, std::vector<int64_t> x_shape,
                        std::vector<int64_t> alpha_shape) {
    return MakePreluCase(kBackend, dtype, std::move(x_shape),
                         std::move(alpha_shape));
  }
};

}  // namespace lrelu::testing

#endif  // LRELU_TESTS_GPU_GPU_TEST_SUPPORT_H_
