// A standalone build of the CUDA kernels (kernels.cuh) for
// scripts/gpu-check.sh: a small shared library Python loads with ctypes and
// calls on torch's device pointers. It needs only nvcc, so the check runs even
// where lrelu's CPU dependencies (Highway, pthreadpool, GoogleTest) are not
// installed. Launch logic mirrors src/cuda/backend.cu: same kernels, same grid.
#include <cuda_runtime.h>

#include <cstdint>

#include "../../src/cuda/kernels.cuh"

namespace {

using namespace lrelu_cuda;

template <class T>
__global__ void ScalarKernel(const typename T::Bits* v,
                             const typename T::Bits* s, typename T::Bits* out,
                             long long n, typename T::Alpha a) {
  Scalar<T>(v, s, out, n, a);
}

template <class T>
__global__ void Vec4Kernel(const typename T::Bits* v, const typename T::Bits* s,
                           typename T::Bits* out, long long n, long long head,
                           typename T::Alpha a) {
  Vec4<T>(v, s, out, n, head, a);
}

template <class T>
int Launch(const void* v, const void* s, void* out, long long n, double alpha,
           int vec4, cudaStream_t stream) {
  typedef typename T::Bits Bits;
  static int sms = 0;
  if (sms == 0) {
    int device = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (sms < 1) sms = 1;
  }
  const auto o = reinterpret_cast<uintptr_t>(out);
  const bool same_phase = reinterpret_cast<uintptr_t>(v) % 16 == o % 16 &&
                          reinterpret_cast<uintptr_t>(s) % 16 == o % 16;
  const bool use_vec4 = vec4 && same_phase;
  const long long lanes = use_vec4 ? 16 / sizeof(Bits) : 1;
  long long units = n / lanes;
  if (units < 16) units = 16;
  long long blocks = (units + 255) / 256;
  if (blocks > sms * 8LL) blocks = sms * 8LL;
  const auto a = static_cast<typename T::Alpha>(alpha);
  if (use_vec4) {
    const long long head =
        static_cast<long long>((16 - o % 16) % 16 / sizeof(Bits));
    Vec4Kernel<T><<<static_cast<int>(blocks), 256, 0, stream>>>(
        static_cast<const Bits*>(v), static_cast<const Bits*>(s),
        static_cast<Bits*>(out), n, head, a);
  } else {
    ScalarKernel<T><<<static_cast<int>(blocks), 256, 0, stream>>>(
        static_cast<const Bits*>(v), static_cast<const Bits*>(s),
        static_cast<Bits*>(out), n, a);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

// dtype: 1 float32, 2 float16, 3 bfloat16, 4 float64 (lrelu_dtype_t).
// Returns the cudaError_t of the launch. Forward: pass x as v and s.
extern "C" int lrelu_harness_apply(int dtype, const void* v, const void* s,
                                   void* out, long long n, double alpha,
                                   int vec4, void* stream) {
  if (n <= 0) return 0;
  auto st = static_cast<cudaStream_t>(stream);
  switch (dtype) {
    case 1:
      return Launch<F32>(v, s, out, n, alpha, vec4, st);
    case 2:
      return Launch<F16>(v, s, out, n, alpha, vec4, st);
    case 3:
      return Launch<BF16>(v, s, out, n, alpha, vec4, st);
    case 4:
      return Launch<F64>(v, s, out, n, alpha, vec4, st);
    default:
      return -1;
  }
}
