// The CUDA backend. Tensors hold DEVICE pointers (cudaMalloc, managed or
// mapped memory); work is queued on options.stream (NULL: the legacy
// default stream) and execute() returns without waiting, like any CUDA
// library call. Views must be dense runs. Kernels: kernels.cuh.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/error.h"
#include "core/float32.h"
#include "cuda/backend_common.h"
#include "cuda/kernels.cuh"
#include "gpu_common/device_checks.h"

namespace lrelu_cuda {

// The kernels the backend launches; lrelu_kernel_source emits the same
// bodies behind extern "C" names for NVRTC users. kOneLoad: v == s (the
// forward pass), x is loaded once.
constexpr int kThreads = 256;
// 16-byte vectors per thread per loop step in the Access16 body (loads
// before stores).
// scripts/gpu-check.sh times 1, 2 and 4 (and the cache hints, blocks per
// SM, launch bounds) side by side; set these from its variant table.
constexpr int kIlp = 2;

template <class T, bool kOneLoad>
__global__ void __launch_bounds__(kThreads)
    ScalarKernel(const typename T::Bits* v, const typename T::Bits* s,
                 typename T::Bits* out, long long n, typename T::Alpha alpha) {
  Scalar<T, kOneLoad>(v, s, out, n, alpha);
}

template <class T, bool kOneLoad>
__global__ void __launch_bounds__(kThreads)
    Access16Kernel(const typename T::Bits* v, const typename T::Bits* s,
                   typename T::Bits* out, long long n, long long head,
                   typename T::Alpha alpha) {
  Access16<T, kOneLoad, kIlp>(v, s, out, n, head, alpha);
}

}  // namespace lrelu_cuda

namespace lrelu {
namespace {

using lrelu_cuda::kThreads;
// Blocks per SM: enough resident warps to cover memory latency; the kernels
// loop over the grid, so more would only add scheduling.
constexpr int kBlocksPerSm = 8;

struct CudaDevice {
  std::string name;
  int sm_count = 1;
};

struct CudaRegistry {
  std::string why;
  std::vector<CudaDevice> devices;
};

CudaRegistry& Registry() {
  static CudaRegistry* registry = [] {
    auto* r = new CudaRegistry();  // never destroyed
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      r->why =
          std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
      cudaGetLastError();  // clear the sticky-free error for later calls
      return r;
    }
    for (int i = 0; i < count; ++i) {
      cudaDeviceProp prop{};
      CudaDevice d;
      if (cudaGetDeviceProperties(&prop, i) == cudaSuccess) {
        d.name = prop.name;
        d.sm_count = std::max(1, prop.multiProcessorCount);
        d.name += " (sm_" + std::to_string(prop.major) +
                  std::to_string(prop.minor) + ")";
      } else {
        d.name = "CUDA device " + std::to_string(i);
      }
      r->devices.push_back(d);
    }
    if (count == 0) r->why = "cudaGetDeviceCount found 0 devices";
    return r;
  }();
  return *registry;
}

typedef void (*Launch)(const void* v, const void* s, void* out, long long n,
                       long long head, double alpha, int blocks,
                       cudaStream_t stream);

template <class T, bool kAccess16, bool kOneLoad>
void LaunchKernel(const void* v, const void* s, void* out, long long n,
                  long long head, double alpha, int blocks,
                  cudaStream_t stream) {
  typedef typename T::Bits Bits;
  // alpha is rounded to the compute type once, here (float: RNE, whatever
  // the caller's floating-point environment).
  const auto a = lrelu::AlphaFor(alpha, typename T::Alpha{});
  const auto* vb = static_cast<const Bits*>(v);
  const auto* sb = static_cast<const Bits*>(s);
  auto* ob = static_cast<Bits*>(out);
  if (kAccess16) {
    lrelu_cuda::Access16Kernel<T, kOneLoad>
        <<<blocks, kThreads, 0, stream>>>(vb, sb, ob, n, head, a);
  } else {
    lrelu_cuda::ScalarKernel<T, kOneLoad>
        <<<blocks, kThreads, 0, stream>>>(vb, sb, ob, n, a);
  }
}

struct CudaState {
  Launch launch;
  int device;
  int blocks;
  long long head;
  cudaStream_t stream;
  gpu::DeviceVariant requested;  // options.variant, for lrelu_executor_bind
};
static_assert(sizeof(CudaState) <= sizeof(Plan::state), "state too small");

template <class T>
Launch PickLaunchOf(bool access16, bool one_load) {
  if (access16) {
    return one_load ? &LaunchKernel<T, true, true>
                    : &LaunchKernel<T, true, false>;
  }
  return one_load ? &LaunchKernel<T, false, true>
                  : &LaunchKernel<T, false, false>;
}

Launch PickLaunch(lrelu_dtype_t dtype, bool access16, bool one_load) {
  using namespace lrelu_cuda;
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32:
      return PickLaunchOf<F32>(access16, one_load);
    case LRELU_DTYPE_FLOAT16:
      return PickLaunchOf<F16>(access16, one_load);
    case LRELU_DTYPE_BFLOAT16:
      return PickLaunchOf<BF16>(access16, one_load);
    case LRELU_DTYPE_FLOAT64:
      return PickLaunchOf<F64>(access16, one_load);
    default:
      break;
  }
  return nullptr;
}

