// PReLU vec4, f16: a vec2<u32> word is four elements (element 2j in the
// low half of u32 j); alpha holds two f16 per u32, widened to f32 exactly.
// Element k of w with alpha element a[k].
fn prelu_alpha4(k: u32) -> u32 {
  return lrelu_f16_to_f32((alpha[k >> 1u] >> ((k & 1u) * 16u)) & 0xffffu);
}
fn prelu_pair4(u: u32, low: u32, high: u32) -> u32 {
  let l = lrelu_one(u & 0xffffu, u & 0xffffu, prelu_alpha4(low));
  let h = lrelu_one(u >> 16u, u >> 16u, prelu_alpha4(high));
  return l | (h << 16u);
}
fn prelu_word4(w: vec2<u32>, a: vec4<u32>) -> vec2<u32> {
  return vec2<u32>(prelu_pair4(w.x, a.x, a.y), prelu_pair4(w.y, a.z, a.w));
}
