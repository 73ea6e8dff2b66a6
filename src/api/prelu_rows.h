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

// The merged rows of x, v (x or dy) and out (y or dx) with alpha's strides.
RowLayout MergedLayout(const PreluPlan& p, const View& v, const View& out);

// True when the merged rows are unit-stride in x, the other input and the
// output (the kernels' case); otherwise the per-view LeakyReLU calls, whose
// strided variant handles any layout, serve better.
bool RowsAreDense(const RowLayout& l);

// Runs every row (out = v where x >= 0, else alpha * v), split over the
// pool of `o` (or lrelu's own).
lrelu_status_t ExecuteRows(const PreluPlan& p, const View& v, const View& out,
                           const RowLayout& layout, const lrelu_options_t& o);

}  // namespace lrelu::prelu_impl

#endif  // LRELU_SRC_API_PRELU_ROWS_H_
