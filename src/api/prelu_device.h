// PReLU forward on a device backend (CUDA, OpenCL): validation and planning
// on api/'s side; the problem handed to the backend is
// core/prelu_device_problem.h.
#ifndef LRELU_SRC_API_PRELU_DEVICE_H_
#define LRELU_SRC_API_PRELU_DEVICE_H_

#include "core/backend.h"
#include "core/prelu_device_problem.h"
#include "lrelu/lrelu.h"

namespace lrelu {

// The device backends' PReLU entry points are Backends of their own
// (core/backend.h: CudaPreluBackend, OpenClPreluBackend): plan()
// finds the problem in plan->extension (a PreluDeviceProblem), checks what
// only the backend can (device pointers, alignment) and fills variant and
// device; execute() runs it.

// True when the options ask for a backend other than the CPU.
bool PreluWantsDevice(const lrelu_options_t* options);

// Validates a forward PReLU call for the device backend the options name
// (x, y through LeakyReLU's device checks: availability, dtype, dense
// views, overlap; alpha: x's dtype, broadcast, disjoint from y) and plans
// it. x, alpha and y have passed api/prelu.cc's structural checks and
// alpha broadcasts to x.
lrelu_status_t PlanPreluOnDevice(const lrelu_tensor_t* x,
                                 const lrelu_tensor_t* alpha,
                                 const lrelu_tensor_t* y,
                                 const lrelu_options_t* options, Plan* plan);

}  // namespace lrelu

#endif  // LRELU_SRC_API_PRELU_DEVICE_H_
