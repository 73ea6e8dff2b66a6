// Per-element-alpha PReLU rows, compiled once per Highway target
// (foreach_target.h re-includes this file).
#include "cpu/prelu_rows.h"

#include <algorithm>
#include <type_traits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/prelu_rows.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "cpu/bfloat16_words-inl.h"
#include "cpu/convert-inl.h"
#include "cpu/opaque-inl.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Per dtype: the storage tag for a compute tag DF, and the rule on one
// vector of storage lanes (v, s) with the lanes' alpha av in the compute
// type A. Masks come from s; lanes where s is not negative keep v's bits.
// float32 and float64: stored and computed in the type itself.
template <typename Type>
struct Native {
  using T = Type;
  using A = Type;
  template <class DF>
  using Storage = DF;
  template <class DF>
  static HWY_INLINE hn::Vec<DF> Apply(DF d, hn::Vec<DF> v, hn::Vec<DF> s,
                                      hn::Vec<DF> av) {
    return hn::IfThenElse(hn::Lt(s, hn::Zero(d)), Opaque(hn::Mul(v, av)), v);
  }
};
using F32 = Native<float>;
using F64 = Native<double>;

// The 16-bit rules' types: u16 storage lanes, float32 alphas (DF is a
// float32 tag).
struct Sixteen {
  using T = uint16_t;
  using A = float;
  template <class DF>
  using Storage = hn::Rebind<uint16_t, DF>;
};

// 16-bit storage: s < 0 is an integer test on the bits (negative finite or
// -inf), so NaN payloads never go through a conversion.
template <bool kHalf>
struct F16 : Sixteen {
  template <class DF>
  static HWY_INLINE hn::Vec<Storage<DF>> Apply(DF df, hn::Vec<Storage<DF>> v,
                                               hn::Vec<Storage<DF>> s,
                                               hn::Vec<DF> av) {
    const Storage<DF> d;
    const hn::RebindToSigned<decltype(d)> di;
    const auto negative = hn::RebindMask(
        d, hn::Lt(hn::BitCast(di, hn::Sub(s, hn::Set(d, uint16_t{1}))),
                  hn::Set(di, static_cast<int16_t>(kHalf ? -1024 : -128))));
    const auto product = hn::Mul(
        kHalf ? HalfBitsToFloat(df, v) : BFloat16BitsToFloat(df, v), av);
    const auto rounded = kHalf ? FloatToHalfBits(d, product)
                               : FloatToBFloat16Bits<true>(d, product);
    return hn::IfThenElse(negative, rounded, v);
  }
};

// bfloat16's forward pass where every alpha of the call is positive and
// finite: -0 * alpha is -0 and no product is a NaN, so the lanes to scale
// are those at or below -0 as int16 (negative values, -0 and -inf; not the
// NaNs), one compare where F16<false> takes two. Words4 and Pairs4 use it
// (AVX-512, 64 Ki elements in cache: 6-8 % of the call); elsewhere it is
// F16<false> itself.
struct BF16Positive : F16<false> {};

// Whether R tests the sign alone (BF16Positive).
template <class R>
constexpr bool kSignOnly = std::is_same<R, BF16Positive>::value;

// float16's forward pass where every alpha of the call is positive and
// finite, out of place: LeakyReLU's round trip (kernels-inl.h,
// RuleFloat16RoundTrip) with an alpha a lane: widen, multiply, keep the
// product where the float32 value is negative, narrow. Every pattern keeps
// its bits but a signalling NaN's, which F16C's widening quiets as it
// raises the invalid flag: the caller then runs the task again with
// F16<true> (api/prelu_rows.cc, RoundTripOrExact).
struct F16RoundTrip : Sixteen {
  template <class DF>
  static HWY_INLINE hn::Vec<Storage<DF>> Apply(DF df, hn::Vec<Storage<DF>> v,
                                               hn::Vec<Storage<DF>> /*s*/,
                                               hn::Vec<DF> av) {
    const Storage<DF> d;
    const auto f = HalfBitsToFloat(df, v);
    auto y = FloatToHalfBits(d, hn::IfNegativeThenElse(f, hn::Mul(f, av), f));
#if HWY_ARCH_X86 && LRELU_HAVE_F16C
    // A register, then the store: VCVTPS2PH's memory form costs ~1.5x the
    // whole loop on AMD Zen (kernels-inl.h).
    asm("" : "+x"(y.raw));
#endif
    return y;
  }
};

// R's result for the vector at v (and s), not stored.
template <class R, bool kForward, class DF>
HWY_INLINE hn::Vec<typename R::template Storage<DF>> ApplyAt(
    DF df, const typename R::T* v, const typename R::T* s, hn::Vec<DF> av) {
  const typename R::template Storage<DF> d;
  const auto vv = hn::LoadU(d, v);
  return R::Apply(df, vv, kForward ? vv : hn::LoadU(d, s), av);
}

// One vector (or one lane, with a capped tag) at v, s, out. kForward: s is
// v (one load). kAligned: out is vector-aligned, so the store may be
// non-temporal (kStream), for vectors of 16 bytes or more only: Highway
// 1.0.3's Stream of a partial x86 vector writes 16 bytes.
template <class R, bool kForward, bool kAligned, bool kStream, class DF>
HWY_INLINE void Step(DF df, const typename R::T* v, const typename R::T* s,
                     typename R::T* out, hn::Vec<DF> av) {
  const typename R::template Storage<DF> d;
  const auto y = ApplyAt<R, kForward>(df, v, s, av);
  constexpr bool kWide =
      HWY_TARGET == HWY_SCALAR || hn::MaxLanes(d) * sizeof(typename R::T) >= 16;
  if constexpr (kAligned && kStream && kWide) {
    hn::Stream(y, d, out);
  } else if constexpr (kAligned) {
    hn::Store(y, d, out);
  } else {
    hn::StoreU(y, d, out);
  }
}

// Out of cache, the `lines` cache lines 2 KiB ahead of v (and of s unless
// kForward), as LeakyReLU's streamed kernels prefetch (kernels-inl.h
// kPrefetchBytes). A prefetch past the end does not fault; the addresses
// are formed as integers.
template <bool kForward, int kLines, class T>
HWY_INLINE void PrefetchAhead(const T* v, const T* s) {
  constexpr uintptr_t kAhead = 2048;
  for (int k = 0; k < kLines; ++k) {
    const uintptr_t bytes = kAhead + 64 * static_cast<uintptr_t>(k);
    hwy::Prefetch(
        reinterpret_cast<const T*>(reinterpret_cast<uintptr_t>(v) + bytes));
    if (!kForward) {
      hwy::Prefetch(
          reinterpret_cast<const T*>(reinterpret_cast<uintptr_t>(s) + bytes));
    }
  }
}

