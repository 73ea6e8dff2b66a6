// A validated, normalised elementwise problem: what src/api/ hands to a
// backend. Normalising (dropping size-1 dimensions, turning negative output
// strides around, sorting by output stride and merging dimensions that are
// contiguous in every operand) turns most views into one dense run.
#ifndef LRELU_SRC_CORE_PROBLEM_H_
#define LRELU_SRC_CORE_PROBLEM_H_

#include <cstddef>
#include <cstdint>

#include "lrelu/lrelu.h"

namespace lrelu {

// Dimensions of size > 1 of a tensor with fewer than 2^63 elements number at
// most 63, so this bounds every rank after normalisation.
constexpr int kMaxDims = 64;

enum class Op { kForward, kBackward };

struct Problem {
  Op op;
  lrelu_dtype_t dtype;
  size_t elem_size;
  double alpha;
  float alpha32;  // alpha rounded to float32 once (core/float32.h)
  int64_t n;      // element count
  // out[i] = s[i] < 0 ? alpha * v[i] : v[i]; forward: v == s == x.
  const void* v;
  const void* s;
  void* out;
  bool in_place;  // out shares memory with v or s (exactly)
  bool dense;     // one contiguous run in every operand
  int rank;       // after normalisation; innermost dimension last
  int64_t shape[kMaxDims];
  int64_t v_strides[kMaxDims];  // in elements, as are the others
  int64_t s_strides[kMaxDims];
  int64_t out_strides[kMaxDims];
};

// Validate the arguments of the forward pass / the gradient and fill *p.
// On failure the calling thread's error message names the problem.
lrelu_status_t BuildForwardProblem(const lrelu_tensor_t* x, double alpha,
                                   const lrelu_tensor_t* y, Problem* p);
lrelu_status_t BuildBackwardProblem(const lrelu_tensor_t* dy,
                                    const lrelu_tensor_t* s, double alpha,
                                    lrelu_grad_source_t source,
                                    const lrelu_tensor_t* dx, Problem* p);

}  // namespace lrelu

#endif  // LRELU_SRC_CORE_PROBLEM_H_
