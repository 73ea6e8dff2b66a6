// The CUDA backend's row when the library is built without CUDA: the
// info calls and selection say "backend cuda is not built into this library".
#include "core/backend.h"
#include "gpu_common/device_checks.h"

namespace lrelu {

const Backend& CudaBackend() {
  static const Backend backend = {
      "cuda",  nullptr, nullptr, PointerKind::kDevice, gpu::kDeviceVariants,
      nullptr, nullptr};
  return backend;
}

const Backend* CudaPreluBackend() { return nullptr; }

}  // namespace lrelu