// Four vectors from v, s, out: the loads before the stores, as LeakyReLU's
// contiguous kernel has them. Interleaved (load, store, load, ...), a load
// may not pass the store before it (out may be v), and the row ran ~40 %
// slower in cache than LeakyReLU's loop.
template <class R, bool kForward, bool kStream, class DF>
HWY_INLINE void Step4(DF df, const typename R::T* v, const typename R::T* s,
                      typename R::T* out, hn::Vec<DF> a0, hn::Vec<DF> a1,
                      hn::Vec<DF> a2, hn::Vec<DF> a3) {
  const typename R::template Storage<DF> d;
  const size_t lanes = hn::Lanes(df);
  // float16 rows (16 Mi elements on Zen 1: forward 1.18-1.24x -> 1.06-1.14x
  // LeakyReLU's time with it).
  if constexpr (kStream && sizeof(typename R::T) == 2) {
    PrefetchAhead<kForward, 1>(v, s);
  }
  const auto v0 = hn::LoadU(d, v);
  const auto v1 = hn::LoadU(d, v + lanes);
  const auto v2 = hn::LoadU(d, v + 2 * lanes);
  const auto v3 = hn::LoadU(d, v + 3 * lanes);
  const auto s0 = kForward ? v0 : hn::LoadU(d, s);
  const auto s1 = kForward ? v1 : hn::LoadU(d, s + lanes);
  const auto s2 = kForward ? v2 : hn::LoadU(d, s + 2 * lanes);
  const auto s3 = kForward ? v3 : hn::LoadU(d, s + 3 * lanes);
  const auto y0 = R::Apply(df, v0, s0, a0);
  const auto y1 = R::Apply(df, v1, s1, a1);
  const auto y2 = R::Apply(df, v2, s2, a2);
  const auto y3 = R::Apply(df, v3, s3, a3);
  constexpr bool kWide =
      HWY_TARGET == HWY_SCALAR || hn::MaxLanes(d) * sizeof(typename R::T) >= 16;
  if constexpr (kStream && kWide) {
    hn::Stream(y0, d, out);
    hn::Stream(y1, d, out + lanes);
    hn::Stream(y2, d, out + 2 * lanes);
    hn::Stream(y3, d, out + 3 * lanes);
  } else {
    hn::Store(y0, d, out);
    hn::Store(y1, d, out + lanes);
    hn::Store(y2, d, out + 2 * lanes);
    hn::Store(y3, d, out + 3 * lanes);
  }
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// bfloat16 on AVX-512: kVectors * 32 elements as full vectors through
// LeakyReLU's schedule (cpu/bfloat16_words-inl.h), the even elements'
// alphas in alpha_even[k] and the odd ones' in alpha_odd[k] for vector k.
// In cache F16<false>'s per-lane widening, rounding and narrowing (16 lanes
// a step) took 3-5x LeakyReLU's time.
template <size_t kVectors, bool kForward, bool kStream, bool kSignOnly>
HWY_INLINE void Words(const uint16_t* v, const uint16_t* s, uint16_t* out,
                      const __m512 (&alpha_even)[kVectors],
                      const __m512 (&alpha_odd)[kVectors]) {
  if (kStream) PrefetchAhead<kForward, kVectors>(v, s);
  const __m512i minus_one = _mm512_set1_epi16(-1);
  const __m512i limit = _mm512_set1_epi16(-128);
  // Each vector loaded once, into a register: the compiler otherwise folds
  // the load into each of the four operations that read it, and where x
  // starts off a 64-byte line every one of them splits a line (bfloat16
  // rows in cache took 1.15-1.25x the time; 1.1x on a line).
  static_assert(kVectors == 1 || kVectors == 2);
  __m512i x[kVectors];
  __m512i t[kVectors];
  for (size_t k = 0; k < kVectors; ++k) {
    x[k] = _mm512_loadu_si512(v + 32 * k);
    if constexpr (!kForward) t[k] = _mm512_loadu_si512(s + 32 * k);
  }
  // One barrier for all the loads (one each made NCHW rows 6-10 % slower).
  if constexpr (kVectors == 2) {
    asm("" : "+v"(x[0]), "+v"(x[1]));
    if (!kForward) asm("" : "+v"(t[0]), "+v"(t[1]));
  } else {
    asm("" : "+v"(x[0]));
    if (!kForward) asm("" : "+v"(t[0]));
  }
  if constexpr (kForward) {
    for (size_t k = 0; k < kVectors; ++k) t[k] = x[k];
  }
  // F16<false>'s test: bits - 1, as int16, below -128 (negative finite
  // values and -inf; not -0); BF16Positive's: bits below -127 (-0 too).
  const auto negative = [&](__m512i bits) {
    return kSignOnly ? _mm512_cmplt_epi16_mask(bits, _mm512_set1_epi16(-127))
                     : _mm512_cmplt_epi16_mask(
                           _mm512_add_epi16(bits, minus_one), limit);
  };
  __m512i y[kVectors];
  for (size_t k = 0; k < kVectors; ++k) {
    y[k] = BFloat16ScaledInWords(x[k], negative(t[k]), alpha_even[k],
                                 alpha_odd[k]);
  }
  for (size_t k = 0; k < kVectors; ++k) {
    uint16_t* const o = out + 32 * k;
    if (kStream && reinterpret_cast<uintptr_t>(out) % 64 == 0) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(o), y[k]);
    } else if (kStream) {
      // out is vector-aligned for the 16-lane steps (32 bytes), as the
      // callers align it: stream in halves. Regular stores made 16 Mi
      // elements ~1.7x slower than LeakyReLU's streamed kernel.
      auto* half = reinterpret_cast<__m256i*>(o);
      _mm256_stream_si256(half, _mm512_castsi512_si256(y[k]));
      _mm256_stream_si256(half + 1, _mm512_extracti64x4_epi64(y[k], 1));
    } else {
      _mm512_storeu_si512(o, y[k]);
    }
  }
}

// 64 elements: Words of two vectors.
template <bool kForward, bool kStream, bool kSignOnly>
HWY_INLINE void Words4(const uint16_t* v, const uint16_t* s, uint16_t* out,
                       const __m512 (&alpha_even)[2],
                       const __m512 (&alpha_odd)[2]) {
  Words<2, kForward, kStream, kSignOnly>(v, s, out, alpha_even, alpha_odd);
}
#endif

#if HWY_TARGET == HWY_AVX2
// bfloat16 on AVX2: 32 elements as two full 16-lane vectors through
// LeakyReLU's schedule (kernels-inl.h RuleBFloat16::Products: a 32-bit lane
// holds an even and an odd element, each times its own alpha and rounded
// in place; no widening, narrowing or lane crossing), the even elements'
// alphas of vector k in even[k] and the odd ones' in odd[k]. F16<false>'s
// per-lane widening and narrowing (8 lanes a step, lane-crossing
// conversions) took 2.0-2.25x LeakyReLU's time on Zen 1, in cache and out.
struct PairAlphas {
  __m256 even[2];
  __m256 odd[2];
};

// The alphas of 32 consecutive elements, a0..a3 (8 each), by parity.
HWY_INLINE PairAlphas Paired(__m256 a0, __m256 a1, __m256 a2, __m256 a3) {
  const hn::Full256<float> df;
  using V = hn::Vec<decltype(df)>;
  return {{hn::ConcatEven(df, V{a1}, V{a0}).raw,
           hn::ConcatEven(df, V{a3}, V{a2}).raw},
          {hn::ConcatOdd(df, V{a1}, V{a0}).raw,
           hn::ConcatOdd(df, V{a3}, V{a2}).raw}};
}

