// f32: one element per u32. Strictly negative: sign set, not zero, not NaN
// (-inf counts).
fn lrelu_negative(b: u32) -> bool {
  return (b >> 31u) == 1u && (b & 0x7fffffffu) - 1u < 0x7f800000u;
}

// unary-scalar: a word is one element. alpha: f32 bits. The float multiply
// where it is exact, else the integer one (lrelu_mul, written out so that
// the common path has no branch).
fn lrelu_apply(v: u32, s: u32, alpha: u32) -> u32 {
  let negative = lrelu_negative(s);
  if (negative && !lrelu_float_exact(v, alpha)) {
    return lrelu_mul_int(v, alpha);
  }
  let product = bitcast<u32>(bitcast<f32>(v) * bitcast<f32>(alpha));
  return select(v, product, negative);
}
fn lrelu_merge(old: u32, r: u32, live: u32) -> u32 {
  return r;  // a one-element word is never partial
}

// unary-vec4: a word is four elements. The float multiply runs on the whole
// vector; only lanes where it may not be exact take the integer path.
fn lrelu_float_exact4(v: vec4<u32>, alpha: u32) -> vec4<bool> {
  let ev = (v >> vec4<u32>(23u)) & vec4<u32>(0xffu);
  let ea = (alpha >> 23u) & 0xffu;
  return (ev - vec4<u32>(1u) < vec4<u32>(254u)) & vec4<bool>(ea - 1u < 254u) &
      (ev + vec4<u32>(ea - 128u) <= vec4<u32>(251u));
}

fn lrelu_apply4(v: vec4<u32>, s: vec4<u32>, alpha: u32) -> vec4<u32> {
  let negative = ((s >> vec4<u32>(31u)) == vec4<u32>(1u)) &
      ((s & vec4<u32>(0x7fffffffu)) - vec4<u32>(1u) < vec4<u32>(0x7f800000u));
  let product = bitcast<vec4<u32>>(bitcast<vec4<f32>>(v) * bitcast<f32>(alpha));
  var r = select(v, product, negative);
  let integer = negative & !lrelu_float_exact4(v, alpha);
  if (any(integer)) {
    for (var i = 0u; i < 4u; i++) {
      if (integer[i]) {
        r[i] = lrelu_mul_int(v[i], alpha);
      }
    }
  }
  return r;
}
fn lrelu_merge4(old: vec4<u32>, r: vec4<u32>, live: u32) -> vec4<u32> {
  return select(old, r, vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(live));
}
