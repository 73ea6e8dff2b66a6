// The backend table and the C entry points that read it: which backends
// are built and have devices, and their names.
#include "api/backends.h"

#include <string>

#include "core/backend.h"
#include "lrelu/lrelu.h"

namespace lrelu {
namespace {

// Indexed by lrelu_backend_t. A new backend adds its row here (and its
// value to lrelu_backend_t).
const Backend& Row(size_t i) {
  static const Backend* const table[] = {&CpuBackend(), &CudaBackend(),
                                         &OpenClBackend()};
  return *table[i];
}
constexpr size_t kBackendCount = 3;
static_assert(LRELU_BACKEND_CPU == 0 && LRELU_BACKEND_CUDA == 1 &&
                  LRELU_BACKEND_OPENCL == 2,
              "the table is indexed by lrelu_backend_t");

// Devices of backend now; 0 with the reason in *why (when why is given)
// when there is none.
int Count(lrelu_backend_t backend, std::string* why) {
  const Backend* row = BackendAt(backend);
  if (row == nullptr) {
    if (why != nullptr) *why = "unknown backend " + std::to_string(backend);
    return 0;
  }
  if (!row->built()) {
    if (why != nullptr) {
      *why = std::string("backend ") + row->name +
             " is not built into this library";
    }
    return 0;
  }
  return row->device_count(why);
}

}  // namespace

const Backend* BackendAt(lrelu_backend_t backend) {
  const auto i = static_cast<size_t>(backend);
  return backend >= 0 && i < kBackendCount ? &Row(i) : nullptr;
}

std::string BackendList() {
  std::string list;
  for (size_t i = 0; i < kBackendCount; ++i) {
    if (i > 0) list += ", ";
    list += std::string(Row(i).name) + " " + std::to_string(i);
  }
  return list;
}

}  // namespace lrelu

extern "C" {

int lrelu_backend_built(lrelu_backend_t backend) {
  const lrelu::Backend* row = lrelu::BackendAt(backend);
  return row != nullptr && row->built();
}

int lrelu_backend_available(lrelu_backend_t backend) {
  return lrelu::Count(backend, nullptr) > 0;
}

int lrelu_device_count(lrelu_backend_t backend) {
  return lrelu::Count(backend, nullptr);
}

const char* lrelu_backend_unavailable_reason(lrelu_backend_t backend) {
  static thread_local std::string why;
  why.clear();
  if (lrelu::Count(backend, &why) > 0) why.clear();
  return why.c_str();
}

const char* lrelu_device_name(lrelu_backend_t backend, int i) {
  const lrelu::Backend* row = lrelu::BackendAt(backend);
  if (row == nullptr || !row->built()) return nullptr;
  return row->device_name(i);
}

const char* lrelu_backend_name(lrelu_backend_t backend) {
  const lrelu::Backend* row = lrelu::BackendAt(backend);
  return row != nullptr ? row->name : nullptr;
}

const char* lrelu_backend_variant(lrelu_backend_t backend, size_t i) {
  const lrelu::Backend* row = lrelu::BackendAt(backend);
  if (row == nullptr) return nullptr;
  for (size_t k = 0; row->variants[k] != nullptr; ++k) {
    if (k == i) return row->variants[k];
  }
  return nullptr;
}

}  // extern "C"
