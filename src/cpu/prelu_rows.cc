// Per-element-alpha PReLU rows, compiled once per Highway target
// (foreach_target.h re-includes this file).
#include "cpu/prelu_rows.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/prelu_rows.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "cpu/convert-inl.h"
#include "cpu/opaque-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One step of `lanes(d)` elements at i, per dtype.
// av: the lanes' alpha in the compute type (A).
struct F32 {
  using T = float;
  using A = float;
  template <class D>
  static HWY_INLINE void Step(D d, const float* v, const float* s, float* out,
                              hn::Vec<D> av) {
    const auto vv = hn::LoadU(d, v);
    const auto sv = hn::LoadU(d, s);
    hn::StoreU(
        hn::IfThenElse(hn::Lt(sv, hn::Zero(d)), Opaque(hn::Mul(vv, av)), vv), d,
        out);
  }
};

struct F64 {
  using T = double;
  using A = double;
  template <class D>
  static HWY_INLINE void Step(D d, const double* v, const double* s,
                              double* out, hn::Vec<D> av) {
    const auto vv = hn::LoadU(d, v);
    const auto sv = hn::LoadU(d, s);
    hn::StoreU(
        hn::IfThenElse(hn::Lt(sv, hn::Zero(d)), Opaque(hn::Mul(vv, av)), vv), d,
        out);
  }
};

// 16-bit storage: d is a float32 tag; s < 0 is an integer test on the bits
// (negative finite or -inf), so NaN payloads never go through a conversion.
template <bool kHalf>
struct F16 {
  using T = uint16_t;
  using A = float;
  template <class DF>
  static HWY_INLINE void Step(DF df, const uint16_t* v, const uint16_t* s,
                              uint16_t* out, hn::Vec<DF> av) {
    const hn::Rebind<uint16_t, DF> d;
    const hn::RebindToSigned<decltype(d)> di;
    const auto vv = hn::LoadU(d, v);
    const auto sv = hn::LoadU(d, s);
    const auto negative = hn::RebindMask(
        d, hn::Lt(hn::BitCast(di, hn::Sub(sv, hn::Set(d, uint16_t{1}))),
                  hn::Set(di, static_cast<int16_t>(kHalf ? -1024 : -128))));
    const auto product = hn::Mul(
        kHalf ? HalfBitsToFloat(df, vv) : BFloat16BitsToFloat(df, vv), av);
    const auto rounded = kHalf ? FloatToHalfBits(d, product)
                               : FloatToBFloat16Bits<true>(d, product);
    hn::StoreU(hn::IfThenElse(negative, rounded, vv), d, out);
  }
};

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

template <class R, class DFull>
void Row(const PreluRowArgs& args) {
  const auto [v, s, out, a] = ArraysOf<R>(args);
  const size_t n = args.n;
  const DFull d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    R::Step(d, v + i, s + i, out + i, hn::LoadU(d, a + i));
    R::Step(d, v + i + lanes, s + i + lanes, out + i + lanes,
            hn::LoadU(d, a + i + lanes));
  }
  for (; i + lanes <= n; i += lanes) {
    R::Step(d, v + i, s + i, out + i, hn::LoadU(d, a + i));
  }
  const hn::CappedTag<hn::TFromD<DFull>, 1> d1;
  for (; i < n; ++i) R::Step(d1, v + i, s + i, out + i, hn::LoadU(d1, a + i));
}

// Consecutive rows of `length` elements, row r with alpha[r] (NCHW planes):
// alpha broadcast once per row, so short rows cost no call each.
template <class R, class DFull>
void Planes(const PreluPlanesArgs& args) {
  auto [v, s, out, a] = ArraysOf<R>(args);
  const size_t length = args.length;
  const size_t rows = args.rows;
  const DFull d;
  const hn::CappedTag<hn::TFromD<DFull>, 1> d1;
  const size_t lanes = hn::Lanes(d);
  for (size_t r = 0; r < rows; ++r) {
    const auto av = hn::Set(d, a[r]);
    size_t i = 0;
    for (; i + lanes <= length; i += lanes) {
      R::Step(d, v + i, s + i, out + i, av);
    }
    for (; i < length; ++i)
      R::Step(d1, v + i, s + i, out + i, hn::Set(d1, a[r]));
    v += length;
    s += length;
    out += length;
  }
}

template <class R, class D>
void Fill(lrelu_dtype_t dtype, PreluRowTable* table) {
  table->row[DTypeIndex(dtype)][0] = &Row<R, D>;
  table->row[DTypeIndex(dtype)][1] = &Row<R, D>;
  table->planes[DTypeIndex(dtype)] = &Planes<R, D>;
}

void FillPreluRowTable(PreluRowTable* table) {
  Fill<F32, hn::ScalableTag<float>>(LRELU_DTYPE_FLOAT32, table);
  Fill<F64, hn::ScalableTag<double>>(LRELU_DTYPE_FLOAT64, table);
  Fill<F16<true>, hn::ScalableTag<float>>(LRELU_DTYPE_FLOAT16, table);
  Fill<F16<false>, hn::ScalableTag<float>>(LRELU_DTYPE_BFLOAT16, table);
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

}  // namespace lrelu::cpu
#endif  // HWY_ONCE
