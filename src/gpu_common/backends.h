// What src/api/ needs from the device backends (CUDA, OpenCL) besides the
// Backend interface itself: whether each is built in, and its devices. A
// backend that is not built provides the same functions from not_built.cc,
// so api/ never needs #ifdefs.
#ifndef LRELU_SRC_GPU_COMMON_BACKENDS_H_
#define LRELU_SRC_GPU_COMMON_BACKENDS_H_

#include <string>

#include "core/backend.h"

namespace lrelu {

// nullptr when the backend is not compiled into this library.
const Backend* CudaBackend();
const Backend* OpenClBackend();

namespace gpu {

// Devices the backend sees now; 0 with the reason in *why (the driver's own
// message) when there is none or the backend is not built.
int CudaDeviceCount(std::string* why);
int OpenClDeviceCount(std::string* why);

// Name of device i (stable for the life of the process), nullptr when out of
// range.
const char* CudaDeviceName(int i);
const char* OpenClDeviceName(int i);

}  // namespace gpu
}  // namespace lrelu

#endif  // LRELU_SRC_GPU_COMMON_BACKENDS_H_
