// PReLU forward cases shared by the device-backend tests (OpenCL here, CUDA
// on a GPU): one lrelu_prelu call on the chosen backend with random bits
// full of specials in x and alpha, compared element by element with the
// oracle (the cpu backend's "reference" variant, LeakyReLU's reference per
// element with that element's alpha).
#ifndef LRELU_TESTS_GPU_PRELU_DEVICE_CASES_H_
#define LRELU_TESTS_GPU_PRELU_DEVICE_CASES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/device_cases.h"
#include "lrelu/lrelu.h"

namespace lrelu::testing {

struct PreluCase {
  lrelu_backend_t backend;
  lrelu_dtype_t dtype;
  std::vector<int64_t> x_shape;
  std::vector<int64_t> x_strides;  // empty: C-contiguous (y has x's strides)
  std::vector<int64_t> alpha_shape;
  std::vector<int64_t> alpha_strides;  // empty: C-contiguous
  bool in_place = false;
  const char* variant = nullptr;
  void* stream = nullptr;
  // Plan on other buffers (one element further on), then
  // lrelu_executor_bind to these; those must stay untouched.
  bool rebind = false;
};

// "" when every element of y is the oracle's (a NaN product may be any
// NaN), else the first mismatch. *variant receives the executor's variant.
std::string RunPreluDeviceCase(const PreluCase& c, const Memory& memory,
                               unsigned seed, std::string* variant = nullptr);

// The broadcast patterns every device test runs: scalar, [], per channel
// NCHW and NHWC, full, and the other ONNX-unidirectional shapes.
struct PreluPattern {
  const char* name;
  std::vector<int64_t> x_shape, alpha_shape;
};
std::vector<PreluPattern> PreluPatterns();

}  // namespace lrelu::testing

#endif  // LRELU_TESTS_GPU_PRELU_DEVICE_CASES_H_
