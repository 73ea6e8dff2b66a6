// PReLU's forward and dx in row mode: x, the other input and the output
// walked as rows of their merged last dimension, each row run by a
// contiguous Highway kernel (docs/prelu.md, "How the CPU runs it").
#ifndef LRELU_SRC_API_PRELU_ROWS_H_
#define LRELU_SRC_API_PRELU_ROWS_H_

#include <cstdint>

#include "api/prelu_plan.h"

namespace lrelu::prelu_impl {

// Row mode: x, the other input and the output walked as rows of their
// merged last dimension (dimensions of extent 1 dropped, neighbours merged
// where every operand, alpha included, steps over the inner one exactly).
// A row with one alpha (alpha constant along it: NCHW per channel) runs
// LeakyReLU's contiguous kernel of the chosen target with that alpha; a row
// along which alpha varies (NHWC per channel, alpha as large as x) runs the
// per-element-alpha kernel, alpha's row rounded to the compute type once per
// distinct row. Rows split over the pool.
struct RowLayout {
  int rank = 0;  // merged dimensions; the last is the row
  int64_t extent[kMaxRank];
  int64_t xs[kMaxRank], vs[kMaxRank], os[kMaxRank], as[kMaxRank];
};

// The merged rows of `rank` dimensions of extent shape[k] with the element
// strides of x, v (x or dy), out (y or dx) and alpha (0 where it
// broadcasts).
RowLayout MergeRows(int rank, const int64_t* shape, const int64_t* xs,
                    const int64_t* vs, const int64_t* os, const int64_t* as);

// MergeRows for a plan's x, v and out.
RowLayout MergedLayout(const PreluPlan& p, const View& v, const View& out);

// What row mode reads of a problem: the operands, their dtypes, and the
// options that choose the kernels and the split.
struct RowOperands {
  lrelu_dtype_t dtype;  // x's
  bool backward;        // out = dx (v is dy), else y (v is x)
  const char* x;
  const char* v;
  char* out;
  const char* alpha;
  lrelu_dtype_t alpha_dtype;
  int64_t n;               // x's elements
  size_t threads;          // options.threads
  const char* cpu_target;  // options.cpu_target; NULL: the best target
  bool reference;          // options.variant is "reference": the oracle
};

// A plan's operands (v and out: x or dy, y or dx).
RowOperands OperandsOf(const PreluPlan& p, const View& v, const View& out);

// True when the merged rows are unit-stride in x, the other input and the
// output (the kernels' case); otherwise the per-view LeakyReLU calls, whose
// strided variant handles any layout, serve better.
bool RowsAreDense(const RowLayout& l);

// Runs every row (out = v where x >= 0, else alpha * v), split over
// `pool` (NULL: lrelu's own).
lrelu_status_t ExecuteRows(const RowOperands& ops, const RowLayout& layout,
                           const lrelu_thread_pool_t* pool);

}  // namespace lrelu::prelu_impl

#endif  // LRELU_SRC_API_PRELU_ROWS_H_
