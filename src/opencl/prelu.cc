// PReLU forward on the OpenCL backend (api/prelu_device.h): host pointers
// like the LeakyReLU path, x and y copied in chunks, alpha copied whole (its
// byte range, or its elements where that range has gaps), one kernel of
// prelu.cl per chunk. The device checks (dtype, denormals, dense views) were
// made by LeakyReLU's planning on x and y.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

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

// Whether the walk's dims that move alpha (stride != 0) tile alpha's byte
// range [alpha_lo, alpha_hi] exactly, each element once: then that range is
// alpha's elements and nothing else. Otherwise alpha has gaps (a column of a
// wider matrix, a view with a large stride) or elements reached twice, and
// only its elements are copied (AlphaCopy): a gap may be memory the caller
// does not own, or more than a device buffer holds.
bool AlphaRangeIsDense(const PreluDeviceProblem& p) {
  std::vector<std::pair<int64_t, int64_t>> moving;  // |stride|, extent
  for (int d = 0; d < p.rank; ++d) {
    if (p.alpha_stride[d] != 0) {
      moving.emplace_back(std::llabs(p.alpha_stride[d]), p.extent[d]);
    }
  }
  std::sort(moving.begin(), moving.end());
  int64_t expect = 1;
  for (const auto& [stride, extent] : moving) {
    if (stride != expect) return false;
    expect *= extent;
  }
  return expect == p.alpha_hi - p.alpha_lo + 1;
}

// alpha's elements as the kernel reads them: its byte range where that is
// dense, else a compact copy in the walk's order (C order over the moving
// dims, outermost first) with the strides and base that address it.
struct AlphaCopy {
  const char* bytes = nullptr;  // what the device buffer is made from
  size_t count = 0;             // elements
  cl_long base = 0;             // element of x's run element 0
  int64_t stride[kPreluDeviceMaxDims] = {};
  std::unique_ptr<char[]> compact;
};

// Elements the device holds for alpha: its range where that is dense
// (AlphaRangeIsDense), or its elements.
size_t AlphaCount(const PreluDeviceProblem& p, bool dense) {
  if (dense) {
    return static_cast<size_t>(p.alpha_hi - p.alpha_lo + 1);
  }
  size_t count = 1;
  for (int d = 0; d < p.rank; ++d) {
    if (p.alpha_stride[d] != 0) count *= static_cast<size_t>(p.extent[d]);
  }
  return count;
}

lrelu_status_t MakeAlphaCopy(const PreluDeviceProblem& p, AlphaCopy* a) {
  const auto* alpha = static_cast<const char*>(p.alpha);
  const int64_t elem = static_cast<int64_t>(p.elem_size);
  const bool dense = AlphaRangeIsDense(p);
  a->count = AlphaCount(p, dense);
  if (dense) {
    a->bytes = alpha + p.alpha_lo * elem;
    a->base = p.alpha_base - p.alpha_lo;
    std::copy(p.alpha_stride, p.alpha_stride + p.rank, a->stride);
    return LRELU_STATUS_OK;
  }
  a->compact.reset(new (std::nothrow) char[a->count * p.elem_size]);
  if (a->compact == nullptr) {
    return Fail(LRELU_STATUS_OUT_OF_MEMORY,
                "out of memory copying alpha's %zu elements for OpenCL",
                a->count);
  }
  int64_t step = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    if (p.alpha_stride[d] != 0) {
      a->stride[d] = step;
      step *= p.extent[d];
    }
  }
  // An odometer over the moving dims: source p.alpha_base + sum i_d *
  // alpha_stride[d], destination sum i_d * stride[d] (= the element count
  // so far, in C order).
  int64_t index[kPreluDeviceMaxDims] = {};
  int64_t from = p.alpha_base;
  for (size_t k = 0; k < a->count; ++k) {
    std::memcpy(a->compact.get() + k * p.elem_size, alpha + from * elem,
                p.elem_size);
    for (int d = p.rank - 1; d >= 0; --d) {
      if (p.alpha_stride[d] == 0) continue;
      from += p.alpha_stride[d];
      if (++index[d] < p.extent[d]) break;
      from -= p.alpha_stride[d] * index[d];
      index[d] = 0;
    }
  }
  a->bytes = a->compact.get();
  a->base = 0;
  return LRELU_STATUS_OK;
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
      static_cast<cl_ulong>(AlphaCount(p, AlphaRangeIsDense(p))) * p.elem_size;
  if (alpha_bytes > device.max_alloc) {
    return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
                "alpha needs %llu bytes, more than OpenCL device '%s' can "
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
  AlphaCopy a;
  status = MakeAlphaCopy(p, &a);
  if (status != LRELU_STATUS_OK) return status;
  cl_ulong dims[4 * kPreluDeviceMaxDims] = {};
  for (int d = 0; d < p.rank; ++d) {
    dims[4 * d] = static_cast<cl_ulong>(p.extent[d]);
    dims[4 * d + 1] = p.magic[d];
    dims[4 * d + 2] = p.shift[d];
    dims[4 * d + 3] = static_cast<cl_ulong>(a.stride[d]);
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
  // alpha (AlphaCopy) and dims: read before anything is written, so the
  // copies are blocking.
  o.alpha = Cl().clCreateBuffer(
      session.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.count * elem,
      const_cast<char*>(a.bytes), &err);
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
  const cl_long alpha_base = a.base;
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
