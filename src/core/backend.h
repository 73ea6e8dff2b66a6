// The one small interface between src/api/ (validation, planning entry points)
// and a backend. A new backend (CUDA, OpenCL, ...) copies src/cpu/backend.cc:
// fill a Plan's backend fields in plan(), run it in execute().
#ifndef LRELU_SRC_CORE_BACKEND_H_
#define LRELU_SRC_CORE_BACKEND_H_

#include <cstddef>
#include <memory>

#include "core/problem.h"
#include "lrelu/lrelu.h"

namespace lrelu {

struct Backend;

// Everything an executor holds: the problem and the backend's decisions.
struct Plan {
  Problem problem;
  const Backend* backend = nullptr;
  const char* variant = "empty";  // name reported to the caller
  const char* target = "";        // SIMD target (CPU) or device
  size_t tasks = 1;               // parallel tasks (1 = calling thread)
  size_t workspace_size = 0;      // bytes execute() needs
  bool has_pool = false;          // pool given in the options at plan time
  lrelu_thread_pool_t pool = {};  // copied: the caller's struct may go away
  alignas(16) unsigned char state[128];  // backend-private
  // Plans that need more than `state` (PReLU's views): owned by the plan,
  // released with the executor.
  std::shared_ptr<const void> extension;
};

struct Backend {
  const char* name;
  // Chooses variant, target and tiling for plan->problem; fills the fields
  // above. Must not touch tensor data.
  lrelu_status_t (*plan)(const lrelu_options_t& options, Plan* plan);
  // Runs the plan. pool is never NULL here (api/ resolves the default).
  lrelu_status_t (*execute)(const Plan& plan, void* workspace,
                            size_t workspace_size,
                            const lrelu_thread_pool_t* pool);
};

const Backend& CpuBackend();

// Wraps a finished plan in a new executor (for entry points outside
// api/lrelu.cc, e.g. api/prelu.cc).
lrelu_status_t NewExecutorFor(const Plan& plan, size_t* workspace_size,
                              lrelu_executor_t** executor);

// Checks a stage-one call's out-parameters and clears them.
lrelu_status_t CheckExecutorOutputs(size_t* workspace_size,
                                    lrelu_executor_t** executor);

}  // namespace lrelu

#endif  // LRELU_SRC_CORE_BACKEND_H_
