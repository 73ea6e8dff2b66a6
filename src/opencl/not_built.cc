// The OpenCL backend when the library is built without OpenCL.
#include "gpu_common/backends.h"

namespace lrelu {

const Backend* OpenClBackend() { return nullptr; }
const Backend* OpenClPreluBackend() { return nullptr; }

namespace gpu {

int OpenClDeviceCount(std::string* why) {
  if (why != nullptr) *why = "backend opencl is not built into this library";
  return 0;
}

const char* OpenClDeviceName(int) { return nullptr; }

}  // namespace gpu
}  // namespace lrelu
