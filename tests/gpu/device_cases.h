// Contract cases shared by the device-backend tests: one call of the C API
// on a chosen backend, and the comparisons against the reference oracle.
// Each test supplies how memory reaches its device (Memory).
#ifndef LRELU_TESTS_GPU_DEVICE_CASES_H_
#define LRELU_TESTS_GPU_DEVICE_CASES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "lrelu/lrelu.h"
#include "support/memory.h"

namespace lrelu::testing {

struct DeviceCase {
  lrelu_backend_t backend;
  const char* variant;  // nullptr = auto
  lrelu_dtype_t dtype;
  size_t n;
  double alpha;
  bool gradient;
  lrelu_grad_source_t source;
  bool in_place;
  size_t offset;      // elements from an aligned block start (all operands)
  size_t out_offset;  // extra elements for out only (misaligned phases)
  void* stream;
  // Plan on other buffers (one element further on: another phase modulo 16
  // bytes), then lrelu_executor_bind to these; those must stay untouched.
  bool rebind = false;
};

// Runs one case with random data full of specials (seeded by seed) and
// returns "" when the result is bit-exact with the oracle and nothing
// around the output changed, else a description. *variant receives the
// executor's variant name.
std::string RunDeviceCase(const DeviceCase& c, const Memory& memory,
                          unsigned seed, std::string* variant = nullptr);

// Same for the special bit patterns of the dtype, repeated to n elements
// (each special also meets each special as s in the gradient).
std::string RunSpecials(const DeviceCase& c, const Memory& memory);

}  // namespace lrelu::testing

#endif  // LRELU_TESTS_GPU_DEVICE_CASES_H_
