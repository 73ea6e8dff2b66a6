// lrelu OpenCL PReLU forward kernels (contract ai.onnx.PRelu v1): y = x < 0
// ? alpha * x : x with alpha broadcast to x. Built in one program after
// lrelu.cl, whose per-element helpers (integer sign test, pass-through of
// bits, one float32 multiply or double for float64, RNE to the storage
// type) give every element LeakyReLU's exact rule with its own alpha.
//
// x and y are dense runs; element i (memory order) takes alpha element
// alpha_base + sum_d digit_d(first + i) * stride_d, where digit_d are the
// digits of the index in the mixed radix of the extents (outermost first).
// dims holds per dimension {extent, magic, shift, alpha stride (signed)}:
// q = (mul_hi(r, magic) + r) >> shift is r / extent for r < 2^63, with no
// division (api/prelu_device.cc computes them). alpha has x's dtype; a
// float16/bfloat16 alpha is widened to float32 exactly.
//
// Arguments: x, y (chunks starting at element `first` of the run), n (the
// chunk's element count), first, alpha, alpha_base, rank, dims. Any global
// size works (grid-stride loop).

#pragma OPENCL FP_CONTRACT OFF

inline long lrelu_prelu_alpha(ulong i, long alpha_base, int rank,
                              constant const ulong* dims) {
  long at = alpha_base;
  ulong r = i;
  for (int d = rank - 1; d >= 0; --d) {
    constant const ulong* dim = dims + 4 * d;
    const ulong q = (mul_hi(r, dim[1]) + r) >> dim[2];
    at += (long)(r - q * dim[0]) * (long)dim[3];
    r = q;
  }
  return at;
}

kernel void lrelu_prelu_f32(global const uint* x, global uint* y, ulong n,
                            ulong first, global const uint* alpha,
                            long alpha_base, int rank,
                            constant const ulong* dims) {
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    const float a =
        as_float(alpha[lrelu_prelu_alpha(first + i, alpha_base, rank, dims)]);
    const uint v = x[i];
    y[i] = lrelu_f32(v, v, a);
  }
}

kernel void lrelu_prelu_f16(global const ushort* x, global ushort* y, ulong n,
                            ulong first, global const ushort* alpha,
                            long alpha_base, int rank,
                            constant const ulong* dims) {
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    // vload_half widens exactly (core OpenCL, no cl_khr_fp16).
    const float a =
        vload_half(lrelu_prelu_alpha(first + i, alpha_base, rank, dims),
                   (global const half*)alpha);
    lrelu_f16_one(x, x, y, i, a);
  }
}

kernel void lrelu_prelu_bf16(global const ushort* x, global ushort* y,
                             ulong n, ulong first, global const ushort* alpha,
                             long alpha_base, int rank,
                             constant const ulong* dims) {
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    const float a = as_float(
        (uint)alpha[lrelu_prelu_alpha(first + i, alpha_base, rank, dims)]
        << 16);
    const ushort v = x[i];
    y[i] = lrelu_bf16(v, v, a);
  }
}

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

kernel void lrelu_prelu_f64(global const ulong* x, global ulong* y, ulong n,
                            ulong first, global const ulong* alpha,
                            long alpha_base, int rank,
                            constant const ulong* dims) {
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    const double a = as_double(
        alpha[lrelu_prelu_alpha(first + i, alpha_base, rank, dims)]);
    const ulong v = x[i];
    y[i] = lrelu_f64(v, v, a);
  }
}

#endif  // cl_khr_fp64
