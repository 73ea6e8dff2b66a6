// What every device backend (CUDA, OpenCL) checks the same way at planning
// time: the device index, options.variant and the dense-only rule.
#ifndef LRELU_SRC_GPU_COMMON_DEVICE_CHECKS_H_
#define LRELU_SRC_GPU_COMMON_DEVICE_CHECKS_H_

#include "core/backend.h"
#include "core/problem.h"
#include "lrelu/lrelu.h"

namespace lrelu::gpu {

// The variants of a device backend, in the order tests run them
// (Backend::variants): "scalar" (one element per access) and "vec4" (the
// backend's widest access on the aligned body).
extern const char* const kDeviceVariants[];

// options.variant on a device backend: NULL, "" and "auto" are kAuto.
enum class DeviceVariant { kAuto, kVec4, kScalar };

// options.device against the backend's devices now. No device at all:
// BACKEND_UNAVAILABLE, "no <label> device: <why>"; an index out of range:
// INVALID_ARGUMENT. label is the backend's name in prose ("CUDA").
lrelu_status_t CheckDevice(const Backend& backend, const char* label,
                           int device);

// Parses options.variant (auto, vec4 or scalar).
lrelu_status_t ParseDeviceVariant(const Backend& backend, const char* name,
                                  DeviceVariant* variant);

// Device kernels walk one dense run; strided views are refused with
// UNSUPPORTED_VARIANT, the message ending in "(<advice>)".
lrelu_status_t RequireDense(const Backend& backend, const Problem& p,
                            const char* advice);

}  // namespace lrelu::gpu

#endif  // LRELU_SRC_GPU_COMMON_DEVICE_CHECKS_H_
