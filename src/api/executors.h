// Where executors live: slabs that are never freed, so that checking a
// caller's handle is a lock-free range test plus one atomic load, and never
// reads memory lrelu does not own (lrelu.h's promise for invalid handles).
#ifndef LRELU_SRC_API_EXECUTORS_H_
#define LRELU_SRC_API_EXECUTORS_H_

#include "core/backend.h"
#include "lrelu/lrelu.h"

struct lrelu_executor {
  lrelu::Plan plan;
};

namespace lrelu {

// A new live executor holding a copy of plan; nullptr when out of memory.
lrelu_executor* CreateExecutor(const Plan& plan);

// Whether e is an executor CreateExecutor returned and DestroyExecutor has
// not yet taken back. Lock-free; reads only lrelu's own slabs.
bool IsLiveExecutor(const lrelu_executor* e);

// Destroys a live executor; false (and nothing done) for any other handle.
bool DestroyExecutor(lrelu_executor* e);

}  // namespace lrelu

#endif  // LRELU_SRC_API_EXECUTORS_H_
