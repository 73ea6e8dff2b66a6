// f32: one element per u32. Strictly negative: sign set, not zero, not NaN
// (-inf counts).
fn lrelu_negative(b: u32) -> bool {
  return (b >> 31u) == 1u && (b & 0x7fffffffu) - 1u < 0x7f800000u;
}

// unary-scalar: a word is one element. alpha: f32 bits.
fn lrelu_apply(v: u32, s: u32, alpha: u32) -> u32 {
  if (lrelu_negative(s)) {
    return lrelu_mul(v, alpha);
  }
  return v;
}
fn lrelu_merge(old: u32, r: u32, live: u32) -> u32 {
  return r;  // a one-element word is never partial
}

// unary-vec4: a word is four elements.
fn lrelu_apply4(v: vec4<u32>, s: vec4<u32>, alpha: u32) -> vec4<u32> {
  return vec4<u32>(lrelu_apply(v.x, s.x, alpha), lrelu_apply(v.y, s.y, alpha),
                   lrelu_apply(v.z, s.z, alpha), lrelu_apply(v.w, s.w, alpha));
}
fn lrelu_merge4(old: vec4<u32>, r: vec4<u32>, live: u32) -> vec4<u32> {
  return select(old, r, vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(live));
}