// One 16-lane vector v: lanes where `negative` (all ones) is set become
// alpha * v rounded to nearest even (NaN alphas are the default quiet NaN,
// api/prelu_rows.cc, so no carry leaves a NaN's payload); the others keep
// v's bits.
HWY_INLINE __m256i PairsScaled(__m256i v, __m256i negative, __m256 even,
                               __m256 odd) {
  const hn::Full256<uint16_t> d;
  const hn::Full256<float> df;
  const __m256i y = BFloat16PairProducts<false>(d, hn::Vec<decltype(d)>{v},
                                                hn::Vec<decltype(df)>{even},
                                                hn::Vec<decltype(df)>{odd})
                        .raw;
  return _mm256_blendv_epi8(v, y, negative);
}

// kVectors 16-lane vectors (16 elements each) at v, s, out; out is
// aligned to 16 bytes (the 8-lane steps' storage) or more, as the callers
// align it.
template <size_t kVectors, bool kForward, bool kStream, bool kSignOnly>
HWY_INLINE void Pairs(const uint16_t* v, const uint16_t* s, uint16_t* out,
                      const __m256 (&even)[kVectors],
                      const __m256 (&odd)[kVectors]) {
  if (kStream) PrefetchAhead<kForward, 1>(v, s);
  const __m256i minus_one = _mm256_set1_epi16(-1);
  const __m256i limit = _mm256_set1_epi16(-128);
  const auto* vp = reinterpret_cast<const __m256i*>(v);
  const auto* sp = reinterpret_cast<const __m256i*>(s);
  // F16<false>'s test: bits - 1, as int16, below -128 (negative finite
  // values and -inf; not -0); BF16Positive's: bits below -127 (-0 too).
  const auto negative = [&](__m256i bits) {
    return kSignOnly
               ? _mm256_cmpgt_epi16(_mm256_set1_epi16(-127), bits)
               : _mm256_cmpgt_epi16(limit, _mm256_add_epi16(bits, minus_one));
  };
  __m256i y[kVectors];
  for (size_t k = 0; k < kVectors; ++k) {
    const __m256i x = _mm256_loadu_si256(vp + k);
    const __m256i t = kForward ? x : _mm256_loadu_si256(sp + k);
    y[k] = PairsScaled(x, negative(t), even[k], odd[k]);
  }
  for (size_t k = 0; k < kVectors; ++k) {
    auto* o = reinterpret_cast<__m256i*>(out) + k;
    if (kStream && reinterpret_cast<uintptr_t>(out) % 32 == 0) {
      _mm256_stream_si256(o, y[k]);
    } else if (kStream) {
      auto* half = reinterpret_cast<__m128i*>(o);
      _mm_stream_si128(half, _mm256_castsi256_si128(y[k]));
      _mm_stream_si128(half + 1, _mm256_extracti128_si256(y[k], 1));
    } else {
      _mm256_storeu_si256(o, y[k]);
    }
  }
}

// Four float32 vectors' worth (32 elements): Pairs of two vectors.
template <bool kForward, bool kStream, bool kSignOnly>
HWY_INLINE void Pairs4(const uint16_t* v, const uint16_t* s, uint16_t* out,
                       const PairAlphas& a) {
  Pairs<2, kForward, kStream, kSignOnly>(v, s, out, a.even, a.odd);
}
#endif

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// The alphas of Words4's 64 elements: the even elements' and the odd ones'
// of each 32-element vector.
struct WordAlphas {
  __m512 even[2];
  __m512 odd[2];
};

// 0, 2, ..., 30: the even lanes of a pair of vectors, for vpermt2ps.
HWY_INLINE __m512i EvenIndices() {
  return _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4,
                          2, 0);
}

// From 64 consecutive alphas, a0..a3: four permutes.
HWY_INLINE WordAlphas Deinterleaved(__m512 a0, __m512 a1, __m512 a2,
                                    __m512 a3) {
  const __m512i even = EvenIndices();
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  return {{_mm512_permutex2var_ps(a0, even, a1),
           _mm512_permutex2var_ps(a2, even, a3)},
          {_mm512_permutex2var_ps(a0, odd, a1),
           _mm512_permutex2var_ps(a2, odd, a3)}};
}

// Splits alpha[0, count) (count <= kSplitAlphas): alpha[2m] to split[m],
// alpha[2m + 1] to split[half + m], half = the returned offset.
HWY_INLINE size_t SplitAlphas(const float* alpha, size_t count, float* split) {
  const size_t half = (count + 31) / 32 * 16;
  const __m512i even = EvenIndices();
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (size_t t = 0; t < count; t += 32) {
    // Masked loads: nothing past alpha[count - 1] is read.
    const size_t left = count - t;
    const auto first = [](size_t k) {  // the first k of 16 lanes
      return static_cast<__mmask16>(k >= 16 ? 0xffffu : (1u << k) - 1u);
    };
    const __mmask16 low = first(left);
    const __mmask16 high = first(left > 16 ? left - 16 : 0);
    const __m512 a0 = _mm512_maskz_loadu_ps(low, alpha + t);
    const __m512 a1 = _mm512_maskz_loadu_ps(high, alpha + t + 16);
    _mm512_storeu_ps(split + t / 2, _mm512_permutex2var_ps(a0, even, a1));
    _mm512_storeu_ps(split + half + t / 2, _mm512_permutex2var_ps(a0, odd, a1));
  }
  return half;
}

#endif

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || \
    HWY_TARGET == HWY_AVX2
// A row's alphas split by parity once per call, so that its vectors load
// their even and odd alphas instead of permuting them. On Zen 5 the four
// permutes per 64 elements made NHWC rows of 512 bfloat16 channels
// 1.4-2.6x LeakyReLU's time out of cache (16 Mi elements; 0.95-1.04x
// split) and 1.34-1.58x in cache (64 Ki; 1.23-1.37x split). Rows whose
// alphas (with the slack) exceed kSplitAlphas keep the permutes. AVX2's
// rows (Pairs4) split theirs the same way.
constexpr size_t kSplitAlphas = 2048;

#if HWY_TARGET == HWY_AVX2
// Splits alpha[0, count) (count <= kSplitAlphas): alpha[2m] to split[m],
// alpha[2m + 1] to split[half + m], half = the returned offset; 16 alphas
// a step, the rest one by one.
HWY_INLINE size_t SplitAlphas(const float* alpha, size_t count, float* split) {
  const size_t half = (count + 15) / 16 * 8;
  const hn::Full256<float> df;
  size_t t = 0;
  for (; t + 16 <= count; t += 16) {
    const auto a0 = hn::LoadU(df, alpha + t);
    const auto a1 = hn::LoadU(df, alpha + t + 8);
    hn::StoreU(hn::ConcatEven(df, a1, a0), df, split + t / 2);
    hn::StoreU(hn::ConcatOdd(df, a1, a0), df, split + half + t / 2);
  }
  for (; t < count; ++t) split[(t % 2 == 0 ? 0 : half) + t / 2] = alpha[t];
  return half;
}
#endif

