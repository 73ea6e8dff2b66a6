#include "backends.h"

#include "errors.h"
#include "lrelu/lrelu.hpp"

namespace lrelu_cli {

// The library numbers its backends 0, 1, ... and names each one; the first
// value without a name ends the list.
std::vector<lrelu_backend_t> AllBackends() {
  std::vector<lrelu_backend_t> backends;
  for (int i = 0;; ++i) {
    const auto backend = static_cast<lrelu_backend_t>(i);
    if (lrelu_backend_name(backend) == nullptr) break;
    backends.push_back(backend);
  }
  return backends;
}

std::vector<std::string> BackendNames() {
  std::vector<std::string> names;
  for (lrelu_backend_t backend : AllBackends()) {
    names.emplace_back(lrelu_backend_name(backend));
  }
  return names;
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
  std::string known;
  for (const std::string& n : BackendNames()) {
    known += (known.empty() ? "" : ", ") + n;
  }
  throw UsageError("unknown backend " + Quote(name, 40) + " (use " + known +
                   ")");
}

std::vector<std::string> BackendVariants(lrelu_backend_t backend) {
  return lrelu::backend_variants(backend);
}

}  // namespace lrelu_cli
