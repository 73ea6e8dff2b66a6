// lrelu OpenCL kernels, contract v1: out = s < 0 ? alpha * v : v.
// The forward pass binds x as both v and s; the gradient binds dy as v.
//
// Every kernel works on raw storage bits: the sign test is an integer test
// (immune to denormals-are-zero), and lanes that are not strictly negative
// are copied as bits, so +-0, +inf and every NaN pass through untouched. Only
// the product alpha * v is computed in floating point: one float32 multiply
// (double for float64), never contracted (no FMA: this file needs no
// -cl-mad-enable and is built without it), then rounded to the storage type
// to nearest even. float16 uses the core vload_half / vstore_half_rte, so no
// cl_khr_fp16 is needed; bfloat16 rounds with integer code.
//
// Arguments of every kernel: v, v_offset, s, s_offset, out, out_offset (the
// offsets in elements), n (element count), alpha. Kernels loop over the grid
// (any global size works). The vec4 kernels use vload4/vstore4, which need
// only element alignment, so any offset works; the last n % 4 elements are
// done one by one by the first work-items.

// No contraction of a * b + c into an FMA anywhere in this file (there is
// no such expression today; this keeps it so).
#pragma OPENCL FP_CONTRACT OFF

#define LRELU_NEG32(b) \
  ((((b) & 0x7fffffffu) - 1u < 0x7f800000u) & ((b) >> 31 == 1u))

// ---------------------------------------------------------------- float32

inline uint lrelu_f32(uint v, uint s, float alpha) {
  const uint product = as_uint(as_float(v) * alpha);
  return LRELU_NEG32(s) ? product : v;
}

kernel void lrelu_f32_scalar(global const uint* v, ulong v_offset,
                             global const uint* s, ulong s_offset,
                             global uint* out, ulong out_offset, ulong n,
                             float alpha) {
  v += v_offset;
  s += s_offset;
  out += out_offset;
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    out[i] = lrelu_f32(v[i], s[i], alpha);
  }
}

kernel void lrelu_f32_vec4(global const uint* v, ulong v_offset,
                           global const uint* s, ulong s_offset,
                           global uint* out, ulong out_offset, ulong n,
                           float alpha) {
  v += v_offset;
  s += s_offset;
  out += out_offset;
  const ulong vectors = n / 4;
  for (ulong i = get_global_id(0); i < vectors; i += get_global_size(0)) {
    const uint4 vb = vload4(i, v);
    const uint4 sb = vload4(i, s);
    const uint4 product = as_uint4(as_float4(vb) * alpha);
    const int4 negative =
        ((sb & 0x7fffffffu) - 1u < 0x7f800000u) & (as_int4(sb) < 0);
    vstore4(select(vb, product, negative), i, out);
  }
  const ulong t = vectors * 4 + get_global_id(0);
  if (t < n) out[t] = lrelu_f32(v[t], s[t], alpha);
}

// ---------------------------------------------------------------- float16

// float16: +inf is 0x7c00.
inline int lrelu_neg16(ushort b) {
  return ((uint)(b & 0x7fffu) - 1u < 0x7c00u) & (b >> 15);
}

inline void lrelu_f16_one(global const ushort* v, global const ushort* s,
                          global ushort* out, ulong i, float alpha) {
  if (lrelu_neg16(s[i])) {
    vstore_half_rte(vload_half(i, (global const half*)v) * alpha, i,
                    (global half*)out);
  } else {
    out[i] = v[i];
  }
}

kernel void lrelu_f16_scalar(global const ushort* v, ulong v_offset,
                             global const ushort* s, ulong s_offset,
                             global ushort* out, ulong out_offset, ulong n,
                             float alpha) {
  v += v_offset;
  s += s_offset;
  out += out_offset;
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    lrelu_f16_one(v, s, out, i, alpha);
  }
}

kernel void lrelu_f16_vec4(global const ushort* v, ulong v_offset,
                           global const ushort* s, ulong s_offset,
                           global ushort* out, ulong out_offset, ulong n,
                           float alpha) {
  v += v_offset;
  s += s_offset;
  out += out_offset;
  const ulong vectors = n / 4;
  for (ulong i = get_global_id(0); i < vectors; i += get_global_size(0)) {
    const ushort4 vb = vload4(i, v);
    const ushort4 sb = vload4(i, s);
    const float4 product = vload_half4(i, (global const half*)v) * alpha;
    // Round the product to half bits in private memory, then select on bits.
    ushort rounded[4];
    vstore_half4_rte(product, 0, (private half*)rounded);
    const short4 negative =
        ((sb & (ushort)0x7fff) - (ushort)1 < (ushort)0x7c00) &
        (as_short4(sb) < (short)0);
    vstore4(select(vb, vload4(0, rounded), negative), i, out);
  }
  const ulong t = vectors * 4 + get_global_id(0);
  if (t < n) lrelu_f16_one(v, s, out, t, alpha);
}

