// Exact float16/bfloat16 <-> float32 conversions in Highway ops, for every
// target. Highway 1.0.3's own float16 conversion is inexact below AVX2 and its
// bfloat16 demotion truncates; the AVX-512 BF16 instruction flushes
// subnormals. These round to nearest even and keep subnormals everywhere.
// Only lanes holding negative finite values or -inf need to be right for the
// kernels (everything else passes through as raw bits), but the functions are
// exact for every non-NaN input; NaN becomes some NaN.

// Per-target include guard (Highway's -inl.h convention).
#if defined(LRELU_SRC_CPU_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LRELU_SRC_CPU_CONVERT_INL_H_
#undef LRELU_SRC_CPU_CONVERT_INL_H_
#else
#define LRELU_SRC_CPU_CONVERT_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// F16C (part of Highway's AVX2 and AVX3 targets) converts exactly, with
// round-to-nearest-even, and is much faster than integer emulation.
#undef LRELU_HAVE_F16C
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || \
    HWY_TARGET == HWY_AVX3_DL
#define LRELU_HAVE_F16C 1
#else
#define LRELU_HAVE_F16C 0
#endif

// float16 bits (u16 lanes) -> float32.
template <class DF>
HWY_INLINE hn::Vec<DF> HalfBitsToFloat(DF df,
                                       hn::Vec<hn::Rebind<uint16_t, DF>> h) {
#if LRELU_HAVE_F16C
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(df, hn::BitCast(dh, h));
#else
  // Shift exponent and mantissa into place and rebias; infinity and NaN get
  // the float32 maximum exponent; subnormals are renormalised by an exact
  // float subtraction (Sterbenz), so no float32 subnormal ever appears.
  const hn::RebindToUnsigned<DF> du;
  const auto u = hn::PromoteTo(du, h);
  const auto shifted = hn::ShiftLeft<13>(hn::And(u, hn::Set(du, 0x7fffu)));
  const auto exponent = hn::And(shifted, hn::Set(du, 0x0f800000u));
  auto o = hn::Add(shifted, hn::Set(du, (127u - 15u) << 23));
  o = hn::IfThenElse(hn::Eq(exponent, hn::Set(du, 0x0f800000u)),
                     hn::Add(o, hn::Set(du, (128u - 16u) << 23)), o);
  const auto renormalised = hn::BitCast(
      du, hn::Sub(hn::BitCast(df, hn::Add(o, hn::Set(du, 1u << 23))),
                  hn::BitCast(df, hn::Set(du, 113u << 23))));
  o = hn::IfThenElse(hn::Eq(exponent, hn::Zero(du)), renormalised, o);
  o = hn::Or(o, hn::ShiftLeft<16>(hn::And(u, hn::Set(du, 0x8000u))));
  return hn::BitCast(df, o);
#endif
}

// float32 -> float16 bits (u16 lanes), round to nearest even.
template <class D16>
HWY_INLINE hn::Vec<D16> FloatToHalfBits(D16 d16,
                                        hn::Vec<hn::Rebind<float, D16>> f) {
#if LRELU_HAVE_F16C
  const hn::Rebind<hwy::float16_t, D16> dh;
  return hn::BitCast(d16, hn::DemoteTo(dh, f));
#else
  const hn::Rebind<float, D16> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::RebindToSigned<decltype(df)> di;
  const auto u = hn::BitCast(du, f);
  const auto sign = hn::And(u, hn::Set(du, 0x80000000u));
  const auto a = hn::Xor(u, sign);  // |f|
  const auto ai = hn::BitCast(di, a);
  // |f| >= 2^16 is infinity (or NaN); values just below round up to
  // infinity through the carry of the normal path.
  const auto huge =
      hn::Gt(ai, hn::Set(di, static_cast<int32_t>((143u << 23) - 1)));
  const auto nan = hn::Gt(ai, hn::Set(di, 0x7f800000));
  const auto o_huge = hn::IfThenElse(
      hn::RebindMask(du, nan), hn::Set(du, 0x7e00u), hn::Set(du, 0x7c00u));
  // |f| < 2^-14 is a float16 subnormal: adding 0.5 leaves the value rounded
  // to a multiple of 2^-24 (the smallest subnormal) in the low mantissa bits.
  const auto tiny = hn::Lt(ai, hn::Set(di, static_cast<int32_t>(113u << 23)));
  const auto o_tiny =
      hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(df, a), hn::Set(df, 0.5f))),
              hn::Set(du, 126u << 23));
  // Normal: rebias, then add 0xfff plus the lowest kept bit for ties to even.
  const auto odd = hn::And(hn::ShiftRight<13>(a), hn::Set(du, 1u));
  const auto o_normal =
      hn::ShiftRight<13>(hn::Add(hn::Add(a, hn::Set(du, 0xc8000fffu)), odd));
  auto o = hn::IfThenElse(hn::RebindMask(du, tiny), o_tiny, o_normal);
  o = hn::IfThenElse(hn::RebindMask(du, huge), o_huge, o);
  o = hn::Or(o, hn::ShiftRight<16>(sign));
  return hn::DemoteTo(d16, hn::BitCast(di, o));
#endif
}

// bfloat16 bits (u16 lanes) -> float32: exact by construction.
template <class DF>
HWY_INLINE hn::Vec<DF> BFloat16BitsToFloat(
    DF df, hn::Vec<hn::Rebind<uint16_t, DF>> b) {
  const hn::RebindToUnsigned<DF> du;
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, b)));
}

// float32 -> bfloat16 bits, round to nearest even, subnormals kept, NaN quiet
// (kMayBeNaN = false: the caller knows no lane that matters is NaN).
template <bool kMayBeNaN, class D16>
HWY_INLINE hn::Vec<D16> FloatToBFloat16Bits(D16 d16,
                                            hn::Vec<hn::Rebind<float, D16>> f) {
  const hn::Rebind<float, D16> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::RebindToSigned<decltype(df)> di;
  const auto u = hn::BitCast(du, f);
  const auto odd = hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u));
  const auto rounded =
      hn::ShiftRight<16>(hn::Add(hn::Add(u, hn::Set(du, 0x7fffu)), odd));
  if (!kMayBeNaN) return hn::DemoteTo(d16, hn::BitCast(di, rounded));
  const auto nan = hn::Gt(hn::BitCast(di, hn::And(u, hn::Set(du, 0x7fffffffu))),
                          hn::Set(di, 0x7f800000));
  const auto quiet = hn::Or(hn::ShiftRight<16>(u), hn::Set(du, 0x40u));
  const auto o = hn::IfThenElse(hn::RebindMask(du, nan), quiet, rounded);
  return hn::DemoteTo(d16, hn::BitCast(di, o));
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu::cpu
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
