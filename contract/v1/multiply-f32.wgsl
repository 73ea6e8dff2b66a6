// alpha * v on f32 bit patterns, rounded to nearest even with subnormals,
// infinities and zeros as IEEE 754 has them. WGSL lets an implementation
// flush f32 subnormals and assume that float operations see no inf or NaN
// (SwiftShader flushes), so the float multiply is used only where the spec
// makes it exact: both operands normal and the product normal. Everything
// else is integer code. NaN results are as x86 makes them (contract v1
// accepts any NaN the product makes).

// A magnitude as (significand with bit 23 set, biased exponent; below 1 for
// subnormals). Zero gives significand 0 (the caller handles it).
fn lrelu_unpack(b: u32) -> vec2<i32> {
  let e = b >> 23u;
  let m = select(b & 0x7fffffu, (b & 0x7fffffu) | 0x800000u, e != 0u);
  let shift = countLeadingZeros(m) - 8u;  // 24 for zero
  return vec2<i32>(i32(m << shift), i32(max(e, 1u)) - i32(shift));
}

// Straight-line code (selects, no branches): on SIMD implementations every
// lane of a group runs the same instructions.
fn lrelu_mul_int(a: u32, b: u32) -> u32 {
  let sign = (a ^ b) & 0x80000000u;
  let ma = a & 0x7fffffffu;
  let mb = b & 0x7fffffffu;
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
  let q0 = xh * yh + (cross >> 12u) + (low >> 24u);
  let r0 = low & 0xffffffu;
  // Below 2^47 (q0 < 2^23): one more bit.
  let more = select(0u, 1u, q0 < 0x800000u);
  let q = (q0 << more) | ((r0 << more) >> 24u);
  let r = (r0 << more) & 0xffffffu;
  let e = x.y + y.y - 126 - i32(more);
  // The value is (q + r / 2^24) * 2^(e - 150). Below the normal range q
  // shifts right by k = 1 - e (at most 25: all of it is below half the
  // smallest subnormal then) and the exponent field is 0.
  let k = u32(clamp(1 - e, 0, 25));
  let shifted = k != 0u;
  let low_bits = (1u << k) - 1u;
  let rest = select(r, q & low_bits, shifted);
  let half = select(0x800000u, 1u << (k - 1u), shifted);
  let sticky = shifted && r != 0u;
  let kept = q >> k;
  let up = rest > half || (rest == half && (sticky || (kept & 1u) == 1u));
  // kept carries the implicit bit into the exponent field; a carry out of
  // the significand moves the exponent up, and past the largest finite is
  // inf.
  let field = u32(max(e, 1) - 1) << 23u;
  let finite = sign | min(field + kept + select(0u, 1u, up), 0x7f800000u);
  // Zeros, infinities and NaNs (as x86 gives them for b * a: b's NaN
  // quieted first, then a's; inf * 0 the default NaN).
  let zero = ma == 0u || mb == 0u;
  let inf = ma == 0x7f800000u || mb == 0x7f800000u;
  var out = select(finite, sign, zero);
  out = select(out, select(sign | 0x7f800000u, 0xffc00000u, zero), inf);
  out = select(out, a | 0x400000u, ma > 0x7f800000u);
  return select(out, b | 0x400000u, mb > 0x7f800000u);
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
