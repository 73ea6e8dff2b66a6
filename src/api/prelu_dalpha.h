// PReLU's dalpha: per alpha element the exact sum of x * dy over the
// elements where x < 0, rounded once to dalpha's dtype (docs/prelu.md).
#ifndef LRELU_SRC_API_PRELU_DALPHA_H_
#define LRELU_SRC_API_PRELU_DALPHA_H_

#include <cstdint>
#include <vector>

#include "api/prelu_plan.h"

namespace lrelu::prelu_impl {

// Whether SumDalpha walks x's rows with alpha along the last axis only
// (NHWC per channel): then it reads no view offsets.
bool DalphaByRows(const PreluPlan& p);

// Fills out[k] (dalpha's bits, alpha's element order) for every alpha
// element k; x_offsets / dy_offsets are each view's start (ForEachAlpha;
// unused, and may be left zero, where DalphaByRows(p)).
// Splits the work over `pool`; exact, so the same bits for any split.
void SumDalpha(const PreluPlan& p, const std::vector<int64_t>& x_offsets,
               const std::vector<int64_t>& dy_offsets,
               const lrelu_thread_pool_t* pool, uint64_t* out);

}  // namespace lrelu::prelu_impl

#endif  // LRELU_SRC_API_PRELU_DALPHA_H_