// Where the even lanes' and the odd lanes' alphas of the vectors from alpha
// index j lie in SplitAlphas' copies (each vector reads 16 floats of each
// walk, the next vector the 16 after; all from indices below j + 64 for
// the first 64 elements, and so on; on AVX2 8 floats and j + 32).
struct SplitWalk {
  const float* even;
  const float* odd;
};
HWY_INLINE SplitWalk SplitAt(const float* split, size_t half, size_t j) {
  const float* e = split + j / 2;
  const float* o = split + half + j / 2;
  // j = 2m + 1: the even lanes take alpha[2m + 1 + 2k] (odd indices), the
  // odd lanes alpha[2m + 2 + 2k].
  return j % 2 == 0 ? SplitWalk{e, o} : SplitWalk{o, e + 1};
}
#endif

// Whether R's four vectors go through Words4.
template <class R>
constexpr bool kWords = (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL) &&
                        std::is_base_of<F16<false>, R>::value;
// Whether R's four vectors go through Pairs4.
template <class R>
constexpr bool kPairs =
    HWY_TARGET == HWY_AVX2&& std::is_base_of<F16<false>, R>::value;

// Step4 with per-lane alphas (NHWC rows, and seams of NCHW planes).
template <class R, bool kForward, bool kStream, class DF>
HWY_INLINE void Step4Any(DF df, const typename R::T* v, const typename R::T* s,
                         typename R::T* out, hn::Vec<DF> a0, hn::Vec<DF> a1,
                         hn::Vec<DF> a2, hn::Vec<DF> a3) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kWords<R>) {
    const WordAlphas w = Deinterleaved(a0.raw, a1.raw, a2.raw, a3.raw);
    Words4<kForward, kStream, kSignOnly<R>>(v, s, out, w.even, w.odd);
    return;
  }
#elif HWY_TARGET == HWY_AVX2
  if constexpr (kPairs<R>) {
    Pairs4<kForward, kStream, kSignOnly<R>>(
        v, s, out, Paired(a0.raw, a1.raw, a2.raw, a3.raw));
    return;
  }
#endif
  Step4<R, kForward, kStream>(df, v, s, out, a0, a1, a2, a3);
}

// The lanes of a seam group (NCHW planes: four vectors whose first o
// elements, 2 * lanes < o < 4 * lanes, take one row's alpha and the rest
// the next row's) that take the first alpha, computed once per call: for
// Step4's vectors 2 and 3, and by parity for bfloat16's Words and Pairs,
// whose vector w (2 * lanes elements) holds elements 2 * lanes * w + 2m
// (even) and + 2m + 1 (odd) in 32-bit lane m: blends where four permutes
// were (they made NCHW rows of 128 bfloat16 elements ~10 % slower on
// AVX-512).
template <class DF>
struct Seam {
  hn::Mask<DF> before2;  // of vector 2
  hn::Mask<DF> before3;  // of vector 3
  hn::Mask<DF> even[2];  // of Words' or Pairs' vectors 0 and 1
  hn::Mask<DF> odd[2];
};

template <class DF>
HWY_INLINE Seam<DF> SeamAt(DF d, size_t o) {
  const size_t lanes = hn::Lanes(d);
  // The elements of Words' or Pairs' vector w before the seam.
  const auto left = [&](size_t w) {
    return o > 2 * lanes * w ? std::min(o - 2 * lanes * w, 2 * lanes) : 0;
  };
  return {hn::FirstN(d, o > 2 * lanes ? std::min(lanes, o - 2 * lanes) : 0),
          hn::FirstN(d, o > 3 * lanes ? o - 3 * lanes : 0),
          {hn::FirstN(d, (left(0) + 1) / 2), hn::FirstN(d, (left(1) + 1) / 2)},
          {hn::FirstN(d, left(0) / 2), hn::FirstN(d, left(1) / 2)}};
}

// Step4 across a seam: the first alpha av, the next one `next`.
template <class R, bool kForward, bool kStream, class DF>
HWY_INLINE void Seam4(DF d, const typename R::T* v, const typename R::T* s,
                      typename R::T* out, hn::Vec<DF> av, hn::Vec<DF> next,
                      const Seam<DF>& seam) {
  const auto pick = [&](hn::Mask<DF> m) { return hn::IfThenElse(m, av, next); };
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kWords<R>) {
    const __m512 even[2] = {pick(seam.even[0]).raw, pick(seam.even[1]).raw};
    const __m512 odd[2] = {pick(seam.odd[0]).raw, pick(seam.odd[1]).raw};
    Words4<kForward, kStream, kSignOnly<R>>(v, s, out, even, odd);
    return;
  }
#elif HWY_TARGET == HWY_AVX2
  if constexpr (kPairs<R>) {
    Pairs4<kForward, kStream, kSignOnly<R>>(
        v, s, out,
        {{pick(seam.even[0]).raw, pick(seam.even[1]).raw},
         {pick(seam.odd[0]).raw, pick(seam.odd[1]).raw}});
    return;
  }
#endif
  Step4Any<R, kForward, kStream>(d, v, s, out, av, av, pick(seam.before2),
                                 pick(seam.before3));
}

// Step4 with one alpha for all four vectors (NCHW planes).
template <class R, bool kForward, bool kStream, class DF>
HWY_INLINE void Step4Uniform(DF df, const typename R::T* v,
                             const typename R::T* s, typename R::T* out,
                             hn::Vec<DF> av) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kWords<R>) {
    const __m512 alpha[2] = {av.raw, av.raw};
    Words4<kForward, kStream, kSignOnly<R>>(v, s, out, alpha, alpha);
    return;
  }
#elif HWY_TARGET == HWY_AVX2
  if constexpr (kPairs<R>) {
    Pairs4<kForward, kStream, kSignOnly<R>>(
        v, s, out, {{av.raw, av.raw}, {av.raw, av.raw}});
    return;
  }
#endif
  Step4<R, kForward, kStream>(df, v, s, out, av, av, av, av);
}

// The alpha array of the compute type.
template <class A>
const A* AlphaOf(const float* a32, const double* a64);
template <>
inline const float* AlphaOf<float>(const float* a32, const double*) {
  return a32;
}
template <>
inline const double* AlphaOf<double>(const float*, const double* a64) {
  return a64;
}

// The arrays of PreluRowArgs or PreluPlanesArgs in R's types. Taken into
// locals: the stores to out could alias args, which would make the loops
// reload every field each step.
template <class R>
struct Arrays {
  const typename R::T* v;
  const typename R::T* s;
  typename R::T* out;
  const typename R::A* a;
};

template <class R, class Args>
HWY_INLINE Arrays<R> ArraysOf(const Args& args) {
  using T = typename R::T;
  return {static_cast<const T*>(args.v), static_cast<const T*>(args.s),
          static_cast<T*>(args.out),
          AlphaOf<typename R::A>(args.alpha32, args.alpha64)};
}

