#include "backends.h"

#include "errors.h"

namespace lrelu_cli {

std::vector<lrelu_backend_t> AllBackends() {
  return {LRELU_BACKEND_CPU, LRELU_BACKEND_CUDA, LRELU_BACKEND_OPENCL};
}

BackendInfo QueryBackend(lrelu_backend_t backend) {
  BackendInfo info;
  info.backend = backend;
  const char* name = lrelu_backend_name(backend);
  info.name = name != nullptr ? name : "unknown";
  info.built = lrelu_backend_built(backend) != 0;
  info.available = lrelu_backend_available(backend) != 0;
  const int count = lrelu_device_count(backend);
  for (int i = 0; i < count; ++i) {
    const char* device = lrelu_device_name(backend, i);
    info.devices.emplace_back(device != nullptr ? device : "");
  }
  // The reason string lives only until this thread's next query: copy it.
  if (!info.available) {
    info.unavailable_reason = lrelu_backend_unavailable_reason(backend);
  }
  return info;
}

lrelu_backend_t BackendFromName(const std::string& name) {
  for (lrelu_backend_t backend : AllBackends()) {
    if (name == lrelu_backend_name(backend)) return backend;
  }
  throw UsageError("unknown backend " + Quote(name, 40) +
                   " (use cpu, cuda or opencl)");
}

std::vector<std::string> BackendVariants(lrelu_backend_t backend) {
  if (backend == LRELU_BACKEND_CPU) {
    return {"reference", "contiguous", "strided"};
  }
  return {"scalar", "vec4"};
}

}  // namespace lrelu_cli
