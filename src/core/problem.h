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
  // For lrelu_executor_bind, per operand (v, s, out) relative to the data
  // pointer the caller gave: where the normalised base lies and the byte
  // range [lo, hi] the elements span (n > 0 only); and which inputs were the
  // output's very view (in place).
  struct Reach {
    int64_t base_bytes, lo_bytes, hi_bytes;
  };
  Reach v_reach, s_reach, out_reach;
  bool v_is_out, s_is_out;
};

// What validation learns about one tensor.
struct Checked {
  const lrelu_tensor_t* t;
  const char* name;
  int64_t n;
  int64_t strides[kMaxDims];  // only for dimensions of size > 1
  int dims[kMaxDims];         // their positions in t->shape
  int count;                  // number of dimensions of size > 1
  // Byte range [lo, hi] the elements occupy, relative to data (n > 0 only).
  int64_t lo_bytes;
  int64_t hi_bytes;
};

// Structural checks of one tensor (NULL, dtype, rank, shape, element count,
// data, strides within 64-bit byte offsets and the address space); `name`
// names it in the error. Shared by LeakyReLU's and PReLU's validation.
lrelu_status_t CheckTensor(const lrelu_tensor_t* t, const char* name,
                           Checked* c);

// A pointer placed at `data` for n elements spanning the byte range
// [lo_bytes, hi_bytes] relative to it (Checked's or Problem::Reach's): NULL
// with elements is LRELU_STATUS_NULL_DATA, a range past either end of the
// address space LRELU_STATUS_SIZE_OVERFLOW; `name` names it in the error.
// What lrelu_executor_bind checks of each re-bound pointer.
lrelu_status_t CheckPlacement(const char* name, uintptr_t data, int64_t n,
                              int64_t lo_bytes, int64_t hi_bytes);

// A re-bound operand: its name, data pointer and the byte range [lo, hi]
// its elements span.
struct Bound {
  const char* name = "";
  uintptr_t data = 0, lo = 0, hi = 0;
};

// CheckPlacement, then *b for data whose elements span [lo_bytes, hi_bytes]
// relative to it.
lrelu_status_t PlaceBound(const char* name, const void* data, int64_t n,
                          int64_t lo_bytes, int64_t hi_bytes, Bound* b);

// The relation planned between an input and an output must hold again: the
// same data (in place) or no shared byte; LRELU_STATUS_OVERLAP otherwise.
lrelu_status_t CheckRelation(const Bound& in, const Bound& out, bool same);

// lrelu_dtype_size without the call through the shared library's PLT
// (0 for any other dtype).
inline size_t ElemSize(lrelu_dtype_t dtype) {
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32:
      return 4;
    case LRELU_DTYPE_FLOAT16:
    case LRELU_DTYPE_BFLOAT16:
      return 2;
    case LRELU_DTYPE_FLOAT64:
      return 8;
    default:
      return 0;
  }
}

// One dense run of elements, everything a kernel needs: the one-shot
// call's short way (Backend::run_unplanned) takes it without a Problem.
struct DenseRun {
  Op op;
  lrelu_dtype_t dtype;
  const void* v;
  const void* s;
  void* out;
  int64_t n;
  double alpha;
};

// The common forward call -- x and y C-contiguous (no strides), same dtype
// and shape, up to 2^40 elements, disjoint or identical -- checked in one
// pass, as *run. False for anything else, valid or not: the general path
// then validates (and words any error).
bool DenseForwardRun(const lrelu_tensor_t* x, double alpha,
                     const lrelu_tensor_t* y, DenseRun* run);

// The problem of a DenseForwardRun (what BuildForwardProblem gives for
// those tensors).
void BuildDenseForward(const DenseRun& run, Problem* p);

// alpha rounded to float32 once, to nearest whatever the caller's rounding
// mode (the hardware conversion where that gives the same bits).
float AlphaToFloat32(double alpha);

// Validate the arguments of the forward pass / the gradient and fill *p.
// On failure the calling thread's error message names the problem.
lrelu_status_t BuildForwardProblem(const lrelu_tensor_t* x, double alpha,
                                   const lrelu_tensor_t* y, Problem* p);
lrelu_status_t BuildBackwardProblem(const lrelu_tensor_t* dy,
                                    const lrelu_tensor_t* s, double alpha,
                                    lrelu_grad_source_t source,
                                    const lrelu_tensor_t* dx, Problem* p);

// Points a validated problem at new data of the same layout (v, s, out as
// the caller's x/dy, x-or-y and y/dx pointers): checks only what pointers can
// break -- NULL with elements, addresses that wrap, and the in-place or
// disjoint relation p was planned for. On failure p is unchanged.
lrelu_status_t RebindProblem(const void* v, const void* s, void* out,
                             Problem* p);

}  // namespace lrelu

#endif  // LRELU_SRC_CORE_PROBLEM_H_