// A pointer that is not a multiple of the element size (a float32 at an
// address = 2 mod 4) would fault inside the kernel with the sticky
// cudaErrorMisalignedAddress, which ruins the caller's context; refuse it
// here instead.
lrelu_status_t CheckElementAligned(const Problem& p) {
  const struct {
    const void* data;
    const char* name;
  } operands[3] = {
      {p.v, p.op == Op::kForward ? "x" : "dy"},
      {p.s, p.op == Op::kForward ? "x" : "x (or y)"},
      {p.out, p.op == Op::kForward ? "y" : "dx"},
  };
  for (const auto& operand : operands) {
    const auto address = reinterpret_cast<uintptr_t>(operand.data);
    if (address % p.elem_size != 0) {
      return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
                  "backend cuda needs element-aligned data, but %s.data (%p) "
                  "is %u bytes past a multiple of %u (%s); the cpu backend "
                  "takes any alignment",
                  operand.name, operand.data,
                  static_cast<unsigned>(address % p.elem_size),
                  static_cast<unsigned>(p.elem_size),
                  lrelu_dtype_name(p.dtype));
    }
  }
  return LRELU_STATUS_OK;
}

// What depends on the data pointers (plan->problem's): they must be device
// memory, element-aligned, and their phase modulo 16 bytes picks the access
// width, the kernel and the head. Planning and lrelu_executor_bind both end
// here; plan->state holds the device, stream and requested variant.
lrelu_status_t BindPointers(Plan* plan) {
  const Problem& p = plan->problem;
  CudaState state;
  std::memcpy(&state, plan->state, sizeof(state));
  if (p.n == 0) {
    plan->variant = "empty";
    return LRELU_STATUS_OK;
  }
  lrelu_status_t status = CheckDevicePointer(p.v, "v");
  if (status == LRELU_STATUS_OK) status = CheckDevicePointer(p.s, "s");
  if (status == LRELU_STATUS_OK) status = CheckDevicePointer(p.out, "out");
  if (status == LRELU_STATUS_OK) status = CheckElementAligned(p);
  if (status != LRELU_STATUS_OK) return status;

  // The "vec4" variant is, in CUDA, 16-byte accesses: they need v, s and
  // out at the same offset from a 16-byte boundary; otherwise (or when
  // asked) every element goes one by one.
  const auto out_address = reinterpret_cast<uintptr_t>(p.out);
  const bool same_phase =
      reinterpret_cast<uintptr_t>(p.v) % 16 == out_address % 16 &&
      reinterpret_cast<uintptr_t>(p.s) % 16 == out_address % 16;
  if (state.requested == gpu::DeviceVariant::kVec4 && !same_phase) {
    return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
                "variant 'vec4' needs x, y (dy, s, dx) at the same address "
                "modulo 16 bytes; use 'auto' or 'scalar'");
  }
  const bool access16 =
      state.requested != gpu::DeviceVariant::kScalar && same_phase;
  const CudaDevice& device =
      Registry().devices[static_cast<size_t>(state.device)];
  state.launch = PickLaunch(p.dtype, access16, p.v == p.s);
  state.head =
      access16
          ? static_cast<long long>((16 - out_address % 16) % 16 / p.elem_size)
          : 0;
  const long long lanes =
      access16 ? 16 / static_cast<long long>(p.elem_size) : 1;
  const long long units = std::max<long long>(p.n / lanes, 16);
  const long long wanted = (units + kThreads - 1) / kThreads;
  state.blocks = static_cast<int>(std::min<long long>(
      wanted, static_cast<long long>(device.sm_count) * kBlocksPerSm));
  std::memcpy(plan->state, &state, sizeof(state));
  plan->variant = access16 ? "vec4" : "scalar";
  return LRELU_STATUS_OK;
}

