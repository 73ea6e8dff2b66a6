// PReLU forward on the OpenCL backend (api/prelu_device.h): host pointers
// like the LeakyReLU path, x and y copied in chunks, alpha's byte range
// copied whole, one kernel of prelu.cl per chunk. The device checks (dtype,
// denormals, dense views) were made by LeakyReLU's planning on x and y.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/backend.h"
#include "core/error.h"
#include "core/prelu_device_problem.h"
#include "gpu_common/kernel_source.h"
#include "opencl/runtime.h"

namespace lrelu {
namespace {

using opencl::Cl;

constexpr cl_ulong kMaxChunkBytes = cl_ulong{256} << 20;
constexpr size_t kGroupSize = 64;

const PreluDeviceProblem& ProblemOf(const Plan& plan) {
  return *static_cast<const PreluDeviceProblem*>(plan.extension.get());
}

lrelu_status_t ClFail(const char* what, cl_int err) {
  return Fail(LRELU_STATUS_INTERNAL, "opencl: %s failed: %s", what,
              opencl::ErrorName(err).c_str());
}

lrelu_status_t PreluPlan(const lrelu_options_t& options, Plan* plan) {
  const PreluDeviceProblem& p = ProblemOf(*plan);
  // LeakyReLU's planning has checked the device index and built the
  // program (when x is not empty).
  const opencl::Device& device = *opencl::GetDevice(options.device);
  plan->device = device.name.c_str();
  // One kernel, one element per work-item: "auto" or "scalar".
  const char* variant = options.variant;
  if (variant != nullptr && std::strcmp(variant, "vec4") == 0) {
    return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
                "PReLU on backend opencl has the scalar kernel only (use "
                "auto or scalar)");
  }
  plan->variant = p.n == 0 ? "empty" : "scalar";
  if (p.n == 0) return LRELU_STATUS_OK;
  const cl_ulong alpha_bytes =
      static_cast<cl_ulong>(p.alpha_hi - p.alpha_lo + 1) * p.elem_size;
  if (alpha_bytes > device.max_alloc) {
    return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
                "alpha spans %llu bytes, more than OpenCL device '%s' can "
                "hold in one buffer; use the cpu backend",
                static_cast<unsigned long long>(alpha_bytes),
                device.name.c_str());
  }
  std::memcpy(plan->state, &options.device, sizeof(options.device));
  return LRELU_STATUS_OK;
}

struct CallObjects {
  cl_mem x = nullptr, y = nullptr, alpha = nullptr, dims = nullptr;
  cl_kernel kernel = nullptr;
  ~CallObjects() {
    if (kernel != nullptr) Cl().clReleaseKernel(kernel);
    for (cl_mem m : {x, y, alpha, dims}) {
      if (m != nullptr) Cl().clReleaseMemObject(m);
    }
  }
};

