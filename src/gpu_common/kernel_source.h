// Kernel source for other runtimes: the WGSL templates rendered for a dtype,
// variant and workgroup size, and the OpenCL / CUDA code the backends run.
#ifndef LRELU_SRC_GPU_COMMON_KERNEL_SOURCE_H_
#define LRELU_SRC_GPU_COMMON_KERNEL_SOURCE_H_

#include <cstdint>
#include <string>

#include "lrelu/lrelu.h"

namespace lrelu::gpu {

// The short dtype name kernel names are built from ("f32", "f16", "bf16",
// "f64"); nullptr for an unknown dtype.
const char* DTypeTag(lrelu_dtype_t dtype);

// language (lrelu_kernel_source's `target`): "wgsl", "opencl" or "cuda";
// variant: "scalar" or "vec4";
// workgroup_size: WGSL only, 0 = 256. On failure returns the status and
// has set the thread's error message.
lrelu_status_t RenderKernelSource(const char* language, lrelu_dtype_t dtype,
                                  const char* variant, uint32_t workgroup_size,
                                  std::string* source);

}  // namespace lrelu::gpu

#endif  // LRELU_SRC_GPU_COMMON_KERNEL_SOURCE_H_
