// Launching on a plan's device from whatever device the calling thread has
// current, for the CUDA backend's LeakyReLU (backend.cu) and PReLU
// (prelu.cu) paths alike.
#ifndef LRELU_SRC_CUDA_ON_DEVICE_H_
#define LRELU_SRC_CUDA_ON_DEVICE_H_

#include <cuda_runtime.h>

namespace lrelu {

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

#endif  // LRELU_SRC_CUDA_ON_DEVICE_H_
