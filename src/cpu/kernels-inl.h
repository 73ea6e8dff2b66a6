// The per-dtype SIMD rules and the contiguous loop of the CPU backend, for
// one Highway target per inclusion (kernels.cc re-includes this file through
// foreach_target.h and exports the table; tests include it the same way to
// run the rules on every target and partial vector).

// Per-target include guard (Highway's -inl.h convention).
#if defined(LRELU_SRC_CPU_KERNELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LRELU_SRC_CPU_KERNELS_INL_H_
#undef LRELU_SRC_CPU_KERNELS_INL_H_
#else
#define LRELU_SRC_CPU_KERNELS_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cpu/bfloat16_words-inl.h"
#include "cpu/convert-inl.h"
#include "cpu/invalid_flag.h"
#include "cpu/kernels.h"
#include "cpu/opaque-inl.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Per dtype: the storage lane type T, the vector tag that holds one float32
// (or float64) vector's worth of T, and the element rule on raw lanes. Masks
// come from s, values from v; lanes where s is not negative keep v's bits.
template <lrelu_dtype_t kDType>
struct Rule;

template <>
struct Rule<LRELU_DTYPE_FLOAT32> {
  using T = float;
  using Storage = hn::ScalableTag<float>;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> v, hn::Vec<D> s,
                                     float alpha32, double) {
    return hn::IfThenElse(hn::Lt(s, hn::Zero(d)),
                          Opaque(hn::Mul(v, hn::Set(d, alpha32))), v);
  }
};

template <>
struct Rule<LRELU_DTYPE_FLOAT64> {
  using T = double;
  using Storage = hn::ScalableTag<double>;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> v, hn::Vec<D> s, float,
                                     double alpha) {
    return hn::IfThenElse(hn::Lt(s, hn::Zero(d)),
                          Opaque(hn::Mul(v, hn::Set(d, alpha))), v);
  }
};

// The forward pass of float32/float64 with alpha finite and positive: the
// comparison and the blend become one instruction, max(alpha * x, x) for
// alpha <= 1 (kAtMostOne) and min(alpha * x, x) for alpha > 1. For x < 0 the
// product is the larger (the smaller) or equal to x, with the same bits
// then; for x >= 0, x is. x86's MAXPS/MINPS return their second operand
// when both are zeros or either is NaN, so +-0 and every NaN x (its
// payload and signalling bit) come back as x. Other targets' Max and Min
// do not promise that: they keep the blend.
template <lrelu_dtype_t kDType, bool kAtMostOne>
struct RuleBounded {
  using T = typename Rule<kDType>::T;
  using Storage = typename Rule<kDType>::Storage;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> v, hn::Vec<D> s,
                                     float alpha32, double alpha) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
    (void)s;
    hn::Vec<D> a;
    if constexpr (kDType == LRELU_DTYPE_FLOAT64) {
      a = hn::Set(d, alpha);
    } else {
      a = hn::Set(d, alpha32);
    }
    const auto product = Opaque(hn::Mul(v, a));
    return kAtMostOne ? hn::Max(product, v) : hn::Min(product, v);
#else
    return Rule<kDType>::Apply(d, v, s, alpha32, alpha);
#endif
  }
};

// Lanes of 16-bit storage the product replaces, from the sign source's
// bits: negative finite values and -inf (bits - 1, as int16, below the -inf
// pattern's `kNegInf`), so NaN payloads never go through a conversion. With
// kWithNegativeZero, -0 joins them (bits as int16 up to -inf's): one
// instruction fewer, and exact only in the forward pass (v == s) with alpha
// positive and finite, where -0 * alpha is -0, the same bits.
template <int16_t kNegInf, bool kWithNegativeZero, class D>
HWY_INLINE hn::Mask<D> Scaled16(D d, hn::Vec<D> s) {
  const hn::RebindToSigned<D> di;
  if (kWithNegativeZero) {
    return hn::RebindMask(
        d, hn::Lt(hn::BitCast(di, s),
                  hn::Set(di, static_cast<int16_t>(kNegInf + 1))));
  }
  return hn::RebindMask(
      d, hn::Lt(hn::BitCast(di, hn::Sub(s, hn::Set(d, uint16_t{1}))),
                hn::Set(di, kNegInf)));
}

