// lrelu CUDA device code, contract v1: out = s < 0 ? alpha * v : v. The
// forward pass passes x as both v and s; the gradient passes dy as v.
//
// Works on raw storage bits: the sign test is an integer test and lanes
// that are not strictly negative are copied as bits, so +-0, +inf and every
// NaN pass through untouched. Every floating-point instruction is inline
// PTX (mul.rn.f32 / mul.rn.f64, cvt.rn.f16.f32, cvt.f32.f16): no compiler
// flag can flush, contract or approximate them, so the text emitted for
// NVRTC (lrelu_kernel_source) stays exact under --use_fast_math or
// -ftz=true. (__fmul_rn would not: it becomes mul.rn.ftz.f32 under -ftz.)
// bfloat16 rounds with integer RNE. No branches per lane: the product is
// computed for every lane and selected.
//
// Layout of a call of the "vec4" variant (in CUDA: 16-byte accesses, not
// 4 elements; Access16 below): the elements before the first 16-byte boundary
// of out ("head") and after the last one ("tail") are done one by one; the
// aligned body in between moves 16 bytes per load and store (uint4: 4
// float32, 8 float16/bfloat16 or 2 float64 lanes), kIlp vectors per thread
// and loop step with every load issued before the first store. The host
// picks it only when v, s and out share their address modulo 16; every
// pointer must be element-aligned (the host refuses others).
// Self-contained (no #include), so NVRTC compiles the emitted text as is.
#ifndef LRELU_SRC_CUDA_KERNELS_CUH_
#define LRELU_SRC_CUDA_KERNELS_CUH_

namespace lrelu_cuda {

typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

// ------------------------------------------------------- exact arithmetic

__device__ __forceinline__ float MulRn(float a, float b) {
  float r;
  asm("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ double MulRn(double a, double b) {
  double r;
  asm("mul.rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
  return r;
}
__device__ __forceinline__ float HalfBitsToFloat(u16 h) {  // exact
  float r;
  asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
  return r;
}
__device__ __forceinline__ u16 FloatToHalfBits(float f) {  // RNE, subnormals
  u16 r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}

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
    const u32 product = __float_as_uint(MulRn(__uint_as_float(v), alpha));
    return Negative32(s) ? product : v;
  }
};

struct F16 {
  typedef u16 Bits;
  typedef float Alpha;
  static __device__ __forceinline__ Bits Apply(Bits v, Bits s, float alpha) {
    const u16 product = FloatToHalfBits(MulRn(HalfBitsToFloat(v), alpha));
    return NegativeF16(s) ? product : v;
  }
};

struct BF16 {
  typedef u16 Bits;
  typedef float Alpha;
  static __device__ __forceinline__ Bits Apply(Bits v, Bits s, float alpha) {
    const u32 u = __float_as_uint(MulRn(__uint_as_float(u32{v} << 16), alpha));
    // RNE to the upper half; a NaN product stays NaN (quiet bit set).
    const u32 rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const u32 product =
        (u & 0x7fffffffu) > 0x7f800000u ? (u >> 16) | 0x40u : rounded;
    return NegativeBF16(s) ? static_cast<Bits>(product) : v;
  }
};

struct F64 {
  typedef u64 Bits;
  typedef double Alpha;
  static __device__ __forceinline__ Bits Apply(Bits v, Bits s, double alpha) {
    const u64 product = static_cast<u64>(__double_as_longlong(
        MulRn(__longlong_as_double(static_cast<long long>(v)), alpha)));
    return Negative64(s) ? product : v;
  }
};

// ------------------------------------------------------ 16-byte accesses

// kCacheDefault: plain ld/st. kCacheStreaming: ld.global.cs / st.global.cs
// (evict-first: each byte is touched once). Device pointers only.
enum { kCacheDefault = 0, kCacheStreaming = 1 };

template <int kCache>
__device__ __forceinline__ uint4 Load16(const uint4* p) {
  if (kCache == kCacheStreaming) {
    uint4 r;
    asm volatile("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
  }
  return *p;
}

template <int kCache>
__device__ __forceinline__ void Store16(uint4* p, uint4 v) {
  if (kCache == kCacheStreaming) {
    asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p),
                 "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  } else {
    *p = v;
  }
}

template <class T>
__device__ __forceinline__ uint4 Apply16(uint4 vb, const uint4& sb,
                                         typename T::Alpha alpha) {
  typedef typename T::Bits Bits;
  constexpr int kLanes = 16 / sizeof(Bits);
  Bits* lanes = reinterpret_cast<Bits*>(&vb);
  const Bits* signs = reinterpret_cast<const Bits*>(&sb);
#pragma unroll
  for (int k = 0; k < kLanes; ++k)
    lanes[k] = T::Apply(lanes[k], signs[k], alpha);
  return vb;
}

// ------------------------------------------------------------- kernels

// Every element one by one, grid-stride. kOneLoad: v == s (the forward
// pass), so x is loaded once.
template <class T, bool kOneLoad = false>
__device__ __forceinline__ void Scalar(const typename T::Bits* v,
                                       const typename T::Bits* s,
                                       typename T::Bits* out, long long n,
                                       typename T::Alpha alpha) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i =
           static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    const typename T::Bits vi = v[i];
    out[i] = T::Apply(vi, kOneLoad ? vi : s[i], alpha);
  }
}

// head elements one by one, then 16-byte vectors, then the tail one by one.
// head < 16 / sizeof(Bits); v + head, s + head, out + head are 16-byte
// aligned. kIlp vectors per thread per step, loads before stores.
template <class T, bool kOneLoad = false, int kIlp = 1,
          int kCache = kCacheDefault>
__device__ __forceinline__ void Access16(const typename T::Bits* v,
                                         const typename T::Bits* s,
                                         typename T::Bits* out, long long n,
                                         long long head,
                                         typename T::Alpha alpha) {
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
  // Full steps: all kIlp vectors of the thread exist, no bounds test inside.
  // (No 64-bit division: that would bring MUFU.RCP / F2I.FTZ into the SASS.)
  long long i = tid;
  for (; i + (kIlp - 1) * stride < vectors; i += stride * kIlp) {
    uint4 vb[kIlp];
    uint4 sb[kIlp];
#pragma unroll
    for (int k = 0; k < kIlp; ++k) {
      vb[k] = Load16<kCache>(v4 + i + k * stride);
      if (!kOneLoad) sb[k] = Load16<kCache>(s4 + i + k * stride);
    }
#pragma unroll
    for (int k = 0; k < kIlp; ++k) {
      Store16<kCache>(out4 + i + k * stride,
                      Apply16<T>(vb[k], kOneLoad ? vb[k] : sb[k], alpha));
    }
  }
  // The rest: fewer than stride * kIlp vectors, one at a time.
  for (; i < vectors; i += stride) {
    const uint4 vb = Load16<kCache>(v4 + i);
    const uint4 sb = kOneLoad ? vb : Load16<kCache>(s4 + i);
    Store16<kCache>(out4 + i, Apply16<T>(vb, sb, alpha));
  }
}

}  // namespace lrelu_cuda

#endif  // LRELU_SRC_CUDA_KERNELS_CUH_
