// Executors for entry points outside api/lrelu.cc (e.g. api/prelu.cc).
#ifndef LRELU_SRC_API_EXECUTOR_H_
#define LRELU_SRC_API_EXECUTOR_H_

#include <cstddef>

#include "core/backend.h"
#include "lrelu/lrelu.h"

namespace lrelu {

// Wraps a finished plan in a new executor.
lrelu_status_t NewExecutorFor(const Plan& plan, size_t* workspace_size,
                              lrelu_executor_t** executor);

// Checks a stage-one call's out-parameters and clears them.
lrelu_status_t CheckExecutorOutputs(size_t* workspace_size,
                                    lrelu_executor_t** executor);

}  // namespace lrelu

#endif  // LRELU_SRC_API_EXECUTOR_H_