// float16: the F16C (or integer) conversions of every lane, the product,
// and a blend that keeps v's bits where s is not negative. kForwardPositive:
// only for v == s and alpha positive and finite (see Scaled16).
template <bool kForwardPositive>
struct RuleFloat16 {
  using T = uint16_t;
  // As many lanes as one float32 vector: F16C widens to exactly that.
  using Storage = hn::Rebind<uint16_t, hn::ScalableTag<float>>;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> v, hn::Vec<D> s,
                                     float alpha32, double) {
    const hn::Rebind<float, D> df;
    const auto negative = Scaled16<-1024, kForwardPositive>(d, s);
    const auto y = FloatToHalfBits(
        d, hn::Mul(HalfBitsToFloat(df, v), hn::Set(df, alpha32)));
    return hn::IfThenElse(negative, y, v);
  }
};

template <>
struct Rule<LRELU_DTYPE_FLOAT16> : RuleFloat16<false> {};

// float16's forward pass with alpha positive and finite, in XNNPACK's
// schedule: widen, multiply, keep the product where the float32 value is
// negative, narrow; the load folds into the widening and no 16-bit compare
// or blend is needed. The round trip keeps every pattern's bits (-0 * alpha
// is -0; a negative quiet NaN times alpha is that NaN) except a signalling
// NaN's: F16C's widening quiets it, and raises MXCSR's invalid flag as it
// does, which HalfRoundTripChecked reads. Only where F16C converts.
struct RuleFloat16RoundTrip {
  using T = uint16_t;
  using Storage = hn::Rebind<uint16_t, hn::ScalableTag<float>>;
  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> v, hn::Vec<D> /*s*/,
                                     float alpha32, double) {
    const hn::Rebind<float, D> df;
    const auto f = HalfBitsToFloat(df, v);
    auto y = FloatToHalfBits(
        d, hn::IfNegativeThenElse(f, hn::Mul(f, hn::Set(df, alpha32)), f));
#if HWY_ARCH_X86 && LRELU_HAVE_F16C
    // Narrow into a register and store that: compilers fold the store into
    // VCVTPS2PH, whose memory form costs ~1.5x the whole loop on AMD Zen.
    asm("" : "+x"(y.raw));
#endif
    return y;
  }
};

// The table's float16 rule for a positive finite alpha: RuleFloat16<true>
// itself, or (RunPositive) the round trip, checked.
struct RuleFloat16Checked : RuleFloat16<true> {};

// kFiniteAlpha: alpha is finite and nonzero, so no negative x makes a NaN
// and the rounding can skip its NaN handling (a fifth of the work).
//
// Full vectors of bfloat16 never leave 32-bit lanes: a u32 lane holds two
// bfloat16 values (BFloat16PairProducts, bfloat16_words-inl.h).
template <bool kFiniteAlpha, bool kForwardPositive = false>
struct RuleBFloat16 {
  using T = uint16_t;
#if HWY_TARGET == HWY_SCALAR
  using Storage = hn::Rebind<uint16_t, hn::ScalableTag<float>>;
#else
  using Storage = hn::ScalableTag<uint16_t>;
#endif

  template <class D>
  static HWY_INLINE hn::Vec<D> Apply(D d, hn::Vec<D> v, hn::Vec<D> s,
                                     float alpha32, double alpha) {
    const auto negative = Scaled16<-128, kForwardPositive>(d, s);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // Full vectors on AVX-512: both products rounded in 16-bit lanes, 13
    // operations per 32 values against Products' 16.
    if constexpr (kFiniteAlpha &&
                  std::is_same<D, hn::ScalableTag<uint16_t>>::value) {
      const __m512 a = _mm512_set1_ps(alpha32);
      return hn::Vec<D>{BFloat16ScaledInWords(v.raw, negative.raw, a, a)};
    }
#endif
    return hn::IfThenElse(negative, Products(d, v, alpha32, alpha), v);
  }

  // alpha * v rounded to bfloat16, for every lane.
  template <class D, std::enable_if_t<
                         std::is_same<D, hn::ScalableTag<uint16_t>>::value &&
                         HWY_TARGET != HWY_SCALAR>* = nullptr>
  static HWY_INLINE hn::Vec<D> Products(D d, hn::Vec<D> v, float alpha32,
                                        double) {
    const auto a = hn::Set(hn::Repartition<float, D>(), alpha32);
    return BFloat16PairProducts<!kFiniteAlpha>(d, v, a, a);
  }

  // Partial vectors (one-lane tails, HWY_SCALAR): widen, multiply, narrow.
  template <class D, std::enable_if_t<
                         !(std::is_same<D, hn::ScalableTag<uint16_t>>::value &&
                           HWY_TARGET != HWY_SCALAR)>* = nullptr>
  static HWY_INLINE hn::Vec<D> Products(D d, hn::Vec<D> v, float alpha32,
                                        double) {
    const hn::Rebind<float, D> df;
    return FloatToBFloat16Bits<!kFiniteAlpha>(
        d, hn::Mul(BFloat16BitsToFloat(df, v), hn::Set(df, alpha32)));
  }
};

