// PReLU forward on a device backend (CUDA, OpenCL): the problem api/ hands
// to the backend (this header: core/, so the backends need not include api/)
// once it has validated it. x and y are one dense run each in the same layout,
// so element i of the run (memory order) is y = f(x, a) with a =
// alpha[alpha_base + sum_d digit_d(i) * alpha_stride[d]], where digit_d are i's
// digits in the mixed radix `extent` (outermost first). The kernels divide by
// the extents with a multiply-high and a shift (no division instruction: on
// CUDA that would bring MUFU into the SASS).
#ifndef LRELU_SRC_CORE_PRELU_DEVICE_PROBLEM_H_
#define LRELU_SRC_CORE_PRELU_DEVICE_PROBLEM_H_

#include <cstddef>
#include <cstdint>

#include "lrelu/lrelu.h"

namespace lrelu {

// Dimensions of the memory-order walk after merging; more is refused.
constexpr int kPreluDeviceMaxDims = 8;

struct PreluDeviceProblem {
  lrelu_dtype_t dtype = LRELU_DTYPE_FLOAT32;  // x's, y's and alpha's
  size_t elem_size = 4;
  const void* x = nullptr;  // lowest address of x's run
  void* y = nullptr;        // lowest address of y's run
  // x.data + offset elements is x (and y.data + offset is y): <= 0 where
  // strides are negative. For lrelu_executor_bind.
  int64_t offset = 0;
  int64_t n = 0;
  const void* alpha = nullptr;  // alpha.data (its element [0,...,0])
  int64_t alpha_count = 0;      // alpha's elements (x may have none)
  // alpha's byte range relative to alpha.data: [alpha_lo, alpha_hi]
  // elements (OpenCL copies that range where alpha fills it, else only
  // alpha's elements: a gap between them may not be the caller's memory).
  int64_t alpha_lo = 0, alpha_hi = 0;
  int64_t alpha_base = 0;  // alpha element of x's run element 0
  int rank = 0;            // 0 when n == 0
  int64_t extent[kPreluDeviceMaxDims] = {};
  int64_t alpha_stride[kPreluDeviceMaxDims] = {};  // elements, signed
  // q = (umulhi(r, magic) + r) >> shift is r / extent for r < 2^63.
  uint64_t magic[kPreluDeviceMaxDims] = {};
  uint32_t shift[kPreluDeviceMaxDims] = {};
};

}  // namespace lrelu

#endif  // LRELU_SRC_CORE_PRELU_DEVICE_PROBLEM_H_
