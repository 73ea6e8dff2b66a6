#include "gpu_common/device_checks.h"

#include <cstring>
#include <string>

#include "core/error.h"

namespace lrelu::gpu {

const char* const kDeviceVariants[] = {"scalar", "vec4", nullptr};

lrelu_status_t CheckDevice(const Backend& backend, const char* label,
                           int device) {
  std::string why;
  const int count = backend.device_count(&why);
  if (count == 0) {
    return Fail(LRELU_STATUS_BACKEND_UNAVAILABLE, "no %s device: %s", label,
                why.c_str());
  }
  if (device < 0 || device >= count) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "options.device is %d but there are %d %s devices", device,
                count, label);
  }
  return LRELU_STATUS_OK;
}

lrelu_status_t ParseDeviceVariant(const Backend& backend, const char* name,
                                  DeviceVariant* variant) {
  if (name == nullptr || name[0] == '\0' || std::strcmp(name, "auto") == 0) {
    *variant = DeviceVariant::kAuto;
  } else if (std::strcmp(name, "vec4") == 0) {
    *variant = DeviceVariant::kVec4;
  } else if (std::strcmp(name, "scalar") == 0) {
    *variant = DeviceVariant::kScalar;
  } else {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "unknown variant '%s' for backend %s (use auto, vec4 or "
                "scalar)",
                name, backend.name);
  }
  return LRELU_STATUS_OK;
}

lrelu_status_t RequireDense(const Backend& backend, const Problem& p,
                            const char* advice) {
  if (p.dense) return LRELU_STATUS_OK;
  return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
              "backend %s needs every operand to be one dense run; these "
              "views are strided (%s)",
              backend.name, advice);
}

}  // namespace lrelu::gpu