// The vector tag a rule loads and stores (R::Storage).
template <class R>
using StorageTag = typename R::Storage;

// Fewer than one vector of elements (the head before the aligned main loop
// and the tail after it). AVX-512 has true masked loads and stores, which
// never touch memory outside the mask; elsewhere go one lane at a time with
// the same operations, so results are identical.
template <class R, bool kForward>
HWY_INLINE void Partial(const typename R::T* v, const typename R::T* s,
                        typename R::T* out, size_t count, float alpha32,
                        double alpha) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  const StorageTag<R> d;
  const size_t lanes = hn::Lanes(d);
  for (size_t i = 0; i < count; i += lanes) {
    const auto m = hn::FirstN(d, std::min(lanes, count - i));
    const auto vv = hn::MaskedLoad(m, d, v + i);
    const auto sv = kForward ? vv : hn::MaskedLoad(m, d, s + i);
    hn::BlendedStore(R::Apply(d, vv, sv, alpha32, alpha), m, d, out + i);
  }
#else
  using D1 = std::conditional_t<sizeof(typename R::T) == 2,
                                hn::Rebind<uint16_t, hn::CappedTag<float, 1>>,
                                hn::CappedTag<typename R::T, 1>>;
  const D1 d1;
  for (size_t i = 0; i < count; ++i) {
    const auto vv = hn::LoadU(d1, v + i);
    const auto sv = kForward ? vv : hn::LoadU(d1, s + i);
    hn::StoreU(R::Apply(d1, vv, sv, alpha32, alpha), d1, out + i);
  }
#endif
}

// Non-temporal stores only for vectors of 16 bytes or more: Highway 1.0.3's
// Stream of a partial x86 vector (float16's 64-bit storage on SSSE3/SSE4)
// writes 16 bytes, past the vector and possibly past the output or into
// another task's lines (and needs 16-byte alignment).
template <class R, bool kStream>
HWY_INLINE void StoreVector(hn::Vec<StorageTag<R>> y, typename R::T* out) {
  const StorageTag<R> d;
  constexpr bool kWide =
      HWY_TARGET == HWY_SCALAR ||
      hn::MaxLanes(StorageTag<R>()) * sizeof(typename R::T) >= 16;
  if (kStream && kWide) {
    hn::Stream(y, d, out);
  } else {
    hn::Store(y, d, out);
  }
}

// Streamed (out-of-cache) calls prefetch their inputs this far ahead: the
// conversions of the 16-bit rules leave too few loads in flight for the
// memory system. On a Xeon (AVX-512, 2 threads, 64 Mi elements) float16
// went from 0.69-0.85 to 0.89-1.0 of the non-temporal copy's bandwidth and
// bfloat16 from 0.68-0.82 to 0.86-0.94 (1 KiB ahead did a little less for
// bfloat16); float32 stayed at 1.0.
constexpr size_t kPrefetchBytes = 2048;

// Prefetches, one 64-byte line at a time, the `count` elements that lie
// kPrefetchBytes past p + i, when they are still inside [p, p + n).
template <typename T>
HWY_INLINE void PrefetchAhead(const T* p, size_t i, size_t count, size_t n) {
  constexpr size_t kAhead = kPrefetchBytes / sizeof(T);
  if (i + kAhead + count > n) return;
  const auto* bytes = reinterpret_cast<const uint8_t*>(p + i + kAhead);
  for (size_t k = 0; k < count * sizeof(T); k += kLineBytes) {
    hwy::Prefetch(bytes + k);
  }
}