// Elements before the first vector-aligned element of out (at most n).
// bfloat16's Words and Pairs vectors are two of DF's (64 bytes on AVX-512,
// 32 on AVX2): aligned to those, none of their stores splits a cache line
// (aligned to one DF vector, half did on AVX-512: bfloat16 rows with y 32
// bytes off a line took 1.4-1.5x LeakyReLU's time in cache, against 1.1x
// on a line).
template <class R, class DF>
HWY_INLINE size_t HeadOf(DF df, const typename R::T* out, size_t n) {
  const size_t vector_bytes =
      (kWords<R> || kPairs<R> ? 2 : 1) * hn::Lanes(df) * sizeof(typename R::T);
  const size_t address = reinterpret_cast<uintptr_t>(out) % vector_bytes;
  return std::min(
      n, (vector_bytes - address) % vector_bytes / sizeof(typename R::T));
}

// A row with one alpha per element, alpha[i % period]. As LeakyReLU's
// contiguous kernel: lanes one at a time up to the first vector-aligned
// output element, aligned vectors unrolled four times, an exact tail; the
// vectors go in runs up to where alpha's offset wraps (the last one of a run
// may read into the wrapped copy past period). Streamed stores are fenced by
// the caller (FlushStreamedRows), once per run of rows.
template <class R, class DF, bool kForward, bool kStream>
void Row(const PreluRowArgs& args) {
  const auto [v, s, out, a] = ArraysOf<R>(args);
  const size_t n = args.n;
  const size_t period = args.period;
  const DF d;
  const hn::CappedTag<typename R::A, 1> d1;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  size_t j = 0;  // i % period
  for (const size_t head = HeadOf<R>(d, out, n); i < head; ++i) {
    Step<R, kForward, false, false>(d1, v + i, s + i, out + i,
                                    hn::LoadU(d1, a + j));
    if (++j == period) j = 0;
  }
  // Periods of 1, 2, 4 or 8 whole vectors (NHWC with 16 to 64 float32
  // channels on AVX2): the period's alphas stay in registers across rows
  // rather than being loaded again with every vector (NHWC, 64 channels,
  // 64 Ki elements in cache: 1.16x LeakyReLU's time, then 1.02x). Whole
  // periods leave j where it was. The loads reach alpha[j + period - 1]:
  // within the slack, or j is 0 (period == n has none).
  const size_t vectors = period % lanes == 0 ? period / lanes : 0;
  if (vectors != 0 && (4 % vectors == 0 || vectors == 8) &&
      (j == 0 || period != n) && i + 4 * lanes <= n) {
    const auto a0 = hn::LoadU(d, a + j);
    const auto a1 = hn::LoadU(d, a + j + (1 % vectors) * lanes);
    const auto a2 = hn::LoadU(d, a + j + (2 % vectors) * lanes);
    const auto a3 = hn::LoadU(d, a + j + (3 % vectors) * lanes);
    if (vectors == 8) {
      const auto a4 = hn::LoadU(d, a + j + 4 * lanes);
      const auto a5 = hn::LoadU(d, a + j + 5 * lanes);
      const auto a6 = hn::LoadU(d, a + j + 6 * lanes);
      const auto a7 = hn::LoadU(d, a + j + 7 * lanes);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      if constexpr (kWords<R>) {  // permuted once, not every step
        const WordAlphas w0 = Deinterleaved(a0.raw, a1.raw, a2.raw, a3.raw);
        const WordAlphas w1 = Deinterleaved(a4.raw, a5.raw, a6.raw, a7.raw);
        for (; i + 8 * lanes <= n; i += 8 * lanes) {
          Words4<kForward, kStream, kSignOnly<R>>(v + i, s + i, out + i,
                                                  w0.even, w0.odd);
          Words4<kForward, kStream, kSignOnly<R>>(
              v + i + 4 * lanes, s + i + 4 * lanes, out + i + 4 * lanes,
              w1.even, w1.odd);
        }
      }
#elif HWY_TARGET == HWY_AVX2
      if constexpr (kPairs<R>) {  // paired once, not every step
        const PairAlphas p0 = Paired(a0.raw, a1.raw, a2.raw, a3.raw);
        const PairAlphas p1 = Paired(a4.raw, a5.raw, a6.raw, a7.raw);
        for (; i + 8 * lanes <= n; i += 8 * lanes) {
          Pairs4<kForward, kStream, kSignOnly<R>>(v + i, s + i, out + i, p0);
          Pairs4<kForward, kStream, kSignOnly<R>>(
              v + i + 4 * lanes, s + i + 4 * lanes, out + i + 4 * lanes, p1);
        }
      }
#endif
      for (; i + 8 * lanes <= n; i += 8 * lanes) {
        Step4Any<R, kForward, kStream>(d, v + i, s + i, out + i, a0, a1, a2,
                                       a3);
        Step4Any<R, kForward, kStream>(d, v + i + 4 * lanes, s + i + 4 * lanes,
                                       out + i + 4 * lanes, a4, a5, a6, a7);
      }
    } else {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      if constexpr (kWords<R>) {
        const WordAlphas w = Deinterleaved(a0.raw, a1.raw, a2.raw, a3.raw);
        for (; i + 4 * lanes <= n; i += 4 * lanes) {
          Words4<kForward, kStream, kSignOnly<R>>(v + i, s + i, out + i, w.even,
                                                  w.odd);
        }
      }
#elif HWY_TARGET == HWY_AVX2
      if constexpr (kPairs<R>) {
        const PairAlphas p = Paired(a0.raw, a1.raw, a2.raw, a3.raw);
        for (; i + 4 * lanes <= n; i += 4 * lanes) {
          Pairs4<kForward, kStream, kSignOnly<R>>(v + i, s + i, out + i, p);
        }
      }
#endif
      for (; i + 4 * lanes <= n; i += 4 * lanes) {
        Step4Any<R, kForward, kStream>(d, v + i, s + i, out + i, a0, a1, a2,
                                       a3);
      }
    }
  }
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || \
    HWY_TARGET == HWY_AVX2
  // The alphas this row reads (with the slack past period), split once.
  constexpr bool kSplit = kWords<R> || kPairs<R>;
  alignas(64) float split[kSplit ? kSplitAlphas : 1];
  size_t half = 0;
  const size_t count = period == n ? n : period + kAlphaSlack;
  const bool use_split = kSplit && count <= kSplitAlphas && i + 4 * lanes <= n;
  if constexpr (kSplit) {
    if (use_split) half = SplitAlphas(a, count, split);
  }
#endif
  while (i + lanes <= n) {
    const size_t run =
        std::min((period - j + lanes - 1) / lanes, (n - i) / lanes);
    const size_t stop = i + run * lanes;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kWords<R>) {
      if (use_split && i + 4 * lanes <= stop) {
        // j's parity holds for the run: the even and odd lanes' alphas are
        // two contiguous walks through the split copies.
        const SplitWalk walk = SplitAt(split, half, j);
        const float* even = walk.even;
        const float* odd = walk.odd;
        for (; i + 4 * lanes <= stop; i += 4 * lanes, j += 4 * lanes) {
          const __m512 e[2] = {_mm512_loadu_ps(even),
                               _mm512_loadu_ps(even + 16)};
          const __m512 o[2] = {_mm512_loadu_ps(odd), _mm512_loadu_ps(odd + 16)};
          Words4<kForward, kStream, kSignOnly<R>>(v + i, s + i, out + i, e, o);
          even += 32;
          odd += 32;
        }
      }
    }
#elif HWY_TARGET == HWY_AVX2
    if constexpr (kPairs<R>) {
      if (use_split && i + 4 * lanes <= stop) {
        // As above, 8 alphas of each walk a 16-lane vector.
        const SplitWalk walk = SplitAt(split, half, j);
        const float* even = walk.even;
        const float* odd = walk.odd;
        for (; i + 4 * lanes <= stop; i += 4 * lanes, j += 4 * lanes) {
          const PairAlphas p = {
              {_mm256_loadu_ps(even), _mm256_loadu_ps(even + 8)},
              {_mm256_loadu_ps(odd), _mm256_loadu_ps(odd + 8)}};
          Pairs4<kForward, kStream, kSignOnly<R>>(v + i, s + i, out + i, p);
          even += 16;
          odd += 16;
        }
      }
    }
#endif
    for (; i + 4 * lanes <= stop; i += 4 * lanes, j += 4 * lanes) {
      Step4Any<R, kForward, kStream>(
          d, v + i, s + i, out + i, hn::LoadU(d, a + j),
          hn::LoadU(d, a + j + lanes), hn::LoadU(d, a + j + 2 * lanes),
          hn::LoadU(d, a + j + 3 * lanes));
    }
    for (; i < stop; i += lanes, j += lanes) {
      Step<R, kForward, true, kStream>(d, v + i, s + i, out + i,
                                       hn::LoadU(d, a + j));
    }
    if (j >= period) j -= period;  // period >= lanes unless it is n
  }
  for (; i < n; ++i) {
    Step<R, kForward, false, false>(d1, v + i, s + i, out + i,
                                    hn::LoadU(d1, a + j));
    if (++j == period) j = 0;
  }
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || \
    HWY_TARGET == HWY_AVX2
