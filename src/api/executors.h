// Where executors live: slabs that are never freed, so that checking a
// caller's handle is a lock-free range test plus one atomic load, and never
// reads memory lrelu does not own (lrelu.h's promise for invalid handles).
#ifndef LRELU_SRC_API_EXECUTORS_H_
#define LRELU_SRC_API_EXECUTORS_H_

#include <cstddef>

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

// Resolves the caller's options and plans plan->problem on the backend
// they name: stage one without the executor (LeakyReLU's entry points; the
// PReLU planner validates its options and x/y layouts through it).
lrelu_status_t PlanOnBackend(const lrelu_options_t* given, Plan* plan);

// Options that plan as the defaults do on the CPU, but for the thread
// count and a pool: NULL, or this header's struct naming the CPU, device
// 0, no variant (or "auto"), no target and no stream. The one-shot calls'
// short ways (LeakyReLU's run_unplanned, PReLU's row mode without a plan)
// take only these.
bool CpuDefaultOptions(const lrelu_options_t* options);

// PReLU's CPU executors (api/prelu.cc): whether plan is one, and
// lrelu_executor_bind for them (data: {x, alpha, y} or {dy, x, alpha, dx,
// dalpha}, NULL where planned without dx or dalpha).
bool IsPreluPlan(const Plan& plan);
lrelu_status_t RebindPrelu(Plan* plan, void* const* data, size_t count);

// The same for PReLU's device executors (api/prelu_device.cc; data: {x,
// alpha, y}).
bool IsPreluDevicePlan(const Plan& plan);
lrelu_status_t RebindPreluOnDevice(Plan* plan, void* const* data, size_t count);

// Wraps a finished plan in a new executor (the stage-one calls of every
// entry point: api/lrelu.cc, api/prelu.cc).
lrelu_status_t NewExecutorFor(const Plan& plan, size_t* workspace_size,
                              lrelu_executor_t** executor);

// Checks a stage-one call's out-parameters and clears them.
lrelu_status_t CheckExecutorOutputs(size_t* workspace_size,
                                    lrelu_executor_t** executor);

}  // namespace lrelu

#endif  // LRELU_SRC_API_EXECUTORS_H_
