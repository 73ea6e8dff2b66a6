// What the CUDA backend's LeakyReLU (backend.cu) and PReLU (prelu.cu) paths
// share: the device-pointer check at planning and the launch on the plan's
// device.
#ifndef LRELU_SRC_CUDA_BACKEND_COMMON_H_
#define LRELU_SRC_CUDA_BACKEND_COMMON_H_

#include <cuda_runtime.h>

#include "core/error.h"

namespace lrelu {

// Host memory the device cannot read would fault inside the kernel; say so
// at planning time instead. `name` names the operand in the message.
inline lrelu_status_t CheckDevicePointer(const void* p, const char* name) {
  cudaPointerAttributes attributes{};
  const cudaError_t err = cudaPointerGetAttributes(&attributes, p);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "backend cuda: %s.data: cudaPointerGetAttributes: %s", name,
                cudaGetErrorString(err));
  }
  if (attributes.type == cudaMemoryTypeUnregistered ||
      (attributes.type == cudaMemoryTypeHost &&
       attributes.devicePointer == nullptr)) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "backend cuda takes device pointers, but %s.data is host "
                "memory the device cannot read",
                name);
  }
  return LRELU_STATUS_OK;
}

// Makes `device` current, runs `launch` (kernel launches), then gives the
// caller its own device back. The first error of the switch or the launch.
template <typename F>
cudaError_t LaunchOnDevice(int device, F launch) {
  int previous = 0;
  cudaError_t err = cudaGetDevice(&previous);
  if (err == cudaSuccess && previous != device) err = cudaSetDevice(device);
  if (err == cudaSuccess) {
    launch();
    err = cudaGetLastError();
  }
  if (previous != device) cudaSetDevice(previous);
  return err;
}

}  // namespace lrelu

#endif  // LRELU_SRC_CUDA_BACKEND_COMMON_H_
