// PReLU forward on the CUDA backend (api/prelu_device.h): device pointers,
// stream-ordered like the LeakyReLU path (execute() returns at once). x and
// y were checked by LeakyReLU's planning on this backend (device, device
// pointers, alignment, dense views); alpha is checked here.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/backend.h"
#include "core/error.h"
#include "core/prelu_device_problem.h"
#include "cuda/backend_common.h"
#include "cuda/kernels.cuh"
#include "cuda/prelu_kernels.cuh"

namespace lrelu_cuda {

constexpr int kPreluThreads = 256;

template <class T>
__global__ void __launch_bounds__(kPreluThreads)
    PreluKernel(const typename T::Bits* x, typename T::Bits* y, long long n,
                const typename T::Bits* alpha, PreluDims dims) {
  Prelu<T>(x, y, n, alpha, dims);
}

}  // namespace lrelu_cuda

namespace lrelu {
namespace {

static_assert(kPreluDeviceMaxDims == lrelu_cuda::kPreluMaxDims,
              "one dimension limit");

struct PreluCudaState {
  int device;
  int blocks;
  cudaStream_t stream;
};
static_assert(sizeof(PreluCudaState) <= sizeof(Plan::state), "state");

const PreluDeviceProblem& ProblemOf(const Plan& plan) {
  return *static_cast<const PreluDeviceProblem*>(plan.extension.get());
}

// x, y and alpha must be device memory the device reads and
// element-aligned (a misaligned access would fault inside the kernel).
lrelu_status_t CheckPointers(const PreluDeviceProblem& p) {
  const struct {
    const void* data;
    const char* name;
  } operands[3] = {{p.x, "x"}, {p.y, "y"}, {p.alpha, "alpha"}};
  for (const auto& operand : operands) {
    const lrelu_status_t status =
        CheckDevicePointer(operand.data, operand.name);
    if (status != LRELU_STATUS_OK) return status;
    if (reinterpret_cast<uintptr_t>(operand.data) % p.elem_size != 0) {
      return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
                  "backend cuda needs element-aligned data, but %s.data "
                  "(%p) is not a multiple of %u bytes",
                  operand.name, operand.data,
                  static_cast<unsigned>(p.elem_size));
    }
  }
  return LRELU_STATUS_OK;
}

// lrelu_executor_bind: nothing else depends on the pointers.
lrelu_status_t PreluBind(Plan* plan) {
  const PreluDeviceProblem& p = ProblemOf(*plan);
  return p.n == 0 ? LRELU_STATUS_OK : CheckPointers(p);
}

lrelu_status_t PreluPlan(const lrelu_options_t& options, Plan* plan) {
  const PreluDeviceProblem& p = ProblemOf(*plan);
  plan->device = lrelu_device_name(LRELU_BACKEND_CUDA, options.device);
  if (plan->device == nullptr) plan->device = "";
  const char* variant = options.variant;
  if (variant != nullptr && std::strcmp(variant, "vec4") == 0) {
    return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
                "PReLU on backend cuda has the scalar kernel only (use auto "
                "or scalar)");
  }
  plan->variant = p.n == 0 ? "empty" : "scalar";
  if (p.n == 0) return LRELU_STATUS_OK;
  const lrelu_status_t status = CheckPointers(p);
  if (status != LRELU_STATUS_OK) return status;
  int sms = 1;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                             options.device) != cudaSuccess) {
    cudaGetLastError();
    sms = 1;
  }
  PreluCudaState state{};
  state.device = options.device;
  state.stream = static_cast<cudaStream_t>(options.stream);
  const long long wanted =
      (p.n + lrelu_cuda::kPreluThreads - 1) / lrelu_cuda::kPreluThreads;
  state.blocks = static_cast<int>(
      std::min<long long>(wanted, static_cast<long long>(sms) * 8));
  std::memcpy(plan->state, &state, sizeof(state));
  return LRELU_STATUS_OK;
}

template <class T>
void Launch(const PreluDeviceProblem& p, const lrelu_cuda::PreluDims& dims,
            const PreluCudaState& s) {
  typedef typename T::Bits Bits;
  lrelu_cuda::PreluKernel<T>
      <<<s.blocks, lrelu_cuda::kPreluThreads, 0, s.stream>>>(
          static_cast<const Bits*>(p.x), static_cast<Bits*>(p.y),
          static_cast<long long>(p.n), static_cast<const Bits*>(p.alpha), dims);
}

lrelu_status_t PreluExecute(const Plan& plan, void*, size_t,
                            const lrelu_thread_pool_t*) {
  const PreluDeviceProblem& p = ProblemOf(plan);
  if (p.n == 0) return LRELU_STATUS_OK;
  PreluCudaState state;
  std::memcpy(&state, plan.state, sizeof(state));
  lrelu_cuda::PreluDims dims{};
  dims.rank = p.rank;
  dims.alpha_base = p.alpha_base;
  for (int d = 0; d < p.rank; ++d) {
    dims.extent[d] = p.extent[d];
    dims.stride[d] = p.alpha_stride[d];
    dims.magic[d] = p.magic[d];
    dims.shift[d] = p.shift[d];
  }
  const cudaError_t err = LaunchOnDevice(state.device, [&] {
    switch (p.dtype) {
      case LRELU_DTYPE_FLOAT32:
        Launch<lrelu_cuda::F32>(p, dims, state);
        break;
      case LRELU_DTYPE_FLOAT16:
        Launch<lrelu_cuda::F16>(p, dims, state);
        break;
      case LRELU_DTYPE_BFLOAT16:
        Launch<lrelu_cuda::BF16>(p, dims, state);
        break;
      default:
        Launch<lrelu_cuda::F64>(p, dims, state);
        break;
    }
  });
  if (err != cudaSuccess) {
    return Fail(LRELU_STATUS_INTERNAL, "backend cuda: PReLU kernel launch: %s",
                cudaGetErrorString(err));
  }
  return LRELU_STATUS_OK;
}

}  // namespace

const Backend* CudaPreluBackend() {
  static const Backend backend = {
      "cuda",  &PreluPlan, &PreluExecute, PointerKind::kDevice,
      nullptr, nullptr,    nullptr,       &PreluBind};
  return &backend;
}

}  // namespace lrelu
