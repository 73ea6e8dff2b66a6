// PReLU vec4, f32: a vec4<u32> word is four elements; alpha holds one f32
// per u32. Lane k of w with alpha element a[k].
fn prelu_word4(w: vec4<u32>, a: vec4<u32>) -> vec4<u32> {
  return vec4<u32>(lrelu_apply(w.x, w.x, alpha[a.x]),
                   lrelu_apply(w.y, w.y, alpha[a.y]),
                   lrelu_apply(w.z, w.z, alpha[a.z]),
                   lrelu_apply(w.w, w.w, alpha[a.w]));
}
