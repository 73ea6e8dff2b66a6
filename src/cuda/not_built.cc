// The CUDA backend when the library is built without nvcc.
#include "gpu_common/backends.h"

namespace lrelu {

const Backend* CudaBackend() { return nullptr; }
const Backend* CudaPreluBackend() { return nullptr; }

namespace gpu {

int CudaDeviceCount(std::string* why) {
  if (why != nullptr) *why = "backend cuda is not built into this library";
  return 0;
}

const char* CudaDeviceName(int) { return nullptr; }

}  // namespace gpu
}  // namespace lrelu
