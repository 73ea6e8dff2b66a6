#include "opencl/loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace lrelu::opencl {
namespace {

struct Loaded {
  ClApi api;
  std::string why;  // empty when loaded
};

Loaded* Load() {
  auto* loaded = new Loaded();  // never destroyed, like the library handle
  const char* name = std::getenv("LRELU_OPENCL_LIBRARY");
  if (name == nullptr || name[0] == '\0') name = "libOpenCL.so.1";
  void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    loaded->why = std::string("no OpenCL ICD loader: dlopen(") + name +
                  "): " + (error != nullptr ? error : "failed") +
                  " (install ocl-icd-libopencl1 and an ICD such as "
                  "pocl-opencl-icd)";
    return loaded;
  }
#define LRELU_CL_RESOLVE(fn)                                              \
  loaded->api.fn = reinterpret_cast<decltype(&::fn)>(dlsym(handle, #fn)); \
  if (loaded->api.fn == nullptr && loaded->why.empty()) {                 \
    loaded->why = std::string("the OpenCL ICD loader ") + name +          \
                  " has no " #fn " (OpenCL 1.2 needed)";                  \
  }
  LRELU_CL_FUNCTIONS(LRELU_CL_RESOLVE)
#undef LRELU_CL_RESOLVE
  return loaded;
}

Loaded& Get() {
  static Loaded* loaded = Load();
  return *loaded;
}

}  // namespace

const ClApi* LoadCl(std::string* why) {
  Loaded& loaded = Get();
  if (!loaded.why.empty()) {
    if (why != nullptr) *why = loaded.why;
    return nullptr;
  }
  return &loaded.api;
}

const ClApi& Cl() { return Get().api; }

}  // namespace lrelu::opencl
