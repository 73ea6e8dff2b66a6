// Pieces the device-backend tests (cuda_*, opencl_*) share: options for one
// backend, host memory as "device" memory, the dtypes a device runs, and
// the fixture that skips (or fails) without a device.
#ifndef LRELU_TESTS_GPU_GPU_TEST_SUPPORT_H_
#define LRELU_TESTS_GPU_GPU_TEST_SUPPORT_H_

#include <gtest/gtest.h>

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

// The fixture of kBackend's device tests: skipped without its device, and
// PReLU cases on it.
template <lrelu_backend_t kBackend>
class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { SkipWithoutDevice(kBackend); }
  // A C-contiguous out-of-place case.
  static PreluCase Case(lrelu_dtype_t dtype, std::vector<int64_t> x_shape,
                        std::vector<int64_t> alpha_shape) {
    PreluCase c;
    c.backend = kBackend;
    c.dtype = dtype;
    c.x_shape = std::move(x_shape);
    c.alpha_shape = std::move(alpha_shape);
    return c;
  }
};

}  // namespace lrelu::testing

#endif  // LRELU_TESTS_GPU_GPU_TEST_SUPPORT_H_