// The contiguous kernel (pointers element-aligned): a head up to the first
// vector-aligned output element, an aligned main loop unrolled four times, a
// single-vector loop, and an exact tail. Aligned stores are what non-temporal
// stores need, and they never split a cache line.
template <class R, bool kForward, bool kStream>
void Contiguous(const KernelArgs& args) {
  using T = typename R::T;
  const StorageTag<R> d;
  const size_t lanes = hn::Lanes(d);
  const T* v = static_cast<const T*>(args.v);
  const T* s = kForward ? v : static_cast<const T*>(args.s);
  T* out = static_cast<T*>(args.out);
  const size_t n = args.n;
  const float alpha32 = args.alpha32;
  const double alpha = args.alpha;

  // Element alignment is guaranteed by the caller (cpu/unaligned.h).
  const size_t vector_bytes = lanes * sizeof(T);
  const uintptr_t address = reinterpret_cast<uintptr_t>(out);
  size_t i = 0;
  const size_t head = std::min(
      n, (vector_bytes - address % vector_bytes) % vector_bytes / sizeof(T));
  Partial<R, kForward>(v, s, out, head, alpha32, alpha);
  i = head;
  // The round trip goes one vector at a time, so that each load folds into
  // its VCVTPH2PS (from a register, that costs ~1.65x the loop on Zen).
  constexpr bool kLoadEach =
      kForward && std::is_same<R, RuleFloat16RoundTrip>::value;
  for (; kLoadEach && i + 4 * lanes <= n; i += 4 * lanes) {
    if (kStream) PrefetchAhead(v, i, 4 * lanes, n);
    for (size_t k = 0; k < 4 * lanes; k += lanes) {
      const auto vv = hn::LoadU(d, v + i + k);
      StoreVector<R, kStream>(R::Apply(d, vv, vv, alpha32, alpha), out + i + k);
    }
  }
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    if (kStream) {
      PrefetchAhead(v, i, 4 * lanes, n);
      if (!kForward) PrefetchAhead(s, i, 4 * lanes, n);
    }
    const auto v0 = hn::LoadU(d, v + i);
    const auto v1 = hn::LoadU(d, v + i + lanes);
    const auto v2 = hn::LoadU(d, v + i + 2 * lanes);
    const auto v3 = hn::LoadU(d, v + i + 3 * lanes);
    const auto s0 = kForward ? v0 : hn::LoadU(d, s + i);
    const auto s1 = kForward ? v1 : hn::LoadU(d, s + i + lanes);
    const auto s2 = kForward ? v2 : hn::LoadU(d, s + i + 2 * lanes);
    const auto s3 = kForward ? v3 : hn::LoadU(d, s + i + 3 * lanes);
    StoreVector<R, kStream>(R::Apply(d, v0, s0, alpha32, alpha), out + i);
    StoreVector<R, kStream>(R::Apply(d, v1, s1, alpha32, alpha),
                            out + i + lanes);
    StoreVector<R, kStream>(R::Apply(d, v2, s2, alpha32, alpha),
                            out + i + 2 * lanes);
    StoreVector<R, kStream>(R::Apply(d, v3, s3, alpha32, alpha),
                            out + i + 3 * lanes);
  }
  for (; i + lanes <= n; i += lanes) {
    const auto vv = hn::LoadU(d, v + i);
    const auto sv = kForward ? vv : hn::LoadU(d, s + i);
    StoreVector<R, kStream>(R::Apply(d, vv, sv, alpha32, alpha), out + i);
  }
  Partial<R, kForward>(v + i, s + i, out + i, n - i, alpha32, alpha);
  if (kStream) hwy::FlushStream();
}

#if LRELU_HAVE_F16C && HWY_ARCH_X86
// Whether the round trip of a signalling NaN raises the flag here.
// Hardware does; an emulator may not model the flag (valgrind does not),
// and then the round trip must not be used.
inline bool RoundTripRaisesInvalid() {
  const bool caller_flag = TakeInvalidFlag();
  const StorageTag<RuleFloat16RoundTrip> d;
  auto v = hn::Set(d, uint16_t{0x7c01});  // a signalling NaN
  asm volatile("" : "+x"(v.raw));         // not folded at compile time
  auto y = RuleFloat16RoundTrip::Apply(d, v, v, 1.0f, 1.0);
  asm volatile("" : "+x"(y.raw));
  const bool raised = TakeInvalidFlag();
  if (caller_flag) RaiseInvalidFlag();
  return raised;
}
#endif

// float16, alpha positive and finite: the round trip out of place, where
// F16C converts and raises the invalid flag; if a signalling NaN raised it,
// the exact kernel does the task again (the input is untouched); a flag the
// caller left raised as RoundTripOrExact (invalid_flag.h) says. In place,
// and elsewhere, the exact kernel only. The flag stays as the caller left
// it, or raised by signalling NaNs in x.
// use_round_trip: the flag works and the round trip pays on this CPU.
template <bool kStream>
void HalfRoundTripOrExact(const KernelArgs& args, bool use_round_trip,
                          size_t clear_flag_from) {
  using Exact = RuleFloat16<true>;
#if LRELU_HAVE_F16C && HWY_ARCH_X86
  if (args.out != args.v && use_round_trip) {
    RoundTripOrExact(
        args.n, clear_flag_from,
        [&] { Contiguous<RuleFloat16RoundTrip, true, kStream>(args); },
        [&] { Contiguous<Exact, true, kStream>(args); });
    return;
  }
#else
  (void)use_round_trip;
  (void)clear_flag_from;
#endif
  Contiguous<Exact, true, kStream>(args);
}

