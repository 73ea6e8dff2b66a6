// PReLU, f32: a word is one element; alpha holds one f32 per u32.
fn prelu_word(w: u32, first: u32) -> u32 {
  return lrelu_apply(w, w, alpha[prelu_alpha_index(first)]);
}
