// The OpenCL backend. Tensors hold HOST pointers: each call copies the inputs
// to device buffers, runs one kernel of lrelu.cl and copies the output back
// (in chunks when a tensor exceeds the device's largest buffer). That makes
// it a drop-in for the CPU path (CLI --backend opencl, tests on PoCL); it
// is not meant to keep data resident on a device. Views must be dense runs.
#include "core/backend.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/error.h"
#include "gpu_common/device_checks.h"
#include "gpu_common/kernel_source.h"
#include "opencl/runtime.h"

namespace lrelu {
namespace {

using opencl::Cl;

struct OpenClState {
  int device;
  char kernel[24];  // "lrelu_<dtype>_<variant>"
  bool vec4;
};
static_assert(sizeof(OpenClState) <= sizeof(Plan::state), "state too small");

// Largest buffer per operand: the device limit, but at most 256 MiB so
// that copies and the kernel of one chunk stay short.
constexpr cl_ulong kMaxChunkBytes = cl_ulong{256} << 20;

// Work-items per group (see the launch below).
constexpr size_t kGroupSize = 64;

lrelu_status_t OpenClPlan(const lrelu_options_t& options, Plan* plan) {
  const Problem& p = plan->problem;
  if (options.stream != nullptr) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "backend opencl takes host pointers and uses its own queue: "
                "options.stream must be NULL");
  }
  const Backend& backend = OpenClBackend();
  lrelu_status_t status = gpu::CheckDevice(backend, "OpenCL", options.device);
  if (status != LRELU_STATUS_OK) return status;
  const opencl::Device& device = *opencl::GetDevice(options.device);
  if (p.dtype == LRELU_DTYPE_FLOAT64 && !device.fp64) {
    return Fail(LRELU_STATUS_UNSUPPORTED_DTYPE,
                "OpenCL device '%s' has no cl_khr_fp64: float64 is not "
                "available on it",
                device.name.c_str());
  }
  // float32 and bfloat16 results can be float32 subnormals, which a device
  // without CL_FP_DENORM flushes to zero: refuse rather than be inexact.
  // (float16 rounds every float32 subnormal to +-0 anyway, and its inputs
  // are normal float32 values; float64 needs its own denormals.)
  const bool no_denormals = opencl::NoDenormalsForTesting();
  if ((p.dtype == LRELU_DTYPE_FLOAT32 || p.dtype == LRELU_DTYPE_BFLOAT16) &&
      (!device.denormals || no_denormals)) {
    return Fail(LRELU_STATUS_UNSUPPORTED_DTYPE,
                "OpenCL device '%s' flushes float32 denormals (no "
                "CL_FP_DENORM in CL_DEVICE_SINGLE_FP_CONFIG): %s results "
                "would not be exact on it; use the cpu backend",
                device.name.c_str(), lrelu_dtype_name(p.dtype));
  }
  if (p.dtype == LRELU_DTYPE_FLOAT64 && (!device.denormals64 || no_denormals)) {
    return Fail(LRELU_STATUS_UNSUPPORTED_DTYPE,
                "OpenCL device '%s' flushes float64 denormals (no "
                "CL_FP_DENORM in CL_DEVICE_DOUBLE_FP_CONFIG): float64 results "
                "would not be exact on it; use the cpu backend",
                device.name.c_str());
  }
  gpu::DeviceVariant variant;
  status = gpu::ParseDeviceVariant(backend, options.variant, &variant);
  if (status != LRELU_STATUS_OK) return status;
  status =
      gpu::RequireDense(backend, p,
                        "use the cpu backend, or copy to a contiguous tensor "
                        "first");
  if (status != LRELU_STATUS_OK) return status;
  // vec4: 4 elements per work-item access (OpenCL's vector types).
  const bool vec4 = variant != gpu::DeviceVariant::kScalar;
  OpenClState state{};
  state.device = options.device;
  state.vec4 = vec4;
  std::snprintf(state.kernel, sizeof(state.kernel), "lrelu_%s_%s",
                gpu::DTypeTag(p.dtype), vec4 ? "vec4" : "scalar");
  std::memcpy(plan->state, &state, sizeof(state));
  plan->variant = p.n == 0 ? "empty" : (vec4 ? "vec4" : "scalar");
  plan->device = device.name.c_str();
  plan->tasks = 1;
  plan->workspace_size = 0;
  if (p.n == 0) return LRELU_STATUS_OK;
  // Build the program now, so a build failure shows at planning time.
  opencl::Session session;
  return opencl::GetSession(options.device, &session);
}

// Releases what one execute() created, whatever path it leaves by.
struct CallObjects {
  cl_mem v = nullptr, s = nullptr, out = nullptr;
  cl_kernel kernel = nullptr;
  ~CallObjects() {
    if (kernel != nullptr) Cl().clReleaseKernel(kernel);
    if (out != nullptr) Cl().clReleaseMemObject(out);
    if (s != nullptr && s != v) Cl().clReleaseMemObject(s);
    if (v != nullptr) Cl().clReleaseMemObject(v);
  }
};

lrelu_status_t ClFail(const char* what, cl_int err) {
  return Fail(LRELU_STATUS_INTERNAL, "opencl: %s failed: %s", what,
              opencl::ErrorName(err).c_str());
}