// --------------------------------------------------------------- bfloat16

// Round float32 bits to bfloat16 bits, nearest even; NaN stays a (quiet) NaN.
inline uint lrelu_to_bf16(uint u) {
  const uint rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return (u & 0x7fffffffu) > 0x7f800000u ? (u >> 16) | 0x40u : rounded;
}

// bfloat16 has float32's exponent: +inf is 0x7f80.
inline int lrelu_neg_bf16(ushort b) {
  return ((uint)(b & 0x7fffu) - 1u < 0x7f80u) & (b >> 15);
}

inline ushort lrelu_bf16(ushort v, ushort s, float alpha) {
  const float product = as_float((uint)v << 16) * alpha;
  return lrelu_neg_bf16(s) ? (ushort)lrelu_to_bf16(as_uint(product)) : v;
}

kernel void lrelu_bf16_scalar(global const ushort* v, ulong v_offset,
                              global const ushort* s, ulong s_offset,
                              global ushort* out, ulong out_offset, ulong n,
                              float alpha) {
  v += v_offset;
  s += s_offset;
  out += out_offset;
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    out[i] = lrelu_bf16(v[i], s[i], alpha);
  }
}

kernel void lrelu_bf16_vec4(global const ushort* v, ulong v_offset,
                            global const ushort* s, ulong s_offset,
                            global ushort* out, ulong out_offset, ulong n,
                            float alpha) {
  v += v_offset;
  s += s_offset;
  out += out_offset;
  const ulong vectors = n / 4;
  for (ulong i = get_global_id(0); i < vectors; i += get_global_size(0)) {
    const ushort4 vb = vload4(i, v);
    const ushort4 sb = vload4(i, s);
    const uint4 u = as_uint4(as_float4(convert_uint4(vb) << 16) * alpha);
    const uint4 rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint4 quiet = (u >> 16) | 0x40u;
    const ushort4 product =
        convert_ushort4(select(rounded, quiet, (u & 0x7fffffffu) > 0x7f800000u));
    const short4 negative =
        ((sb & (ushort)0x7fff) - (ushort)1 < (ushort)0x7f80) &
        (as_short4(sb) < (short)0);
    vstore4(select(vb, product, negative), i, out);
  }
  const ulong t = vectors * 4 + get_global_id(0);
  if (t < n) out[t] = lrelu_bf16(v[t], s[t], alpha);
}

// ---------------------------------------------------------------- float64
// Only where the device has cl_khr_fp64; the host checks the extension.

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

inline ulong lrelu_f64(ulong v, ulong s, double alpha) {
  const ulong product = as_ulong(as_double(v) * alpha);
  const int negative = ((s & 0x7fffffffffffffffUL) - 1UL <
                        0x7ff0000000000000UL) & (s >> 63 == 1UL);
  return negative ? product : v;
}

kernel void lrelu_f64_scalar(global const ulong* v, ulong v_offset,
                             global const ulong* s, ulong s_offset,
                             global ulong* out, ulong out_offset, ulong n,
                             double alpha) {
  v += v_offset;
  s += s_offset;
  out += out_offset;
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    out[i] = lrelu_f64(v[i], s[i], alpha);
  }
}

kernel void lrelu_f64_vec4(global const ulong* v, ulong v_offset,
                           global const ulong* s, ulong s_offset,
                           global ulong* out, ulong out_offset, ulong n,
                           double alpha) {
  v += v_offset;
  s += s_offset;
  out += out_offset;
  const ulong vectors = n / 4;
  for (ulong i = get_global_id(0); i < vectors; i += get_global_size(0)) {
    const ulong4 vb = vload4(i, v);
    const ulong4 sb = vload4(i, s);
    const ulong4 product = as_ulong4(as_double4(vb) * alpha);
    const long4 negative =
        ((sb & 0x7fffffffffffffffUL) - 1UL < 0x7ff0000000000000UL) &
        (as_long4(sb) < 0L);
    vstore4(select(vb, product, negative), i, out);
  }
  const ulong t = vectors * 4 + get_global_id(0);
  if (t < n) out[t] = lrelu_f64(v[t], s[t], alpha);
}

#endif  // cl_khr_fp64
