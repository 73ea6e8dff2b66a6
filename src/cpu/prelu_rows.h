// PReLU rows with one alpha per element (alpha varies along the innermost
// axis, e.g. NHWC per channel): out[i] = s[i] < 0 ? alpha[i] * v[i] : v[i],
// with LeakyReLU's exact rule per element. One set per Highway target.
#ifndef LRELU_SRC_CPU_PRELU_ROWS_H_
#define LRELU_SRC_CPU_PRELU_ROWS_H_

#include <cstddef>
#include <cstdint>

#include "cpu/kernels.h"

namespace lrelu::cpu {

// v, s, out: n contiguous, element-aligned elements of the dtype; out may be
// v or s exactly. alpha32 (32/16-bit dtypes) or alpha64 (float64): n values,
// already rounded to the compute type.
struct PreluRowArgs {
  const void* v;
  const void* s;
  void* out;
  const float* alpha32;
  const double* alpha64;
  size_t n;
};

using PreluRowKernel = void (*)(const PreluRowArgs& args);

// `rows` consecutive rows of `length` elements (v, s, out as above), row r
// with one alpha, alpha32[r] or alpha64[r] (NCHW planes of a few elements).
struct PreluPlanesArgs {
  const void* v;
  const void* s;
  void* out;
  const float* alpha32;
  const double* alpha64;
  size_t length;
  size_t rows;
};

using PreluPlanesKernel = void (*)(const PreluPlanesArgs& args);

// row: [dtype][0 = forward (v == s), 1 = gradient]; planes: [dtype].
struct PreluRowTable {
  PreluRowKernel row[kNumDTypes][2];
  PreluPlanesKernel planes[kNumDTypes];
};

// The kernels compiled for `target` (one of RunnableTargets()).
const PreluRowTable& PreluRowsFor(int64_t target);

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_PRELU_ROWS_H_