// The exact kernel alone where the round trip does not pay (Zen 1:
// HalfRoundTripPays) or the flag does not work.
template <bool kStream>
void HalfRoundTripChecked(const KernelArgs& args) {
#if LRELU_HAVE_F16C && HWY_ARCH_X86
  static const bool use = HalfRoundTripPays() && RoundTripRaisesInvalid();
  static const size_t clear_flag_from = ClearInvalidFlagFrom();
#else
  constexpr bool use = false;
  constexpr size_t clear_flag_from = 0;
#endif
  HalfRoundTripOrExact<kStream>(args, use, clear_flag_from);
}

// The forward kernel of a rule for positive finite alpha.
template <class R, bool kStream>
void RunPositive(const KernelArgs& args) {
  if constexpr (std::is_same<R, RuleFloat16Checked>::value) {
    HalfRoundTripChecked<kStream>(args);
  } else {
    Contiguous<R, true, kStream>(args);
  }
}

// Forward kernels for finite nonzero alpha, chosen per call: Finite for a
// negative alpha (its sign bit); for a positive one, Positive, or AboveOne
// where alpha > 1 (float32/float64's bounded rules; the same rule for the
// 16-bit dtypes).
template <class Positive, class Finite, class AboveOne, bool kStream>
void ForwardBySign(const KernelArgs& args) {
  uint32_t bits;
  std::memcpy(&bits, &args.alpha32, sizeof(bits));
  if ((bits >> 31) != 0) {
    Contiguous<Finite, true, kStream>(args);
    return;
  }
  if constexpr (!std::is_same<Positive, AboveOne>::value) {
    // float64 compares its own alpha: 1 + 2^-52 rounds to 1 in float32.
    const bool above = std::is_same<typename Positive::T, double>::value
                           ? args.alpha > 1
                           : args.alpha32 > 1;
    if (above) {
      RunPositive<AboveOne, kStream>(args);
      return;
    }
  }
  RunPositive<Positive, kStream>(args);
}

// Rules for any alpha (General), for finite nonzero alpha (Finite) and,
// for the forward pass, for positive finite alpha (Positive, and AboveOne
// above 1; void: none).
template <class General, class Finite, class Positive = void,
          class AboveOne = Positive>
void FillDType(lrelu_dtype_t dtype, KernelTable* table) {
  const int t = DTypeIndex(dtype);
  table->forward[t][0][0] = &Contiguous<General, true, false>;
  table->forward[t][1][0] = &Contiguous<General, true, true>;
  table->backward[t][0][0] = &Contiguous<General, false, false>;
  table->backward[t][1][0] = &Contiguous<General, false, true>;
  if constexpr (std::is_void<Positive>::value) {
    table->forward[t][0][1] = &Contiguous<Finite, true, false>;
    table->forward[t][1][1] = &Contiguous<Finite, true, true>;
  } else {
    table->forward[t][0][1] = &ForwardBySign<Positive, Finite, AboveOne, false>;
    table->forward[t][1][1] = &ForwardBySign<Positive, Finite, AboveOne, true>;
  }
  table->backward[t][0][1] = &Contiguous<Finite, false, false>;
  table->backward[t][1][1] = &Contiguous<Finite, false, true>;
}

// This target's kernel table (kernels.cc exports it; tests/kernels_test.cc
// checks every entry).
inline void FillKernelTable(KernelTable* table) {
  using F32 = Rule<LRELU_DTYPE_FLOAT32>;
  using F16 = Rule<LRELU_DTYPE_FLOAT16>;
  using F64 = Rule<LRELU_DTYPE_FLOAT64>;
  FillDType<F32, F32, RuleBounded<LRELU_DTYPE_FLOAT32, true>,
            RuleBounded<LRELU_DTYPE_FLOAT32, false>>(LRELU_DTYPE_FLOAT32,
                                                     table);
  FillDType<F16, F16, RuleFloat16Checked>(LRELU_DTYPE_FLOAT16, table);
  FillDType<RuleBFloat16<false>, RuleBFloat16<true>, RuleBFloat16<true, true>>(
      LRELU_DTYPE_BFLOAT16, table);
  FillDType<F64, F64, RuleBounded<LRELU_DTYPE_FLOAT64, true>,
            RuleBounded<LRELU_DTYPE_FLOAT64, false>>(LRELU_DTYPE_FLOAT64,
                                                     table);
#if LRELU_HAVE_F16C && HWY_ARCH_X86
  table->half_round_trip = HalfRoundTripPays() && RoundTripRaisesInvalid();
#else
  table->half_round_trip = false;
#endif
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu::cpu
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
