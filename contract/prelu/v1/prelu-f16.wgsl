// PReLU, f16: a word is two elements (element 2k in the low half); alpha
// holds two f16 per u32, widened to f32 exactly (lrelu_f16_to_f32).
fn prelu_alpha(k: u32) -> u32 {
  return lrelu_f16_to_f32((alpha[k >> 1u] >> ((k & 1u) * 16u)) & 0xffffu);
}
fn prelu_word(w: u32, first: u32) -> u32 {
  let low = lrelu_one(w & 0xffffu, w & 0xffffu,
                      prelu_alpha(prelu_alpha_index(first)));
  if (first + 1u >= params.n) {
    return low;  // the high lane is past n (merged away)
  }
  let high = lrelu_one(w >> 16u, w >> 16u,
                       prelu_alpha(prelu_alpha_index(first + 1u)));
  return low | (high << 16u);
}
