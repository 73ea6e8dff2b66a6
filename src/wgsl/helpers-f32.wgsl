// f32: one element per u32. Strictly negative: sign set, not zero, not NaN
// (-inf counts).
fn lrelu_negative(b: u32) -> bool {
  return (b >> 31u) == 1u && (b & 0x7fffffffu) - 1u < 0x7f800000u;
}

// unary-scalar: a word is one element.
fn lrelu_apply(v: u32, s: u32, alpha: f32) -> u32 {
  return select(v, bitcast<u32>(bitcast<f32>(v) * alpha), lrelu_negative(s));
}
fn lrelu_merge(old: u32, r: u32, live: u32) -> u32 {
  return r;  // a one-element word is never partial
}

// unary-vec4: a word is four elements.
fn lrelu_apply4(v: vec4<u32>, s: vec4<u32>, alpha: f32) -> vec4<u32> {
  let negative = (s >> vec4<u32>(31u)) == vec4<u32>(1u) &
      (s & vec4<u32>(0x7fffffffu)) - vec4<u32>(1u) < vec4<u32>(0x7f800000u);
  return select(v, bitcast<vec4<u32>>(bitcast<vec4<f32>>(v) * alpha), negative);
}
fn lrelu_merge4(old: vec4<u32>, r: vec4<u32>, live: u32) -> vec4<u32> {
  return select(old, r, vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(live));
}
