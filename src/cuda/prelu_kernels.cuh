// lrelu CUDA PReLU forward device code (contract ai.onnx.PRelu v1): y = x <
// 0 ? alpha * x : x with alpha broadcast to x. Comes after kernels.cuh
// (its per-element rules, T::Apply: integer sign test, bits passed through,
// one mul.rn, RNE to the storage type), so every element follows
// LeakyReLU's exact rule with its own alpha. No #include, like kernels.cuh.
//
// x and y are dense runs; element i takes alpha[alpha_base + sum_d
// digit_d(i) * stride_d] where digit_d are i's digits in the mixed radix of
// the extents (outermost first). Division by an extent is a multiply-high
// and a shift (magic numbers from the host): a division instruction would
// bring MUFU.RCP into the SASS, which cuda_code_check forbids.
#ifndef LRELU_SRC_CUDA_PRELU_KERNELS_CUH_
#define LRELU_SRC_CUDA_PRELU_KERNELS_CUH_

namespace lrelu_cuda {

enum { kPreluMaxDims = 8 };

struct PreluDims {
  int rank;
  long long alpha_base;
  long long extent[kPreluMaxDims];
  long long stride[kPreluMaxDims];  // alpha elements, signed
  unsigned long long magic[kPreluMaxDims];
  unsigned shift[kPreluMaxDims];
};

// alpha's element as the compute type (float16/bfloat16 widened exactly).
__device__ __forceinline__ float AlphaValue(F32, u32 b) {
  return __uint_as_float(b);
}
__device__ __forceinline__ float AlphaValue(F16, u16 b) {
  return HalfBitsToFloat(b);
}
__device__ __forceinline__ float AlphaValue(BF16, u16 b) {
  return __uint_as_float(u32{b} << 16);
}
__device__ __forceinline__ double AlphaValue(F64, u64 b) {
  return __longlong_as_double(static_cast<long long>(b));
}

__device__ __forceinline__ long long PreluAlphaIndex(unsigned long long i,
                                                     const PreluDims& d) {
  long long at = d.alpha_base;
  unsigned long long r = i;
  for (int k = d.rank - 1; k >= 0; --k) {
    const unsigned long long q = (__umul64hi(r, d.magic[k]) + r) >> d.shift[k];
    at += static_cast<long long>(
              r - q * static_cast<unsigned long long>(d.extent[k])) *
          d.stride[k];
    r = q;
  }
  return at;
}

// Every element one by one, grid-stride.
template <class T>
__device__ __forceinline__ void Prelu(const typename T::Bits* x,
                                      typename T::Bits* y, long long n,
                                      const typename T::Bits* alpha,
                                      const PreluDims& dims) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i =
           static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    const typename T::Bits v = x[i];
    const typename T::Alpha a = AlphaValue(
        T(), alpha[PreluAlphaIndex(static_cast<unsigned long long>(i), dims)]);
    y[i] = T::Apply(v, v, a);
  }
}

}  // namespace lrelu_cuda

#endif  // LRELU_SRC_CUDA_PRELU_KERNELS_CUH_
