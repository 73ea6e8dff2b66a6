// lrelu CUDA device code, contract v1: out = s < 0 ? alpha * v : v. The
// forward pass passes x as both v and s; the gradient passes dy as v.
//
// Works on raw storage bits: the sign test is an integer test and lanes
// that are not strictly negative are copied as bits, so +-0, +inf and every
// NaN pass through untouched. The product is __fmul_rn / __dmul_rn, which
// nvcc never contracts into an FMA; the file is also built with
// -fmad=false -ftz=false -prec-div=true. float16 rounds with
// __float2half_rn (RNE, subnormals kept); bfloat16 with integer RNE.
//
// Layout of a call (see LRELU_CUDA_BODY): the elements before the first
// 16-byte boundary of out ("head") and after the last one ("tail") are done
// one by one; the aligned body in between moves 16 bytes per load and store
// (uint4: 4 float32, 8 float16/bfloat16 or 2 float64 lanes). The host picks
// the vec4 kernel only when v, s and out share their address modulo 16.
// Self-contained (only <cuda_fp16.h>), so NVRTC can compile the emitted text.
#ifndef LRELU_SRC_CUDA_KERNELS_CUH_
#define LRELU_SRC_CUDA_KERNELS_CUH_

#include <cuda_fp16.h>

namespace lrelu_cuda {

typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

// ---------------------------------------------------------- one element

__device__ __forceinline__ bool Negative32(u32 b) {
  return (b >> 31) != 0u && (b & 0x7fffffffu) - 1u < 0x7f800000u;
}
__device__ __forceinline__ bool NegativeF16(u32 b) {
  return (b & 0x8000u) != 0u && (b & 0x7fffu) - 1u < 0x7c00u;
}
__device__ __forceinline__ bool NegativeBF16(u32 b) {
  return (b & 0x8000u) != 0u && (b & 0x7fffu) - 1u < 0x7f80u;
}
__device__ __forceinline__ bool Negative64(u64 b) {
  return (b >> 63) != 0ull &&
         (b & 0x7fffffffffffffffull) - 1ull < 0x7ff0000000000000ull;
}

struct F32 {
  typedef u32 Bits;
  typedef float Alpha;
  static __device__ __forceinline__ Bits Apply(Bits v, Bits s, float alpha) {
    const float product = __fmul_rn(__uint_as_float(v), alpha);
    return Negative32(s) ? __float_as_uint(product) : v;
  }
};

struct F16 {
  typedef u16 Bits;
  typedef float Alpha;
  static __device__ __forceinline__ Bits Apply(Bits v, Bits s, float alpha) {
    if (!NegativeF16(s)) return v;
    const float wide = __half2float(__ushort_as_half(v));  // exact
    return __half_as_ushort(__float2half_rn(__fmul_rn(wide, alpha)));
  }
};

struct BF16 {
  typedef u16 Bits;
  typedef float Alpha;
  static __device__ __forceinline__ Bits Apply(Bits v, Bits s, float alpha) {
    if (!NegativeBF16(s)) return v;
    const u32 u =
        __float_as_uint(__fmul_rn(__uint_as_float(u32{v} << 16), alpha));
    if ((u & 0x7fffffffu) > 0x7f800000u)
      return static_cast<Bits>((u >> 16) | 0x40u);
    return static_cast<Bits>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
};

struct F64 {
  typedef u64 Bits;
  typedef double Alpha;
  static __device__ __forceinline__ Bits Apply(Bits v, Bits s, double alpha) {
    const double product =
        __dmul_rn(__longlong_as_double(static_cast<long long>(v)), alpha);
    return Negative64(s) ? static_cast<u64>(__double_as_longlong(product)) : v;
  }
};

// ------------------------------------------------------------- kernels

// Every element one by one, grid-stride.
template <class T>
__device__ __forceinline__ void Scalar(const typename T::Bits* v,
                                       const typename T::Bits* s,
                                       typename T::Bits* out, long long n,
                                       typename T::Alpha alpha) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i =
           static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    out[i] = T::Apply(v[i], s[i], alpha);
  }
}

// head elements one by one, then 16-byte vectors, then the tail one by one.
// head < 16 / sizeof(Bits); v + head, s + head, out + head are 16-byte aligned.
template <class T>
__device__ __forceinline__ void Vec4(const typename T::Bits* v,
                                     const typename T::Bits* s,
                                     typename T::Bits* out, long long n,
                                     long long head, typename T::Alpha alpha) {
  typedef typename T::Bits Bits;
  constexpr int kLanes = 16 / sizeof(Bits);
  const long long tid =
      static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  if (head > n) head = n;
  const long long vectors = (n - head) / kLanes;
  const long long body_end = head + vectors * kLanes;
  if (tid < head) out[tid] = T::Apply(v[tid], s[tid], alpha);
  if (tid < n - body_end) {
    const long long t = body_end + tid;
    out[t] = T::Apply(v[t], s[t], alpha);
  }
  const uint4* v4 = reinterpret_cast<const uint4*>(v + head);
  const uint4* s4 = reinterpret_cast<const uint4*>(s + head);
  uint4* out4 = reinterpret_cast<uint4*>(out + head);
  for (long long i = tid; i < vectors; i += stride) {
    uint4 vb = v4[i];
    const uint4 sb = s4[i];
    Bits* lanes = reinterpret_cast<Bits*>(&vb);
    const Bits* signs = reinterpret_cast<const Bits*>(&sb);
#pragma unroll
    for (int k = 0; k < kLanes; ++k)
      lanes[k] = T::Apply(lanes[k], signs[k], alpha);
    out4[i] = vb;
  }
}

}  // namespace lrelu_cuda

#endif  // LRELU_SRC_CUDA_KERNELS_CUH_
