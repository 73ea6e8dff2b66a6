// The C entry points about device backends and kernel source: which backends
// are built and have devices, their names, and lrelu_kernel_source.
#include <cstring>
#include <string>

#include "core/error.h"
#include "gpu_common/backends.h"
#include "gpu_common/kernel_source.h"
#include "lrelu/lrelu.h"

namespace lrelu::gpu {
namespace {

int Count(lrelu_backend_t backend, std::string* why) {
  switch (backend) {
    case LRELU_BACKEND_CPU:
      return 1;
    case LRELU_BACKEND_CUDA:
      return CudaDeviceCount(why);
    case LRELU_BACKEND_OPENCL:
      return OpenClDeviceCount(why);
    default:
      break;
  }
  if (why != nullptr) *why = "unknown backend " + std::to_string(backend);
  return 0;
}

}  // namespace
}  // namespace lrelu::gpu

extern "C" {

int lrelu_backend_built(lrelu_backend_t backend) {
  switch (backend) {
    case LRELU_BACKEND_CPU:
      return 1;
    case LRELU_BACKEND_CUDA:
      return lrelu::CudaBackend() != nullptr;
    case LRELU_BACKEND_OPENCL:
      return lrelu::OpenClBackend() != nullptr;
    default:
      break;
  }
  return 0;
}

int lrelu_backend_available(lrelu_backend_t backend) {
  return lrelu::gpu::Count(backend, nullptr) > 0;
}

int lrelu_device_count(lrelu_backend_t backend) {
  return lrelu::gpu::Count(backend, nullptr);
}

const char* lrelu_backend_unavailable_reason(lrelu_backend_t backend) {
  static thread_local std::string why;
  why.clear();
  if (lrelu::gpu::Count(backend, &why) > 0) why.clear();
  return why.c_str();
}

const char* lrelu_device_name(lrelu_backend_t backend, int i) {
  switch (backend) {
    case LRELU_BACKEND_CPU:
      return i == 0 ? "host CPU" : nullptr;
    case LRELU_BACKEND_CUDA:
      return lrelu::gpu::CudaDeviceName(i);
    case LRELU_BACKEND_OPENCL:
      return lrelu::gpu::OpenClDeviceName(i);
    default:
      break;
  }
  return nullptr;
}

const char* lrelu_backend_name(lrelu_backend_t backend) {
  switch (backend) {
    case LRELU_BACKEND_CPU:
      return "cpu";
    case LRELU_BACKEND_CUDA:
      return "cuda";
    case LRELU_BACKEND_OPENCL:
      return "opencl";
    default:
      break;
  }
  return nullptr;
}

lrelu_status_t lrelu_kernel_source(const char* target, lrelu_dtype_t dtype,
                                   const char* variant, uint32_t workgroup_size,
                                   char* buffer, size_t buffer_size,
                                   size_t* length) {
  if (length == nullptr) {
    return lrelu::Fail(LRELU_STATUS_INVALID_ARGUMENT,
                       "length must not be NULL");
  }
  *length = 0;
  std::string source;
  const lrelu_status_t status = lrelu::gpu::RenderKernelSource(
      target, dtype, variant, workgroup_size, &source);
  if (status != LRELU_STATUS_OK) return status;
  *length = source.size();
  if (buffer == nullptr) return LRELU_STATUS_OK;
  if (buffer_size <= source.size()) {
    return lrelu::Fail(LRELU_STATUS_INVALID_ARGUMENT,
                       "buffer_size is %zu but the source needs %zu bytes "
                       "with its terminating NUL",
                       buffer_size, source.size() + 1);
  }
  std::memcpy(buffer, source.c_str(), source.size() + 1);
  return LRELU_STATUS_OK;
}

}  // extern "C"
