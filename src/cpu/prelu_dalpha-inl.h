// x and dy widened exactly to float64 lanes, per storage dtype, for PReLU's
// dalpha kernels (prelu_dalpha.cc, prelu_dalpha_ulp.cc,
// prelu_dalpha_bound.cc).

// Per-target include guard (Highway's -inl.h convention).
#if defined(LRELU_SRC_CPU_PRELU_DALPHA_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LRELU_SRC_CPU_PRELU_DALPHA_INL_H_
#undef LRELU_SRC_CPU_PRELU_DALPHA_INL_H_
#else
#define LRELU_SRC_CPU_PRELU_DALPHA_INL_H_
#endif

#include <cstdint>

#include "cpu/convert-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

struct LoadF32 {
  using T = float;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const float* p) {
    return hn::PromoteTo(d, hn::LoadU(hn::Rebind<float, D>(), p));
  }
};
// Lanes(df) float16 (kHalf) or bfloat16 values at p as float32 lanes.
template <bool kHalf, class DF>
HWY_INLINE hn::Vec<DF> SixteenToFloat(DF df, const uint16_t* p) {
  const auto bits = hn::LoadU(hn::Rebind<uint16_t, DF>(), p);
  return kHalf ? HalfBitsToFloat(df, bits) : BFloat16BitsToFloat(df, bits);
}
template <bool kHalf>
struct Load16 {
  using T = uint16_t;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const uint16_t* p) {
    return hn::PromoteTo(d, SixteenToFloat<kHalf>(hn::Rebind<float, D>(), p));
  }
};

// x * dy where x < 0, else +0: exact in float64.
template <class L, class D>
HWY_INLINE hn::Vec<D> NegativeProduct(D d, const typename L::T* x,
                                      const typename L::T* dy) {
  const auto xv = L::Load(d, x);
  return hn::IfThenElseZero(hn::Lt(xv, hn::Zero(d)),
                            hn::Mul(xv, L::Load(d, dy)));
}

// x * dy where x < 0, else zero. min(x, 0) is one instruction where the
// comparison and the mask are two; x >= 0 with dy inf or NaN then makes a
// NaN (as may x NaN, on targets whose Min returns it), which only sends
// the run to an exact path that takes NaNs (correct, slower).
template <class L, class D>
HWY_INLINE hn::Vec<D> Term(D d, const typename L::T* x,
                           const typename L::T* dy) {
  return hn::Mul(hn::Min(L::Load(d, x), hn::Zero(d)), L::Load(d, dy));
}

#if HWY_TARGET != HWY_SCALAR
// float16: x * dy where x < 0, else zero, in float32 lanes: exact, as the
// product of two float16 values has at most 22 bits and lies in 2^-48 ..
// 2^32.
template <class DF>
HWY_INLINE hn::Vec<DF> HalfProducts(DF df, const uint16_t* x,
                                    const uint16_t* dy) {
  return hn::Mul(hn::Min(SixteenToFloat<true>(df, x), hn::Zero(df)),
                 SixteenToFloat<true>(df, dy));
}
#endif

// float16: the terms of 2 * Lanes(d) elements as two float64 vectors,
// formed in float32 (HalfProducts) and widened: half the conversions of
// widening x and dy.
template <class D>
HWY_INLINE void HalfTermPair(D d, const uint16_t* x, const uint16_t* dy,
                             hn::Vec<D>* p0, hn::Vec<D>* p1) {
#if HWY_TARGET == HWY_SCALAR
  // One lane: no half vectors; the terms in float64 (the same values).
  *p0 = Term<Load16<true>>(d, x, dy);
  *p1 = Term<Load16<true>>(d, x + 1, dy + 1);
#else
  const hn::Repartition<float, D> df;
  const hn::Half<decltype(df)> dh;
  const auto t = HalfProducts(df, x, dy);
  *p0 = hn::PromoteTo(d, hn::LowerHalf(dh, t));
  *p1 = hn::PromoteTo(d, hn::UpperHalf(dh, t));
#endif
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu::cpu
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
