// PReLU's plan (contract ai.onnx.PRelu v1, docs/prelu.md): the tensors as
// validated, alpha's broadcast onto x, and the small helpers the
// validation, forward rows and dalpha files share.
#ifndef LRELU_SRC_API_PRELU_PLAN_H_
#define LRELU_SRC_API_PRELU_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/inline_vector.h"
#include "core/backend.h"
#include "core/problem.h"
#include "lrelu/lrelu.h"

namespace lrelu::prelu_impl {

// Shapes and strides of up to 8 dimensions need no allocation.
using DimVector = InlineVector<int64_t, 8>;

// A tensor as the plan keeps it: shape and explicit strides copied.
struct View {
  char* data = nullptr;
  lrelu_dtype_t dtype = LRELU_DTYPE_FLOAT32;
  DimVector shape;
  DimVector strides;  // elements
  int64_t n = 0;
  // Byte range [lo, hi] the elements span relative to data (n > 0 only),
  // from CheckTensor.
  int64_t lo_bytes = 0, hi_bytes = 0;
};

// Dimensions of extent > 1 of a tensor with fewer than 2^63 elements.
constexpr int kMaxRank = 64;

struct PreluPlan {
  bool backward = false;
  lrelu_dtype_t dtype = LRELU_DTYPE_FLOAT32;  // x's
  View x, y, dy, dx, alpha, dalpha;           // y forward; dy, dx backward
  bool has_dx = false, has_dalpha = false;
  // alpha's strides aligned to x's axes (0 where alpha broadcasts).
  DimVector alpha_strides_x;
  InlineVector<int, 8> alpha_axes;  // axes of x where alpha's extent is > 1
  int64_t alpha_count = 1;
  // Options for the per-view LeakyReLU calls.
  size_t threads = 0;
  bool has_pool = false;
  lrelu_thread_pool_t pool = {};
  bool has_variant = false, has_target = false;
  std::string variant, cpu_target;
  // LeakyReLU's problem of x -> y (dy, x -> dx) as planned, for
  // lrelu_executor_bind's checks of new pointers (RebindProblem): kept by
  // executors only (one-shot calls skip the 2 KiB copy); unused for a
  // gradient without dx.
  std::shared_ptr<const Problem> checked;
};

// Whether a view placed at its data pointer has NULL data with elements
// (LRELU_STATUS_NULL_DATA) or reaches outside the address space
// (LRELU_STATUS_SIZE_OVERFLOW): what lrelu_executor_bind checks of alpha,
// dalpha and the inputs LeakyReLU's problem does not cover.
lrelu_status_t CheckPlaced(const View& v, const char* name);

// Structural checks of one tensor (api/problem.h's CheckTensor); fills *v
// with its shape and explicit strides.
lrelu_status_t CheckView(const lrelu_tensor_t* t, const char* name, View* v);

// True when a and b share no byte.
bool Disjoint(const View& a, const View& b);

// No element written twice (sorted by |stride|, each steps past the rest).
bool WritesOnce(const View& v);

// a and b have the same dtype and shape (else an error naming both).
lrelu_status_t CheckSameShape(const View& a, const char* an, const View& b,
                              const char* bn);

// alpha's dtype and its broadcast to x (ONNX unidirectional broadcasting).
lrelu_status_t CheckAlpha(PreluPlan* p);

// Validates the options, and the layouts of checked->problem (x -> y, or
// dy, x -> dx, as LeakyReLU's problem), by planning that problem as
// LeakyReLU's entry points do; copies what the per-view calls need into p
// and the SIMD target chosen into *target.
lrelu_status_t TakeOptions(const lrelu_options_t* given, Plan* checked,
                           PreluPlan* p, const char** target);

// The view of v that starts at element `offset`; the caller sets its shape.
lrelu_tensor_t SubView(const View& v, int64_t offset);

// Bits of one 2-, 4- or 8-byte element.
uint64_t LoadBits(const char* p, size_t elem);
void StoreBits(char* p, size_t elem, uint64_t bits);
// StoreBits of bits[k] at p + k * step elements, k < count: one branch on
// the element size, not a call an element.
void StoreStrided(char* p, size_t elem, int64_t step, const uint64_t* bits,
                  size_t count);

// Below this many bytes per task another thread costs more than it saves
// (LeakyReLU's measured threshold, docs/performance.md).
constexpr int64_t kMinTaskBytes = int64_t{256} << 10;

// Calls fn(k, offsets...) for every alpha element k in order, with the
// element offset of its view start in each of the listed views.
template <typename Fn>
void ForEachAlpha(const PreluPlan& p, const std::vector<const View*>& views,
                  Fn fn) {
  const size_t na = p.alpha_axes.size();
  const size_t nv = views.size() + 1;  // last: alpha
  // Each alpha axis's extent and step in every view, read once: the
  // odometer then touches no view per element (a 512-channel dalpha spent ~10 %
  // of its time reading the strides here).
  std::vector<int64_t> step(na * nv), back(na * nv), extent(na);
  for (size_t j = 0; j < na; ++j) {
    const int axis = p.alpha_axes[j];
    extent[j] = p.x.shape[axis];
    for (size_t v = 0; v < nv; ++v) {
      step[j * nv + v] =
          v + 1 < nv ? views[v]->strides[axis] : p.alpha_strides_x[axis];
      back[j * nv + v] = -(p.x.shape[axis] - 1) * step[j * nv + v];
    }
  }
  std::vector<int64_t> off(nv, 0), idx(na, 0);
  for (int64_t k = 0; k < p.alpha_count; ++k) {
    fn(k, off);
    // Odometer over alpha_axes, innermost last.
    for (size_t j = na; j-- > 0;) {
      const bool carry = ++idx[j] == extent[j];
      const int64_t* by = carry ? &back[j * nv] : &step[j * nv];
      for (size_t v = 0; v < nv; ++v) off[v] += by[v];
      if (!carry) break;
      idx[j] = 0;
    }
  }
}

// The per-view calls' options.
lrelu_options_t ViewOptions(const PreluPlan& p,
                            const lrelu_thread_pool_t* pool);

// x's shape with the alpha axes set to 1: the shape of every view.
std::vector<int64_t> ViewShape(const PreluPlan& p);

}  // namespace lrelu::prelu_impl

#endif  // LRELU_SRC_API_PRELU_PLAN_H_