lrelu_status_t PreluExecute(const Plan& plan, void*, size_t,
                            const lrelu_thread_pool_t*) {
  const PreluDeviceProblem& p = ProblemOf(plan);
  if (p.n == 0) return LRELU_STATUS_OK;
  int device_index = 0;
  std::memcpy(&device_index, plan.state, sizeof(device_index));
  opencl::Session session;
  lrelu_status_t status = opencl::GetSession(device_index, &session);
  if (status != LRELU_STATUS_OK) return status;
  const opencl::Device& device = *opencl::GetDevice(device_index);

  const size_t elem = p.elem_size;
  const size_t n = static_cast<size_t>(p.n);
  const cl_ulong limit = std::min(device.max_alloc, kMaxChunkBytes);
  const size_t chunk = std::min(n, std::max<size_t>(1, limit / elem));
  const size_t alpha_count = static_cast<size_t>(p.alpha_hi - p.alpha_lo + 1);
  cl_ulong dims[4 * kPreluDeviceMaxDims] = {};
  for (int d = 0; d < p.rank; ++d) {
    dims[4 * d] = static_cast<cl_ulong>(p.extent[d]);
    dims[4 * d + 1] = p.magic[d];
    dims[4 * d + 2] = p.shift[d];
    dims[4 * d + 3] = static_cast<cl_ulong>(p.alpha_stride[d]);
  }

  CallObjects o;
  cl_int err = CL_SUCCESS;
  // y is copied in: in place (y == x) the kernel reads x from that buffer.
  const bool in_place = p.x == p.y;
  o.x = Cl().clCreateBuffer(session.context,
                            in_place ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY,
                            chunk * elem, nullptr, &err);
  if (err != CL_SUCCESS) return ClFail("clCreateBuffer", err);
  if (!in_place) {
    o.y = Cl().clCreateBuffer(session.context, CL_MEM_WRITE_ONLY, chunk * elem,
                              nullptr, &err);
    if (err != CL_SUCCESS) return ClFail("clCreateBuffer", err);
  }
  // alpha (its whole byte range) and dims: read before anything is written,
  // so the copies are blocking.
  o.alpha = Cl().clCreateBuffer(
      session.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
      alpha_count * elem,
      const_cast<char*>(static_cast<const char*>(p.alpha) +
                        p.alpha_lo * static_cast<int64_t>(elem)),
      &err);
  if (err != CL_SUCCESS) return ClFail("clCreateBuffer", err);
  o.dims = Cl().clCreateBuffer(session.context,
                               CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               sizeof(dims), dims, &err);
  if (err != CL_SUCCESS) return ClFail("clCreateBuffer", err);
  char name[24];
  std::snprintf(name, sizeof(name), "lrelu_prelu_%s", gpu::DTypeTag(p.dtype));
  o.kernel = Cl().clCreateKernel(session.program, name, &err);
  if (err != CL_SUCCESS) return ClFail(name, err);
  cl_mem y_buffer = in_place ? o.x : o.y;
  const cl_long alpha_base = p.alpha_base - p.alpha_lo;
  const cl_int rank = p.rank;
  err = Cl().clSetKernelArg(o.kernel, 0, sizeof(cl_mem), &o.x);
  err |= Cl().clSetKernelArg(o.kernel, 1, sizeof(cl_mem), &y_buffer);
  err |= Cl().clSetKernelArg(o.kernel, 4, sizeof(cl_mem), &o.alpha);
  err |= Cl().clSetKernelArg(o.kernel, 5, sizeof(alpha_base), &alpha_base);
  err |= Cl().clSetKernelArg(o.kernel, 6, sizeof(rank), &rank);
  err |= Cl().clSetKernelArg(o.kernel, 7, sizeof(cl_mem), &o.dims);
  if (err != CL_SUCCESS) return ClFail("clSetKernelArg", err);

  const auto* x = static_cast<const char*>(p.x);
  auto* y = static_cast<char*>(p.y);
  for (size_t begin = 0; begin < n; begin += chunk) {
    const size_t m = std::min(chunk, n - begin);
    err = Cl().clEnqueueWriteBuffer(session.queue, o.x, CL_FALSE, 0, m * elem,
                                    x + begin * elem, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) return ClFail("clEnqueueWriteBuffer", err);
    const cl_ulong count = m, first = begin;
    err = Cl().clSetKernelArg(o.kernel, 2, sizeof(count), &count);
    err |= Cl().clSetKernelArg(o.kernel, 3, sizeof(first), &first);
    if (err != CL_SUCCESS) return ClFail("clSetKernelArg", err);
    const size_t cap = size_t{device.compute_units} * 4096;
    const size_t local = std::min<size_t>(kGroupSize, device.max_group);
    const size_t groups = (std::min(m, cap) + local - 1) / local;
    const size_t global = groups * local;
    err = Cl().clEnqueueNDRangeKernel(session.queue, o.kernel, 1, nullptr,
                                      &global, &local, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) return ClFail("clEnqueueNDRangeKernel", err);
    err =
        Cl().clEnqueueReadBuffer(session.queue, y_buffer, CL_TRUE, 0, m * elem,
                                 y + begin * elem, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) return ClFail("clEnqueueReadBuffer", err);
  }
  return LRELU_STATUS_OK;
}

}  // namespace

const Backend* OpenClPreluBackend() {
  static const Backend backend = {"opencl", &PreluPlan, &PreluExecute};
  return &backend;
}

}  // namespace lrelu