// bfloat16's vectors of two values per 32-bit lane, as PlanesWords takes
// them: Words on AVX-512 (32 elements a vector), Pairs on AVX2 (16).
#if HWY_TARGET == HWY_AVX2
using WordAlpha = __m256;
constexpr size_t kWordLanes = 16;
template <size_t kVectors, bool kForward, bool kStream, bool kSignOnly>
HWY_INLINE void WordVectors(const uint16_t* v, const uint16_t* s, uint16_t* out,
                            const WordAlpha (&even)[kVectors],
                            const WordAlpha (&odd)[kVectors]) {
  Pairs<kVectors, kForward, kStream, kSignOnly>(v, s, out, even, odd);
}
HWY_INLINE WordAlpha WordAlphaOf(float a) { return _mm256_set1_ps(a); }
#else
using WordAlpha = __m512;
constexpr size_t kWordLanes = 32;
template <size_t kVectors, bool kForward, bool kStream, bool kSignOnly>
HWY_INLINE void WordVectors(const uint16_t* v, const uint16_t* s, uint16_t* out,
                            const WordAlpha (&even)[kVectors],
                            const WordAlpha (&odd)[kVectors]) {
  Words<kVectors, kForward, kStream, kSignOnly>(v, s, out, even, odd);
}
HWY_INLINE WordAlpha WordAlphaOf(float a) { return _mm512_set1_ps(a); }
#endif
// first's first k lanes, next's others (WordAlpha is a float32 vector).
HWY_INLINE WordAlpha FirstLanes(size_t k, WordAlpha first, WordAlpha next) {
  const hn::ScalableTag<float> df;
  using V = hn::Vec<decltype(df)>;
  return hn::IfThenElse(hn::FirstN(df, k), V{first}, V{next}).raw;
}

// Planes' bfloat16 rows of length >= kWordLanes from element i (y
// vector-aligned there) in vectors of kWordLanes elements: a vector inside
// row r takes its alpha, one across the seam of rows r and r + 1 the first
// alpha for its elements before the seam (by parity: 32-bit lane m holds
// elements 2m and 2m + 1). Leaves i where fewer than kWordLanes elements
// are left: the caller takes those lane by lane.
template <class R, bool kForward, bool kStream>
HWY_INLINE void PlanesWords(const uint16_t* v, const uint16_t* s, uint16_t* out,
                            const float* a, size_t length, size_t period,
                            size_t n, size_t& i) {
  constexpr size_t kW = kWordLanes;  // elements of a vector
  size_t j = i / length % period;
  size_t seam = (i / length + 1) * length;
  WordAlpha av = WordAlphaOf(a[j]);
  while (i + kW <= n) {
    const size_t stop = std::min(seam, n);
    const WordAlpha two[2] = {av, av};
    for (; i + 2 * kW <= stop; i += 2 * kW) {
      WordVectors<2, kForward, kStream, kSignOnly<R>>(v + i, s + i, out + i,
                                                      two, two);
    }
    const WordAlpha one[1] = {av};
    for (; i + kW <= stop; i += kW) {
      WordVectors<1, kForward, kStream, kSignOnly<R>>(v + i, s + i, out + i,
                                                      one, one);
    }
    if (i + kW > n) break;
    // The next vector ends in row r + 1 (length >= kW): it starts at the
    // seam or crosses it.
    if (++j == period) j = 0;
    const WordAlpha next = WordAlphaOf(a[j]);
    if (i != seam) {
      const size_t q = seam - i;  // its elements in row r, 0 < q < kW
      const WordAlpha even[1] = {FirstLanes((q + 1) / 2, av, next)};
      const WordAlpha odd[1] = {FirstLanes(q / 2, av, next)};
      WordVectors<1, kForward, kStream, kSignOnly<R>>(v + i, s + i, out + i,
                                                      even, odd);
      i += kW;
    }
    seam += length;
    av = next;
  }
}
#endif

// `groups` groups of four aligned vectors from element i, all with alpha
// av; returns the element after them.
template <class R, bool kForward, bool kStream, class DF>
HWY_INLINE size_t UniformGroups(DF d, const typename R::T* v,
                                const typename R::T* s, typename R::T* out,
                                size_t i, size_t groups, hn::Vec<DF> av) {
  // One induction variable: a group counter as well cost ~10 % in rows of
  // one group.
  const size_t step = 4 * hn::Lanes(d);
  for (const size_t end = i + groups * step; i != end; i += step) {
    Step4Uniform<R, kForward, kStream>(d, v + i, s + i, out + i, av);
  }
  return i;
}

// Planes' rows of one vector or more but shorter than a group of four
// (NCHW 3x3 to 5x5 float32 and float16 on AVX2), in cache: each row in
// unaligned vectors from its first element, the last one ending at its
// last element (overlapping the one before it) and computed before the
// others are stored (in place, it reads x as it was). Every row takes the
// same steps, with one alpha: the aligned walk's steps per row vary with
// the row's offset, and its branches and seams had cost 2.4-5.3x
// LeakyReLU's time for rows of 10 to 20 float32 or float16 (these rows
// 0.55-0.91x the time of that walk). Longer rows keep the walk: with
// float32 rows of 49 or 100, one vector more per row cost more than the
// walk's seams.
// A function of its own: inlined into Planes, it changed the code of the
// aligned walk below (float32 planes of 49: 1.04-1.09x slower).
template <class R, bool kForward, class DF>
HWY_NOINLINE void OverlappedRows(DF df, const typename R::T* v,
                                 const typename R::T* s, typename R::T* out,
                                 const typename R::A* a, size_t length,
                                 size_t rows, size_t period) {
  const typename R::template Storage<DF> d;
  const size_t lanes = hn::Lanes(df);
  const size_t body = (length - 1) / lanes;  // vectors before the last, < 4
  const size_t last = length - lanes;        // the last one's offset
  const typename R::A* ap = a;
  const typename R::A* const a_end = a + period;
  for (size_t i = 0, r = 0; r < rows; ++r, i += length) {
    const auto av = hn::Set(df, *ap);
    ap = ap + 1 == a_end ? a : ap + 1;
    const auto y_last =
        ApplyAt<R, kForward>(df, v + i + last, s + i + last, av);
    size_t k = i;
    for (const size_t stop = i + body * lanes; k != stop; k += lanes) {
      Step<R, kForward, false, false>(df, v + k, s + k, out + k, av);
    }
    hn::StoreU(y_last, d, out + i + last);
  }
}

