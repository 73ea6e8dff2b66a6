// The library's backends as the tool's commands see them: names on the
// command line, what each one offers, and whether it can run here.
#ifndef LRELU_TOOLS_BACKENDS_H_
#define LRELU_TOOLS_BACKENDS_H_

#include <string>
#include <vector>

#include "lrelu/lrelu.h"

namespace lrelu_cli {

// What `lrelu info` reports about one backend.
struct BackendInfo {
  lrelu_backend_t backend = LRELU_BACKEND_CPU;
  std::string name;  // "cpu", "cuda", "opencl"
  bool built = false;
  bool available = false;
  std::vector<std::string> devices;  // one name per device
  std::string unavailable_reason;    // "" when available
};

// Every backend the library knows, CPU first (its backend table).
std::vector<lrelu_backend_t> AllBackends();

// Their names ("cpu", "cuda", "opencl"), in the same order.
std::vector<std::string> BackendNames();

BackendInfo QueryBackend(lrelu_backend_t backend);

// One of BackendNames() (the command line checks the spelling first);
// throws UsageError for anything else.
lrelu_backend_t BackendFromName(const std::string& name);

// The variants a backend can be forced to, in the order they are tested
// (lrelu_backend_variant).
std::vector<std::string> BackendVariants(lrelu_backend_t backend);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_BACKENDS_H_
