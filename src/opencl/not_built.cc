// The OpenCL backend's row when the library is built without OpenCL: the
// info calls and selection say "backend opencl is not built into this library".
#include "core/backend.h"
#include "gpu_common/device_checks.h"

namespace lrelu {

const Backend& OpenClBackend() {
  static const Backend backend = {
      "opencl", nullptr, nullptr, PointerKind::kHost, gpu::kDeviceVariants,
      nullptr,  nullptr};
  return backend;
}

const Backend* OpenClPreluBackend() { return nullptr; }

}  // namespace lrelu
