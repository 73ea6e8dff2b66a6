// bfloat16 times alpha rounded to nearest even, two values per 32-bit lane:
// the schedules of LeakyReLU's bfloat16 kernels (kernels-inl.h) and of
// PReLU's rows and planes (prelu_rows.cc), in 32-bit lanes on every target
// with full vectors and in 16-bit lanes on AVX-512 (Highway's AVX3 targets).

// Per-target include guard (Highway's -inl.h convention).
#if defined(LRELU_SRC_CPU_BFLOAT16_WORDS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LRELU_SRC_CPU_BFLOAT16_WORDS_INL_H_
#undef LRELU_SRC_CPU_BFLOAT16_WORDS_INL_H_
#else
#define LRELU_SRC_CPU_BFLOAT16_WORDS_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Rounds the float32 bits of every lane to nearest even in place (the
// result is in the high 16 bits). kMayBeNaN: NaN products (alpha NaN,
// -inf * 0) are made quiet and not rounded (a carry could reach the sign);
// without it a NaN's lower 16 bits must be clear.
template <bool kMayBeNaN, class DU32>
HWY_INLINE hn::Vec<DU32> RoundHighHalf(DU32 du, hn::Vec<DU32> u) {
  const auto odd = hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u));
  auto r = hn::Add(hn::Add(u, hn::Set(du, 0x7fffu)), odd);
  if (kMayBeNaN) {
    const hn::RebindToSigned<DU32> di;
    const auto nan =
        hn::Gt(hn::BitCast(di, hn::And(u, hn::Set(du, 0x7fffffffu))),
               hn::Set(di, 0x7f800000));
    r = hn::IfThenElse(hn::RebindMask(du, nan),
                       hn::Or(u, hn::Set(du, 0x00400000u)), r);
  }
  return r;
}

// v: bfloat16 values, two per 32-bit lane. Every value times its alpha,
// rounded to bfloat16: the even (low) values' products with alpha_even,
// the odd (high) ones' with alpha_odd, one float32 alpha per 32-bit lane.
// The high value is already a float32 once the low half is cleared, the low
// one once shifted up; OddEven puts the two rounded high halves back side by
// side: no widening, narrowing or lane crossing (Highway's
// ReorderDemote2To idea), 16 operations per 16 values with the sign test
// and the blend around it.
template <bool kMayBeNaN, class D>
HWY_INLINE hn::Vec<D> BFloat16PairProducts(
    D d, hn::Vec<D> v, hn::Vec<hn::Repartition<float, D>> alpha_even,
    hn::Vec<hn::Repartition<float, D>> alpha_odd) {
  const hn::Repartition<uint32_t, D> du;
  const hn::Repartition<float, D> df;
  const auto u = hn::BitCast(du, v);
  const auto high =
      hn::Mul(hn::BitCast(df, hn::And(u, hn::Set(du, 0xffff0000u))), alpha_odd);
  const auto low = hn::Mul(hn::BitCast(df, hn::ShiftLeft<16>(u)), alpha_even);
  const auto high_r = RoundHighHalf<kMayBeNaN>(du, hn::BitCast(du, high));
  const auto low_r =
      hn::ShiftRight<16>(RoundHighHalf<kMayBeNaN>(du, hn::BitCast(du, low)));
  return hn::OddEven(hn::BitCast(d, high_r), hn::BitCast(d, low_r));
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// v: 32 bfloat16 values, two per 32-bit lane. Returns v with the lanes in
// `negative` replaced by alpha * v rounded to bfloat16 (round to nearest
// even, subnormals kept): the even lanes' products with alpha_even, the odd
// lanes' with alpha_odd (each 16 float32 alphas, one per 32-bit lane). Any
// alpha but a NaN with bits in its lower 16: then no product is a NaN whose
// lower half is not zero (a product with a NaN alpha is that NaN, quieted;
// -inf * 0 the default NaN), which the rounding could carry into the sign.
//
// 13 vector operations per 32 values (against 16 for rounding each product
// in its own 32-bit lane and re-pairing): `high` holds each product's upper
// half (its truncation to bfloat16) in the value's own 16-bit lane, `low`
// its lower half; to nearest even adds one to `high` where low > 0x8000, or
// low == 0x8000 and `high` is odd: where (low | (high & 1)) > 0x8000 as
// unsigned. The carry of a finite `high` reaches at most inf's pattern
// (overflow, as the exact rounding gives).
HWY_INLINE __m512i BFloat16ScaledInWords(__m512i v, __mmask32 negative,
                                         __m512 alpha_even, __m512 alpha_odd) {
  const __m512i upper = _mm512_castps_si512(
      _mm512_mul_ps(_mm512_castsi512_ps(_mm512_and_si512(
                        v, _mm512_set1_epi32(static_cast<int>(0xffff0000u)))),
                    alpha_odd));
  const __m512i lower = _mm512_castps_si512(
      _mm512_mul_ps(_mm512_castsi512_ps(_mm512_slli_epi32(v, 16)), alpha_even));
  constexpr __mmask32 kOdd = 0xaaaaaaaau;  // the upper values' 16-bit lanes
  const __m512i high =
      _mm512_mask_blend_epi16(kOdd, _mm512_srli_epi32(lower, 16), upper);
  const __m512i low =
      _mm512_mask_blend_epi16(kOdd, lower, _mm512_slli_epi32(upper, 16));
  const __m512i one = _mm512_set1_epi16(1);
  // The dropped half with the kept half's parity in its last bit (0xf8:
  // A | (B & C)).
  const __m512i dropped = _mm512_ternarylogic_epi32(low, high, one, 0xf8);
  const __mmask32 up = _mm512_mask_cmpgt_epu16_mask(
      negative, dropped, _mm512_set1_epi16(static_cast<int16_t>(0x8000)));
  const __m512i y = _mm512_mask_blend_epi16(negative, v, high);
  return _mm512_mask_add_epi16(y, up, y, one);
}
#endif

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu::cpu
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