// Consecutive rows of `length` elements, row r with alpha[r % period] (NCHW
// planes), walked as one span of rows * length elements in aligned vectors:
// a vector inside row r takes its alpha broadcast; one across the seam of
// rows r and r + 1 blends the two. Rows shorter than a vector go lane by
// lane.
template <class R, class DF, bool kForward, bool kStream>
void Planes(const PreluPlanesArgs& args) {
  const auto [v, s, out, a] = ArraysOf<R>(args);
  const size_t length = args.length;
  const size_t period = args.period;
  const size_t n = length * args.rows;
  const DF d;
  const hn::CappedTag<typename R::A, 1> d1;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  if (length % (4 * lanes) == 0) {
    // Rows of whole groups of four vectors (NCHW with 8x8 planes and
    // more): every row starts o lanes past a vector boundary, so the row's
    // last aligned vector crosses its seam at the same lane o: groups of
    // four aligned vectors, the last of each row blending the two alphas
    // with one mask. No per-vector bookkeeping: short rows spent ~25 % of
    // their time in the general loop's below.
    const size_t head = HeadOf<R>(d, out, n);  // below 2 * lanes
    for (; i < head; ++i) {
      Step<R, kForward, false, false>(d1, v + i, s + i, out + i,
                                      hn::Set(d1, a[0]));
    }
    // The seam's offset in the row's last group.
    const size_t o = head == 0 ? 0 : 4 * lanes - head;
    const Seam<DF> seam = SeamAt(d, o);
    const size_t rows = args.rows;  // a local: stores to out may alias args
    const size_t groups = length / (4 * lanes);
    // Groups with the row's alpha alone: all of them when rows start on a
    // vector (one loop per row: a 128-element row, NCHW with 512 channels,
    // had set up a second call for its last group), else all but the last.
    const size_t inside = o == 0 ? groups : groups - 1;
    // The rows walked with an alpha pointer and nothing else per row: rows
    // of up to four groups (NCHW planes of 32 to 128 float16 or float32
    // elements on AVX2) had spent as long in a row's bookkeeping (the
    // alpha index's wrap, the seam test, the loops' branches) as in its
    // four vectors when the core's other hyperthread was busy: float16,
    // 512 rows of 128, 1.3-1.4x LeakyReLU's time, 2048 rows of 32 1.7-2.0x.
    using A = typename R::A;
    if (o == 0) {  // rows end on a vector boundary: their groups alone
      for (size_t r = 0; r < rows;) {
        // Up to the end of alpha or of the rows, then alpha wraps.
        const A* const stop = a + std::min(period, rows - r);
        r += static_cast<size_t>(stop - a);
        for (const A* ap = a; ap != stop; ++ap) {
          i = UniformGroups<R, kForward, kStream>(d, v, s, out, i, inside,
                                                  hn::Set(d, *ap));
        }
      }
    } else {
      // The rows but the last: their groups, then the group across the
      // seam with the next row's alpha.
      const A* const a_end = a + period;
      const A* ap = a;
      for (size_t r = 0; r + 1 < rows; ++r) {
        const A* const next = ap + 1 == a_end ? a : ap + 1;
        const auto av = hn::Set(d, *ap);
        i = UniformGroups<R, kForward, kStream>(d, v, s, out, i, inside, av);
        Seam4<R, kForward, kStream>(d, v + i, s + i, out + i, av,
                                    hn::Set(d, *next), seam);
        i += 4 * lanes;
        ap = next;
      }
      // The last row: its groups and vectors, then the rest one by one.
      const auto av = hn::Set(d, *ap);
      i = UniformGroups<R, kForward, kStream>(d, v, s, out, i, inside, av);
      for (; i + lanes <= n; i += lanes) {
        Step<R, kForward, true, kStream>(d, v + i, s + i, out + i, av);
      }
      for (; i < n; ++i) {
        Step<R, kForward, false, false>(d1, v + i, s + i, out + i,
                                        hn::Set(d1, *ap));
      }
    }
    if (kStream) hwy::FlushStream();
    return;
  }
#if HWY_TARGET != HWY_SCALAR
  // bfloat16's Words and Pairs keep their aligned walk (below).
  if constexpr (!kStream && !kWords<R> && !kPairs<R>) {
    if (length >= lanes && length < 4 * lanes) {
      OverlappedRows<R, kForward>(d, v, s, out, a, length, args.rows, period);
      return;
    }
  }
#endif
  if (length >= lanes) {
    size_t i0 = HeadOf<R>(d, out, n);
    for (; i < i0; ++i) {
      Step<R, kForward, false, false>(d1, v + i, s + i, out + i,
                                      hn::Set(d1, a[i / length % period]));
    }
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || \
    HWY_TARGET == HWY_AVX2
    if constexpr (kWords<R> || kPairs<R>) {
      // bfloat16 rows of a vector or more (7x7 planes and longer): the loop
      // below in vectors of two values per 32-bit lane, so that every
      // element takes LeakyReLU's schedule; the vectors across a seam (one
      // seam at most) take their alphas by parity. The float32 steps below
      // widen and narrow each element: 512 channels of 7x7 took 3.6x
      // LeakyReLU's time in cache on AVX-512, 2.1x on AVX2. The loop below
      // takes what is left (less than one of those vectors).
      if (length >= kWordLanes) {
        PlanesWords<R, kForward, kStream>(v, s, out, a, length, period, n, i);
      }
    }
#endif
    size_t r = i / length;
    size_t j = r % period;           // row r's alpha
    size_t seam = (r + 1) * length;  // end of row r
    auto av = hn::Set(d, a[j]);
    while (i + lanes <= n) {
      // The vectors inside row r, four at a time, then one at a time.
      const size_t stop = std::min(seam, n);
      for (; i + 4 * lanes <= stop; i += 4 * lanes) {
        Step4Uniform<R, kForward, kStream>(d, v + i, s + i, out + i, av);
      }
      for (; i + lanes <= stop; i += lanes) {
        Step<R, kForward, true, kStream>(d, v + i, s + i, out + i, av);
      }
      if (i + lanes > n) break;
      // i + lanes <= n and length >= lanes: row r + 1 exists and the next
      // vector ends within it; it starts there, or crosses the seam.
      if (++j == period) j = 0;
      const auto next = hn::Set(d, a[j]);
      if (i != seam) {
        const auto blend = hn::IfThenElse(hn::FirstN(d, seam - i), av, next);
        Step<R, kForward, true, kStream>(d, v + i, s + i, out + i, blend);
        i += lanes;
      }
      ++r;
      seam += length;
      av = next;
    }
  }
  for (; i < n; ++i) {
    Step<R, kForward, false, false>(d1, v + i, s + i, out + i,
                                    hn::Set(d1, a[i / length % period]));
  }
  if (kStream) hwy::FlushStream();
}

