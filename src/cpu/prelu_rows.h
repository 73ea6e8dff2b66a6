// PReLU rows with one alpha per element (alpha varies along the innermost
// axis, e.g. NHWC per channel): out[i] = s[i] < 0 ? alpha[i] * v[i] : v[i],
// with LeakyReLU's exact rule per element. One set per Highway target.
#ifndef LRELU_SRC_CPU_PRELU_ROWS_H_
#define LRELU_SRC_CPU_PRELU_ROWS_H_

#include <cstddef>
#include <cstdint>

#include "cpu/kernels.h"

namespace lrelu::cpu {

// How far past `period` the row kernels read alpha: twice the most lanes of
// any target's vector of the compute type (16 floats with AVX-512), as
// bfloat16's rows on AVX-512 align out to two such vectors (64 bytes), so
// their vectors start up to 31 elements into the row.
constexpr size_t kAlphaSlack = 32;

// v, s, out: n contiguous, element-aligned elements of the dtype; out may be
// v or s exactly (never with non-temporal stores). alpha32 (32/16-bit dtypes)
// or alpha64 (float64), already rounded to the compute type: element i takes
// alpha[i % period]. Either period == n (alpha has n values) or period >=
// kAlphaSlack and alpha holds period + kAlphaSlack values with alpha[k] ==
// alpha[k % period]: rows that share one alpha row (NHWC) then run as one
// call, reading a row of alphas that stays in L1. A NaN in alpha32 has the
// lower 16 bits of its pattern clear (AVX-512's bfloat16 rows round in
// 16-bit halves: cpu/bfloat16_words-inl.h); the default NaN does.
struct PreluRowArgs {
  const void* v;
  const void* s;
  void* out;
  const float* alpha32;
  const double* alpha64;
  size_t n;
  size_t period;
};

using PreluRowKernel = void (*)(const PreluRowArgs& args);

// `rows` consecutive rows of `length` elements (v, s, out as above), row r
// with one alpha, alpha32[r % period] or alpha64[r % period] (NCHW planes;
// period = the channels when the rows run on across images), run as one
// span. alpha32's NaNs as above.
struct PreluPlanesArgs {
  const void* v;
  const void* s;
  void* out;
  const float* alpha32;
  const double* alpha64;
  size_t length;
  size_t rows;
  size_t period;  // > 0
};

using PreluPlanesKernel = void (*)(const PreluPlanesArgs& args);

// n 16-bit alphas (bits, contiguous, element-aligned) widened to float32
// exactly, for every pattern (a NaN's payload moves to the upper bits), in
// integer arithmetic: no floating-point flag is raised and the caller's
// DAZ/FTZ and rounding mode change nothing.
using WidenAlphasKernel = void (*)(const uint16_t* bits, size_t n, float* out);

// n float64 alphas (contiguous) rounded to float32 once, a NaN as the
// default quiet NaN (0x7fc00000: a payload could carry a bfloat16 row's
// rounding into the sign); the caller has set the default floating-point
// environment (cpu/float_env.h), so the conversion rounds to nearest even
// and keeps subnormals.
using NarrowAlphasKernel = void (*)(const double* a, size_t n, float* out);

// [dtype][0 = forward (s is v; one load), 1 = gradient][stream]: stream = 1
// writes out with non-temporal stores (outputs far larger than the caches).
// row_round_trip, planes_round_trip [stream]: float16's forward pass out of
// place with every alpha positive and finite, through float32 (F16C's
// conversions where they exist); a signalling NaN in v comes out quiet and
// raises MXCSR's invalid flag, so the caller runs it only where
// KernelTable::half_round_trip says the flag works, and runs the task again
// with row/planes where the flag was raised (RoundTripOrExact,
// invalid_flag.h).
// row_bfloat16_positive, planes_bfloat16_positive [stream]: bfloat16's
// forward pass (in place too) with every alpha positive and finite, the
// same bits as row/planes with a cheaper sign test.
struct PreluRowTable {
  PreluRowKernel row[kNumDTypes][2][2];
  PreluPlanesKernel planes[kNumDTypes][2][2];
  PreluRowKernel row_round_trip[2];
  PreluPlanesKernel planes_round_trip[2];
  PreluRowKernel row_bfloat16_positive[2];
  PreluPlanesKernel planes_bfloat16_positive[2];
  WidenAlphasKernel widen_half;       // float16 alphas
  WidenAlphasKernel widen_bfloat16;   // bfloat16 alphas
  NarrowAlphasKernel narrow_float64;  // float64 alphas of 32/16-bit x
};

// The kernels compiled for `target` (one of RunnableTargets()).
const PreluRowTable& PreluRowsFor(int64_t target);

// Orders the row kernels' non-temporal stores before what follows: call
// once after a run of streamed row calls (the planes kernels fence their
// own).
void FlushStreamedRows();

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_PRELU_ROWS_H_
