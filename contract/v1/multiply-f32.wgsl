// alpha * v on f32 bit patterns, rounded to nearest even with subnormals,
// infinities and zeros as IEEE 754 has them. WGSL lets an implementation
// flush f32 subnormals and assume that float operations see no inf or NaN
// (SwiftShader flushes), so the float multiply is used only where the spec
// makes it exact: both operands normal and the product normal. Everything
// else is integer code. NaN results are as x86 makes them (contract v1
// accepts any NaN the product makes).

// A finite nonzero magnitude as (significand with bit 23 set, biased
// exponent; below 1 for subnormals).
fn lrelu_unpack(b: u32) -> vec2<i32> {
  let e = i32(b >> 23u);
  let m = b & 0x7fffffu;
  if (e != 0) {
    return vec2<i32>(i32(m | 0x800000u), e);
  }
  let shift = countLeadingZeros(m) - 8u;
  return vec2<i32>(i32(m << shift), 1 - i32(shift));
}

fn lrelu_mul_int(a: u32, b: u32) -> u32 {
  let sign = (a ^ b) & 0x80000000u;
  let ma = a & 0x7fffffffu;
  let mb = b & 0x7fffffffu;
  // A NaN operand comes out quieted, b's first: what x86 gives for b * a.
  if (mb > 0x7f800000u) {
    return b | 0x400000u;
  }
  if (ma > 0x7f800000u) {
    return a | 0x400000u;
  }
  if (ma == 0x7f800000u || mb == 0x7f800000u) {
    // inf * 0 is the default NaN, inf * anything else inf.
    return select(sign | 0x7f800000u, 0xffc00000u, ma == 0u || mb == 0u);
  }
  if (ma == 0u || mb == 0u) {
    return sign;
  }
  let x = lrelu_unpack(ma);
  let y = lrelu_unpack(mb);
  // The 48-bit product of the significands as q * 2^24 + r, from 12-bit
  // halves so that no partial product exceeds 25 bits.
  let xh = u32(x.x) >> 12u;
  let xl = u32(x.x) & 0xfffu;
  let yh = u32(y.x) >> 12u;
  let yl = u32(y.x) & 0xfffu;
  let cross = xh * yl + xl * yh;
  let low = xl * yl + ((cross & 0xfffu) << 12u);
  var q = xh * yh + (cross >> 12u) + (low >> 24u);
  var r = low & 0xffffffu;
  var e = x.y + y.y - 126;
  if (q < 0x800000u) {  // the product is below 2^47: one more bit
    q = (q << 1u) | (r >> 23u);
    r = (r << 1u) & 0xffffffu;
    e = e - 1;
  }
  // The value is (q + r / 2^24) * 2^(e - 150). Below the normal range q
  // shifts right by k = 1 - e and the exponent field is 0.
  var rest = r;
  var half = 0x800000u;
  var sticky = false;
  if (e < 1) {
    let k = u32(1 - e);
    if (k > 24u) {
      return sign;  // below half the smallest subnormal
    }
    rest = q & ((1u << k) - 1u);
    half = 1u << (k - 1u);
    sticky = r != 0u;
    q = q >> k;
    e = 1;
  }
  let up = rest > half || (rest == half && (sticky || (q & 1u) == 1u));
  // q carries the implicit bit into the exponent field; a carry out of the
  // significand moves the exponent up, and past the largest finite is inf.
  let magnitude = (u32(e - 1) << 23u) + q + select(0u, 1u, up);
  return sign | min(magnitude, 0x7f800000u);
}

// Where the float multiply of a by b is exact: both normal, and
// 128 <= ea + eb <= 379 so that the rounded product is normal (not
// subnormal, not inf); there WGSL's f32 multiply is correctly rounded.
fn lrelu_float_exact(a: u32, b: u32) -> bool {
  let ea = (a >> 23u) & 0xffu;
  let eb = (b >> 23u) & 0xffu;
  return ea - 1u < 254u && eb - 1u < 254u && ea + eb - 128u <= 251u;
}

fn lrelu_mul(a: u32, b: u32) -> u32 {
  if (lrelu_float_exact(a, b)) {
    return bitcast<u32>(bitcast<f32>(a) * bitcast<f32>(b));
  }
  return lrelu_mul_int(a, b);
}