// float16 bits (u16 lanes) -> float32 bits, on integers only (F16C's
// widening would raise the invalid flag for a signalling NaN alpha, and the
// round trip reads that flag). Subnormals: m * 2^-24 as the int32 m
// converted to float (exact below 2^24, a normal result, so neither DAZ/FTZ
// nor the rounding mode applies) with 24 taken from its exponent.
template <class DF>
HWY_INLINE hn::Vec<DF> WidenHalfBits(DF df,
                                     hn::Vec<hn::Rebind<uint16_t, DF>> h) {
  const hn::RebindToSigned<DF> di;
  const auto u = hn::BitCast(di, hn::PromoteTo(hn::RebindToUnsigned<DF>(), h));
  const auto m = hn::And(u, hn::Set(di, 0x7fff));
  const auto sign = hn::ShiftLeft<16>(hn::And(u, hn::Set(di, 0x8000)));
  const auto rebias = hn::Set(di, 112 << 23);
  // Normal, inf and NaN: rebias; inf and NaN to float32's top exponent.
  auto normal = hn::Add(hn::ShiftLeft<13>(m), rebias);
  normal = hn::IfThenElse(hn::Gt(m, hn::Set(di, 0x7bff)),
                          hn::Add(normal, rebias), normal);
  const auto subnormal =
      hn::Sub(hn::BitCast(di, hn::ConvertTo(df, m)), hn::Set(di, 24 << 23));
  auto bits =
      hn::IfThenElse(hn::Gt(m, hn::Set(di, 0x3ff)), normal,
                     hn::IfThenElseZero(hn::Gt(m, hn::Zero(di)), subnormal));
  return hn::BitCast(df, hn::Or(bits, sign));
}

// WidenAlphasKernel: full vectors, then the rest through a zeroed copy.
template <bool kHalf>
void WidenAlphas(const uint16_t* bits, size_t n, float* out) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  const size_t lanes = hn::Lanes(df);
  const auto widen = [&](hn::Vec<decltype(d16)> h) {
    return kHalf
               ? WidenHalfBits(df, h)
               : hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(
                                     hn::RebindToUnsigned<decltype(df)>(), h)));
  };
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(widen(hn::LoadU(d16, bits + i)), df, out + i);
  }
  if (i == n) return;
  HWY_ALIGN uint16_t rest[hn::MaxLanes(df)] = {};
  HWY_ALIGN float widened[hn::MaxLanes(df)];
  std::copy(bits + i, bits + n, rest);
  hn::Store(widen(hn::Load(d16, rest)), df, widened);
  std::copy(widened, widened + (n - i), out + i);
}

// One float64 alpha as NarrowAlphasKernel rounds it: on the bits after
// the conversion, without a branch.
HWY_INLINE float NarrowAlpha(double a) {
  const float f = static_cast<float>(a);
  uint32_t bits;
  hwy::CopyBytes<sizeof(bits)>(&f, &bits);
  bits = (bits & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : bits;
  float out;
  hwy::CopyBytes<sizeof(out)>(&bits, &out);
  return out;
}

// NarrowAlphasKernel: full vectors, then the rest one by one. Highway's
// scalar DemoteTo clamps to float32's range (an inf or an overflowing alpha
// must round to inf), so that target converts one by one throughout.
void NarrowAlphas(const double* a, size_t n, float* out) {
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  const hn::ScalableTag<double> d;
  const hn::Rebind<float, decltype(d)> df;
  const hn::RebindToSigned<decltype(df)> di;
  const size_t lanes = hn::Lanes(d);
  for (; i + lanes <= n; i += lanes) {
    const auto bits = hn::BitCast(di, hn::DemoteTo(df, hn::LoadU(d, a + i)));
    const auto nan =
        hn::Gt(hn::And(bits, hn::Set(di, 0x7fffffff)), hn::Set(di, 0x7f800000));
    hn::StoreU(
        hn::BitCast(df, hn::IfThenElse(nan, hn::Set(di, 0x7fc00000), bits)), df,
        out + i);
  }
#endif
  for (; i < n; ++i) out[i] = NarrowAlpha(a[i]);
}

template <class R, class D>
void Fill(lrelu_dtype_t dtype, PreluRowTable* table) {
  const int t = DTypeIndex(dtype);
  table->row[t][0][0] = &Row<R, D, true, false>;
  table->row[t][0][1] = &Row<R, D, true, true>;
  table->row[t][1][0] = &Row<R, D, false, false>;
  table->row[t][1][1] = &Row<R, D, false, true>;
  table->planes[t][0][0] = &Planes<R, D, true, false>;
  table->planes[t][0][1] = &Planes<R, D, true, true>;
  table->planes[t][1][0] = &Planes<R, D, false, false>;
  table->planes[t][1][1] = &Planes<R, D, false, true>;
}

void FillPreluRowTable(PreluRowTable* table) {
  Fill<F32, hn::ScalableTag<float>>(LRELU_DTYPE_FLOAT32, table);
  Fill<F64, hn::ScalableTag<double>>(LRELU_DTYPE_FLOAT64, table);
  Fill<F16<true>, hn::ScalableTag<float>>(LRELU_DTYPE_FLOAT16, table);
  Fill<F16<false>, hn::ScalableTag<float>>(LRELU_DTYPE_BFLOAT16, table);
  using D = hn::ScalableTag<float>;
  table->row_round_trip[0] = &Row<F16RoundTrip, D, true, false>;
  table->row_round_trip[1] = &Row<F16RoundTrip, D, true, true>;
  table->planes_round_trip[0] = &Planes<F16RoundTrip, D, true, false>;
  table->planes_round_trip[1] = &Planes<F16RoundTrip, D, true, true>;
  table->row_bfloat16_positive[0] = &Row<BF16Positive, D, true, false>;
  table->row_bfloat16_positive[1] = &Row<BF16Positive, D, true, true>;
  table->planes_bfloat16_positive[0] = &Planes<BF16Positive, D, true, false>;
  table->planes_bfloat16_positive[1] = &Planes<BF16Positive, D, true, true>;
  table->widen_half = &WidenAlphas<true>;
  table->widen_bfloat16 = &WidenAlphas<false>;
  table->narrow_float64 = &NarrowAlphas;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lrelu::cpu {

HWY_EXPORT(FillPreluRowTable);

const PreluRowTable& PreluRowsFor(int64_t target) {
  return FilledTable(target, HWY_DISPATCH_TABLE(FillPreluRowTable));
}

void FlushStreamedRows() { hwy::FlushStream(); }

}  // namespace lrelu::cpu
#endif  // HWY_ONCE
