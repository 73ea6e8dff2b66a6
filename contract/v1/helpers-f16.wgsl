// f16: two elements per u32 (element 2k in the low half). Everything is
// integer code but the f32 multiply in lrelu_mul (multiply-f32.wgsl, which
// falls back to integer code where WGSL allows an implementation to flush or
// to ignore inf/NaN): widening f16 to f32 and rounding the product back
// (nearest even, subnormals kept) are written out, because WGSL leaves the
// rounding of f16(f32) to the implementation, and bit access to f16 values
// (bitcast of vec2<f16>) is not available in every compiler (naga in
// wgpu-native 0.29 rejects it). So this needs no `enable f16` and runs on
// adapters without the shader-f16 feature.

fn lrelu_negative(h: u32) -> bool {  // h: one element in the low 16 bits
  return (h & 0x8000u) != 0u && (h & 0x7fffu) - 1u < 0x7c00u;
}

// f16 bits -> f32 bits, exact for every non-NaN f16 (NaN is never negative,
// so never widened).
fn lrelu_f16_to_f32(h: u32) -> u32 {
  let sign = (h & 0x8000u) << 16u;
  let e = (h >> 10u) & 0x1fu;
  let m = h & 0x3ffu;
  if (e == 0u) {
    if (m == 0u) {
      return sign;
    }
    // Subnormal m * 2^-24: normalise so that bit 10 is the implicit bit.
    let shift = countLeadingZeros(m) - 21u;
    return sign | ((113u - shift) << 23u) | (((m << shift) & 0x3ffu) << 13u);
  }
  if (e == 31u) {
    return sign | 0x7f800000u | (m << 13u);
  }
  return sign | ((e + 112u) << 23u) | (m << 13u);
}

fn lrelu_f32_to_f16(u: u32) -> u32 {
  let sign = (u >> 16u) & 0x8000u;
  let a = u & 0x7fffffffu;
  if (a > 0x7f800000u) {
    return sign | 0x7e00u;  // NaN (any NaN may come out of the product)
  }
  if (a >= 0x477ff000u) {
    return sign | 0x7c00u;  // 65520 and above round to infinity
  }
  if (a >= 0x38800000u) {
    // Normal: rebias the exponent (127 - 15), round off 13 bits.
    return sign | ((a - 0x38000000u + 0xfffu + ((a >> 13u) & 1u)) >> 13u);
  }
  if (a <= 0x33000000u) {
    return sign;  // at most 2^-25: rounds to zero (a tie goes to even 0)
  }
  // Subnormal result, in units of 2^-24.
  let shift = 126u - (a >> 23u);
  let m = (a & 0x7fffffu) | 0x800000u;
  let q = m >> shift;
  let rest = m & ((1u << shift) - 1u);
  let halfway = 1u << (shift - 1u);
  let up = rest > halfway || (rest == halfway && (q & 1u) == 1u);
  return sign | (q + select(0u, 1u, up));
}

fn lrelu_one(v: u32, s: u32, alpha: u32) -> u32 {
  if (lrelu_negative(s)) {
    return lrelu_f32_to_f16(lrelu_mul(lrelu_f16_to_f32(v), alpha));
  }
  return v;
}

// unary-scalar: a word is two elements.
fn lrelu_apply(v: u32, s: u32, alpha: u32) -> u32 {
  let low = lrelu_one(v & 0xffffu, s & 0xffffu, alpha);
  let high = lrelu_one(v >> 16u, s >> 16u, alpha);
  return low | (high << 16u);
}
fn lrelu_merge(old: u32, r: u32, live: u32) -> u32 {
  return (r & 0xffffu) | (old & 0xffff0000u);  // live is 1
}

// unary-vec4: a word is four elements.
fn lrelu_apply4(v: vec2<u32>, s: vec2<u32>, alpha: u32) -> vec2<u32> {
  return vec2<u32>(lrelu_apply(v.x, s.x, alpha), lrelu_apply(v.y, s.y, alpha));
}
fn lrelu_merge4(old: vec2<u32>, r: vec2<u32>, live: u32) -> vec2<u32> {
  let mask = vec2<u32>(select(0xffffu, 0xffffffffu, live > 1u),
                       select(0u, 0xffffu, live > 2u));
  return (r & mask) | (old & ~mask);
}