lrelu_status_t CudaPlan(const lrelu_options_t& options, Plan* plan) {
  const Problem& p = plan->problem;
  const Backend& backend = CudaBackend();
  lrelu_status_t status = gpu::CheckDevice(backend, "CUDA", options.device);
  if (status != LRELU_STATUS_OK) return status;
  gpu::DeviceVariant variant;
  status = gpu::ParseDeviceVariant(backend, options.variant, &variant);
  if (status != LRELU_STATUS_OK) return status;
  status = gpu::RequireDense(backend, p, "make them contiguous first");
  if (status != LRELU_STATUS_OK) return status;
  const CudaDevice& device =
      Registry().devices[static_cast<size_t>(options.device)];
  plan->device = device.name.c_str();
  plan->tasks = 1;
  plan->workspace_size = 0;
  CudaState state{};
  state.device = options.device;
  state.stream = static_cast<cudaStream_t>(options.stream);
  state.requested = variant;
  std::memcpy(plan->state, &state, sizeof(state));
  return BindPointers(plan);
}

lrelu_status_t CudaExecute(const Plan& plan, void*, size_t,
                           const lrelu_thread_pool_t*) {
  const Problem& p = plan.problem;
  if (p.n == 0) return LRELU_STATUS_OK;
  CudaState state;
  std::memcpy(&state, plan.state, sizeof(state));
  const cudaError_t err = LaunchOnDevice(state.device, [&] {
    state.launch(p.v, p.s, p.out, static_cast<long long>(p.n), state.head,
                 p.alpha, state.blocks, state.stream);
  });
  if (err != cudaSuccess) {
    return Fail(LRELU_STATUS_INTERNAL, "backend cuda: kernel launch: %s",
                cudaGetErrorString(err));
  }
  return LRELU_STATUS_OK;
}

int CudaDeviceCount(std::string* why) {
  CudaRegistry& r = Registry();
  if (why != nullptr) *why = r.why;
  return static_cast<int>(r.devices.size());
}

const char* CudaDeviceName(int i) {
  CudaRegistry& r = Registry();
  if (i < 0 || i >= static_cast<int>(r.devices.size())) return nullptr;
  return r.devices[static_cast<size_t>(i)].name.c_str();
}

}  // namespace

const Backend& CudaBackend() {
  static const Backend backend = {"cuda",
                                  &CudaPlan,
                                  &CudaExecute,
                                  PointerKind::kDevice,
                                  gpu::kDeviceVariants,
                                  &CudaDeviceCount,
                                  &CudaDeviceName,
                                  &BindPointers};
  return backend;
}

}  // namespace lrelu