lrelu_status_t OpenClExecute(const Plan& plan, void*, size_t,
                             const lrelu_thread_pool_t*) {
  const Problem& p = plan.problem;
  if (p.n == 0) return LRELU_STATUS_OK;
  OpenClState state;
  std::memcpy(&state, plan.state, sizeof(state));
  opencl::Session session;
  lrelu_status_t status = opencl::GetSession(state.device, &session);
  if (status != LRELU_STATUS_OK) return status;
  const opencl::Device& device = *opencl::GetDevice(state.device);

  const size_t elem = p.elem_size;
  const size_t n = static_cast<size_t>(p.n);
  const cl_ulong limit = std::min(device.max_alloc, kMaxChunkBytes);
  // A multiple of 4 elements, so every chunk but the last is whole vectors.
  const size_t chunk = std::min(n, std::max<size_t>(4, limit / elem / 4 * 4));
  const size_t chunk_bytes = chunk * elem;

  CallObjects o;
  cl_int err = CL_SUCCESS;
  o.v = Cl().clCreateBuffer(session.context, CL_MEM_READ_ONLY, chunk_bytes,
                            nullptr, &err);
  if (err != CL_SUCCESS) return ClFail("clCreateBuffer", err);
  const bool one_input = p.s == p.v;  // the forward pass: v and s are x
  o.s = one_input ? o.v
                  : Cl().clCreateBuffer(session.context, CL_MEM_READ_ONLY,
                                        chunk_bytes, nullptr, &err);
  if (err != CL_SUCCESS) return ClFail("clCreateBuffer", err);
  o.out = Cl().clCreateBuffer(session.context, CL_MEM_WRITE_ONLY, chunk_bytes,
                              nullptr, &err);
  if (err != CL_SUCCESS) return ClFail("clCreateBuffer", err);
  o.kernel = Cl().clCreateKernel(session.program, state.kernel, &err);
  if (err != CL_SUCCESS) return ClFail(state.kernel, err);

  const cl_ulong zero = 0;
  const float alpha32 = p.alpha32;  // rounded once (RNE, any FP environment)
  const double alpha64 = p.alpha;
  err = Cl().clSetKernelArg(o.kernel, 0, sizeof(cl_mem), &o.v);
  err |= Cl().clSetKernelArg(o.kernel, 1, sizeof(zero), &zero);
  err |= Cl().clSetKernelArg(o.kernel, 2, sizeof(cl_mem), &o.s);
  err |= Cl().clSetKernelArg(o.kernel, 3, sizeof(zero), &zero);
  err |= Cl().clSetKernelArg(o.kernel, 4, sizeof(cl_mem), &o.out);
  err |= Cl().clSetKernelArg(o.kernel, 5, sizeof(zero), &zero);
  if (p.dtype == LRELU_DTYPE_FLOAT64) {
    err |= Cl().clSetKernelArg(o.kernel, 7, sizeof(alpha64), &alpha64);
  } else {
    err |= Cl().clSetKernelArg(o.kernel, 7, sizeof(alpha32), &alpha32);
  }
  if (err != CL_SUCCESS) return ClFail("clSetKernelArg", err);

  const auto* v = static_cast<const char*>(p.v);
  const auto* s = static_cast<const char*>(p.s);
  auto* out = static_cast<char*>(p.out);
  for (size_t begin = 0; begin < n; begin += chunk) {
    const size_t m = std::min(chunk, n - begin);
    const size_t offset = begin * elem;
    // Non-blocking writes are safe: the queue is in order and the blocking
    // read below waits for them before the host memory is touched again.
    err = Cl().clEnqueueWriteBuffer(session.queue, o.v, CL_FALSE, 0, m * elem,
                                    v + offset, 0, nullptr, nullptr);
    if (err == CL_SUCCESS && !one_input) {
      err = Cl().clEnqueueWriteBuffer(session.queue, o.s, CL_FALSE, 0, m * elem,
                                      s + offset, 0, nullptr, nullptr);
    }
    if (err != CL_SUCCESS) return ClFail("clEnqueueWriteBuffer", err);
    const cl_ulong count = m;
    err = Cl().clSetKernelArg(o.kernel, 6, sizeof(count), &count);
    if (err != CL_SUCCESS) return ClFail("clSetKernelArg", err);
    // The kernels loop over the grid, so the grid only needs to fill the
    // device (and have the 4 work-items the vec4 tail needs). The group
    // size is fixed: PoCL compiles a kernel once per group size, and one it
    // chose itself would follow the element count.
    const size_t units = state.vec4 ? m / 4 : m;
    const size_t cap = size_t{device.compute_units} * 4096;
    const size_t local = std::min<size_t>(kGroupSize, device.max_group);
    const size_t groups =
        (std::max<size_t>(4, std::min(units, cap)) + local - 1) / local;
    const size_t global = groups * local;
    err = Cl().clEnqueueNDRangeKernel(session.queue, o.kernel, 1, nullptr,
                                      &global, &local, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) return ClFail("clEnqueueNDRangeKernel", err);
    err = Cl().clEnqueueReadBuffer(session.queue, o.out, CL_TRUE, 0, m * elem,
                                   out + offset, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) return ClFail("clEnqueueReadBuffer", err);
  }
  return LRELU_STATUS_OK;
}

int OpenClDeviceCount(std::string* why) { return opencl::DeviceCount(why); }

const char* OpenClDeviceName(int i) {
  const opencl::Device* d = opencl::GetDevice(i);
  return d != nullptr ? d->name.c_str() : nullptr;
}

}  // namespace

const Backend& OpenClBackend() {
  static const Backend backend = {
      "opencl",           &OpenClPlan,          &OpenClExecute,
      PointerKind::kHost, gpu::kDeviceVariants, &OpenClDeviceCount,
      &OpenClDeviceName};
  return backend;
}

}  // namespace lrelu
