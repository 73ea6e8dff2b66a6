// The bounded float64 sums of PReLU's dalpha (cpu/prelu_dalpha_bound.h):
// Highway kernels compiled once per target (foreach_target.h re-includes
// this file), and the decision whether the bound fixes the rounding.
#include "cpu/prelu_dalpha_bound.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/prelu_dalpha_bound.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "cpu/prelu_dalpha-inl.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The storage row k of `base`, rows `step` bytes apart.
template <typename T>
HWY_INLINE const T* Row(const char* base, int64_t step, int k) {
  return reinterpret_cast<const T*>(base + k * step);
}

// Rows read side by side (four a step) are as many streams for the
// hardware prefetchers, which fell behind where the rows came from memory
// (512 channels, 128 Ki elements flushed from the caches: float32 1.09x,
// float16 1.28x the time of the rows one at a time); a software prefetch
// 1 KiB ahead in each row took that to 0.93-0.99x and 1.05-1.11x (A/B).
// A prefetch past the end does not fault; the address is formed as an
// integer (as prelu_rows.cc's), not by pointer arithmetic past the tensor.
constexpr uintptr_t kAheadBytes = 1024;
template <typename T>
HWY_INLINE void PrefetchAhead(const T* p) {
  hwy::Prefetch(reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(p) +
                                              kAheadBytes));
}

// The sum of kRows vectors: a tree of kRows - 1 additions.
template <int kRows, class V>
HWY_INLINE V Tree(const V* q) {
  if constexpr (kRows == 4) {
    return hn::Add(hn::Add(q[0], q[1]), hn::Add(q[2], q[3]));
  } else {
    return q[0];
  }
}

// Terms widened from x and dy by loader L (prelu_dalpha-inl.h).
template <class L>
void BoundedRun(const void* xp, const void* dyp, size_t n, BoundedSum* s) {
  using T = typename L::T;
  const auto* x = static_cast<const T*>(xp);
  const auto* dy = static_cast<const T*>(dyp);
  const hn::ScalableTag<double> d;
  const size_t lanes = hn::Lanes(d);
  // Four accumulators of each kind: the additions' latency, not their
  // throughput, would otherwise bound the loop.
  auto s0 = hn::Zero(d), s1 = s0, s2 = s0, s3 = s0;
  auto a0 = s0, a1 = s0, a2 = s0, a3 = s0;
  size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const auto p0 = Term<L>(d, x + i, dy + i);
    const auto p1 = Term<L>(d, x + i + lanes, dy + i + lanes);
    const auto p2 = Term<L>(d, x + i + 2 * lanes, dy + i + 2 * lanes);
    const auto p3 = Term<L>(d, x + i + 3 * lanes, dy + i + 3 * lanes);
    s0 = hn::Add(s0, p0);
    s1 = hn::Add(s1, p1);
    s2 = hn::Add(s2, p2);
    s3 = hn::Add(s3, p3);
    a0 = hn::Add(a0, hn::Abs(p0));
    a1 = hn::Add(a1, hn::Abs(p1));
    a2 = hn::Add(a2, hn::Abs(p2));
    a3 = hn::Add(a3, hn::Abs(p3));
  }
  if (i < n) {  // zero-padded: a zero x makes a zero term
    T xt[HWY_MAX_BYTES / 2] = {}, dyt[HWY_MAX_BYTES / 2] = {};
    std::memcpy(xt, x + i, (n - i) * sizeof(T));
    std::memcpy(dyt, dy + i, (n - i) * sizeof(T));
    for (size_t k = 0; k < n - i; k += lanes) {  // at most 4 vectors
      const auto p = Term<L>(d, xt + k, dyt + k);
      s0 = hn::Add(s0, p);
      a0 = hn::Add(a0, hn::Abs(p));
    }
  }
  const double sum =
      hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  const double abs =
      hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
  // An accumulator lane takes n / (4 lanes) terms in the unrolled loop and
  // at most 4 from the tail; then two additions join the four
  // accumulators and at most `lanes` the lanes.
  s->AddRun(sum, abs, static_cast<int64_t>(n / (4 * lanes) + 6 + lanes));
}

// Adds kRows terms of each lane, q[0 .. kRows - 1], to the accumulators
// at sp and their magnitudes to those at ap: a tree of kRows - 1
// additions, then one to the accumulator.
template <int kRows, class D>
HWY_INLINE void Accumulate(D d, const hn::Vec<D>* q, double* sp, double* ap) {
  hn::Vec<D> a[kRows];
  for (int k = 0; k < kRows; ++k) a[k] = hn::Abs(q[k]);
  hn::StoreU(hn::Add(hn::LoadU(d, sp), Tree<kRows>(q)), d, sp);
  hn::StoreU(hn::Add(hn::LoadU(d, ap), Tree<kRows>(a)), d, ap);
}

// Adds the terms of kRows rows (x_row / dy_row bytes apart) to each
// channel's sums[c] and abs[c]; kPrefetch: each row's vectors prefetched
// ahead (PrefetchAhead), for rows side by side.
template <class L, int kRows, bool kPrefetch = false>
HWY_INLINE void RowsOf(const char* x, int64_t x_row, const char* dy,
                       int64_t dy_row, int64_t channels, double* sums,
                       double* abs) {
  using T = typename L::T;
  const hn::ScalableTag<double> d;
  const hn::CappedTag<double, 1> d1;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t c = 0;
  auto step = [&](auto dv) {
    hn::Vec<decltype(dv)> p[kRows];
    for (int k = 0; k < kRows; ++k) {
      if constexpr (kPrefetch) {
        PrefetchAhead(Row<T>(x, x_row, k) + c);
        PrefetchAhead(Row<T>(dy, dy_row, k) + c);
      }
      p[k] = Term<L>(dv, Row<T>(x, x_row, k) + c, Row<T>(dy, dy_row, k) + c);
    }
    Accumulate<kRows>(dv, p, sums + c, abs + c);
  };
  for (; c + lanes <= channels; c += lanes) step(d);
  for (; c < channels; ++c) step(d1);
}

// Adds the terms of `rows` rows to sums[c] and their magnitudes to abs[c]
// for c < channels: four at a time (one load and store of each accumulator
// per four terms, and a quarter of the height; kPrefetch: each row
// prefetched ahead), or one at a time where in_order (RowsInOrder).
template <class L, bool kPrefetch = false>
void AddRows(const char* x, int64_t x_row, const char* dy, int64_t dy_row,
             int64_t rows, int64_t channels, bool in_order, double* sums,
             double* abs) {
  int64_t r = 0;
  if (!in_order) {
    for (; r + 4 <= rows; r += 4) {
      RowsOf<L, 4, kPrefetch>(x + r * x_row, x_row, dy + r * dy_row, dy_row,
                              channels, sums, abs);
    }
  }
  for (; r < rows; ++r) {
    RowsOf<L, 1>(x + r * x_row, x_row, dy + r * dy_row, dy_row, channels, sums,
                 abs);
  }
}

template <class L, bool kPrefetch = false>
void BoundedRows(const char* x, int64_t x_row, const char* dy, int64_t dy_row,
                 int64_t rows, int64_t channels, bool streamed, double* sums) {
  AddRows<L, kPrefetch>(
      x, x_row, dy, dy_row, rows, channels,
      RowsInOrder(channels * static_cast<int64_t>(sizeof(typename L::T)),
                  streamed),
      sums, sums + channels);
}

#if HWY_TARGET != HWY_SCALAR
// How the kernels below form a term from x and dy read as float32 lanes
// (eight to an AVX2 vector):
// - kProduct: t = x * dy in float32 is the term, and only t is widened to
//   float64 (half the conversions, which bound these loops). Exact for
//   float16 (at most 22 bits, within 2^-48 .. 2^32); for bfloat16 (16
//   bits) where |t| >= 2^-134, else within 2^-150 (see CertainMagnitude).
// - kWiden: float32 on AVX-512 (runs side by side and rows), and its wide
//   rows streamed one at a time below (elsewhere the float64 kernels,
//   quicker there: FillBoundedTable, BoundedRowsLanes): x and dy widened,
//   the term formed in float64 (exact) by a multiply-add into the sum (the
//   same sum: the product is exact), the magnitude in float32.
// `Wide` reads the storage as float64 lanes (prelu_dalpha-inl.h) for a
// row's last few channels and for the float64 kernels that run again
// where CertainMagnitude fails.
enum class Form { kProduct, kWiden };

struct FromF32 {
  using T = float;
  using Wide = LoadF32;
  static constexpr Form kForm = Form::kWiden;
  template <class DF>
  static HWY_INLINE hn::Vec<DF> Load(DF df, const float* p) {
    return hn::LoadU(df, p);
  }
};
template <bool kHalf>  // float16, else bfloat16
struct From16 {
  using T = uint16_t;
  using Wide = Load16<kHalf>;
  static constexpr Form kForm = Form::kProduct;
  template <class DF>
  static HWY_INLINE hn::Vec<DF> Load(DF df, const uint16_t* p) {
    return SixteenToFloat<kHalf>(df, p);
  }
};

// Only float16's terms are always exact and never tiny: the others'
// float32 magnitude sums go through CertainMagnitude.
template <class In>
constexpr bool Checked() {
  return !std::is_same_v<In, From16<true>>;
}

// Whether a float32 magnitude sum m (a run, or a rows call: at most ~300
// additions a lane) lets RoundIfCertain's bound hold. Each float32
// operation errs by at most 2^-24 of its result or by 2^-150 absolute
// (below float32's normal range): the relative errors stay within 2^-15,
// which its margin takes, and the absolute ones (the terms' and the
// magnitudes', below 2^-138 in all) below 2^-26 of the bound when m >=
// 2^-60. A smaller m (zero or tiny terms), inf or NaN (overflow) sends
// the caller to float64 magnitudes and terms: exact, exact zeros.
inline bool CertainMagnitude(float m) { return m >= 0x1p-60f && m <= 0x1p127f; }

// Adds the terms of Lanes(df) elements at x, dy to *lo and *hi (float64:
// the lower and upper half) and their magnitudes to *m (float32).
template <class In, class D, class DF>
HWY_INLINE void AddTerms(D d, DF df, const typename In::T* x,
                         const typename In::T* dy, hn::Vec<D>* lo,
                         hn::Vec<D>* hi, hn::Vec<DF>* m) {
  const hn::Half<DF> dh;
  const auto xn = hn::Min(In::Load(df, x), hn::Zero(df));
  const auto dyv = In::Load(df, dy);
  if constexpr (In::kForm == Form::kWiden) {
    *lo = hn::MulAdd(hn::PromoteTo(d, hn::LowerHalf(dh, xn)),
                     hn::PromoteTo(d, hn::LowerHalf(dh, dyv)), *lo);
    *hi = hn::MulAdd(hn::PromoteTo(d, hn::UpperHalf(dh, xn)),
                     hn::PromoteTo(d, hn::UpperHalf(dh, dyv)), *hi);
    *m = hn::NegMulAdd(xn, hn::Abs(dyv), *m);  // xn <= 0: adds |x * dy|
  } else {
    const auto t = hn::Mul(xn, dyv);
    *lo = hn::Add(*lo, hn::PromoteTo(d, hn::LowerHalf(dh, t)));
    *hi = hn::Add(*hi, hn::PromoteTo(d, hn::UpperHalf(dh, t)));
    *m = hn::Add(*m, hn::Abs(t));
  }
}

template <class In>
void BoundedRunLanes(const void* xp, const void* dyp, size_t n,
                     BoundedSum* out) {
  using T = typename In::T;
  const auto* x = static_cast<const T*>(xp);
  const auto* dy = static_cast<const T*>(dyp);
  const hn::ScalableTag<double> d;
  const hn::Repartition<float, decltype(d)> df;
  const size_t lanes = hn::Lanes(df);
  // Four float64 accumulators, two float32 ones: the additions' latency,
  // not their throughput, would otherwise bound the loop.
  hn::Vec<decltype(d)> s0 = hn::Zero(d), s1 = s0, s2 = s0, s3 = s0;
  hn::Vec<decltype(df)> m0 = hn::Zero(df), m1 = m0;
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    AddTerms<In>(d, df, x + i, dy + i, &s0, &s1, &m0);
    AddTerms<In>(d, df, x + i + lanes, dy + i + lanes, &s2, &s3, &m1);
  }
  if (i < n) {  // zero-padded: a zero x makes a zero term
    T xt[HWY_MAX_BYTES / 2] = {}, dyt[HWY_MAX_BYTES / 2] = {};
    std::memcpy(xt, x + i, (n - i) * sizeof(T));
    std::memcpy(dyt, dy + i, (n - i) * sizeof(T));
    for (size_t k = 0; k < n - i; k += lanes) {
      AddTerms<In>(d, df, xt + k, dyt + k, &s0, &s1, &m0);
    }
  }
  const float abs = hn::GetLane(hn::SumOfLanes(df, hn::Add(m0, m1)));
  if (Checked<In>() && !CertainMagnitude(abs)) {
    return BoundedRun<typename In::Wide>(xp, dyp, n, out);
  }
  const double sum =
      hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  // As BoundedRun, in float32 lanes: n / (2 lanes) terms a lane in the
  // loop, 2 from the tail, then the joins.
  out->AddRun(sum, static_cast<double>(abs),
              static_cast<int64_t>(n / (2 * lanes) + 4 + lanes));
}

// kRows rows' terms of channels [c0, c0 + count) into sums[c] and their
// magnitudes into mag[c] (float32), as BoundedRunLanes's: one addition a
// row into the accumulators, loaded and stored once per kRows rows.
template <class In, int kRows>
HWY_INLINE void RowsLanesOf(const char* x, int64_t x_row, const char* dy,
                            int64_t dy_row, int64_t c0, int64_t count,
                            double* sums, float* mag) {
  using T = typename In::T;
  const hn::ScalableTag<double> d;
  const hn::Repartition<float, decltype(d)> df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t c = 0;
  for (; c + lanes <= count; c += lanes) {
    double* sp = sums + c;
    auto lo = hn::LoadU(d, sp), hi = hn::LoadU(d, sp + lanes / 2);
    auto m = hn::LoadU(df, mag + c);
    for (int k = 0; k < kRows; ++k) {
      if constexpr (kRows > 1) {
        PrefetchAhead(Row<T>(x, x_row, k) + c0 + c);
        PrefetchAhead(Row<T>(dy, dy_row, k) + c0 + c);
      }
      AddTerms<In>(d, df, Row<T>(x, x_row, k) + c0 + c,
                   Row<T>(dy, dy_row, k) + c0 + c, &lo, &hi, &m);
    }
    hn::StoreU(lo, d, sp);
    hn::StoreU(hi, d, sp + lanes / 2);
    hn::StoreU(m, df, mag + c);
  }
  // The last few channels in float64: exact terms.
  const hn::CappedTag<double, 1> d1;
  for (; c < count; ++c) {
    for (int k = 0; k < kRows; ++k) {
      const auto p = Term<typename In::Wide>(d1, Row<T>(x, x_row, k) + c0 + c,
                                             Row<T>(dy, dy_row, k) + c0 + c);
      sums[c] += hn::GetLane(p);
      mag[c] += static_cast<float>(std::fabs(hn::GetLane(p)));
    }
  }
}

// Narrow float32 rows in float32 magnitudes and fused multiply-adds as
// well, on AVX-512: 0.76-0.85x the float64 tree's time in cache (16 to 128
// channels, Xeon) and 0.97x out of cache. Each term then passes through one
// addition a row (RowsHeight).
constexpr bool kNarrowWiden = HWY_TARGET <= HWY_AVX3;

// BoundedRows in float32 lanes, up to kChunk channels a pass into sums
// and magnitudes on the stack, then added to sums[c] and
// sums[channels + c]; a pass with a magnitude CertainMagnitude rejects
// runs again in float64 (AddRows).
template <class In>
void BoundedRowsLanes(const char* x, int64_t x_row, const char* dy,
                      int64_t dy_row, int64_t rows, int64_t channels,
                      bool streamed, double* sums) {
  using T = typename In::T;
  constexpr int64_t kChunk = 1024;
  const int64_t row_bytes = channels * static_cast<int64_t>(sizeof(T));
  const bool wide = WideRows(row_bytes);
  const bool in_order = RowsInOrder(row_bytes, streamed);
  if (In::kForm == Form::kWiden && !kNarrowWiden && !in_order) {
    // float32 rows four a step below AVX-512: the float64 kernel's tree of
    // four rows was quicker than the fused multiply-adds' chain of four
    // (A/B on AMD Zen 3: 64 channels, in and out of cache; wide rows from
    // the L2, 256 to 2048 channels, 0.86-0.96x the time, 0.93-1.01x with
    // x and dy flushed from the caches), wide rows prefetched as
    // RowsLanesOf's. Rows one at a time (wide, streamed) keep the float32
    // lanes: the tree's one row a step, its float64 sums and magnitudes
    // loaded and stored for every row, took 1.08-1.14x their time with x
    // and dy in the L3 (1 Mi elements, 512 and 2048 channels).
    if (wide) {
      return BoundedRows<typename In::Wide, true>(x, x_row, dy, dy_row, rows,
                                                  channels, streamed, sums);
    }
    return BoundedRows<typename In::Wide>(x, x_row, dy, dy_row, rows, channels,
                                          streamed, sums);
  }
  alignas(64) double part[kChunk];
  alignas(64) float mag[kChunk];
  for (int64_t c0 = 0; c0 < channels; c0 += kChunk) {
    const int64_t count = std::min(kChunk, channels - c0);
    std::fill(part, part + count, 0.0);
    std::fill(mag, mag + count, 0.0f);
    int64_t r = 0;
    if (!in_order) {
      for (; r + 4 <= rows; r += 4) {
        RowsLanesOf<In, 4>(x + r * x_row, x_row, dy + r * dy_row, dy_row, c0,
                           count, part, mag);
      }
    }
    for (; r < rows; ++r) {
      RowsLanesOf<In, 1>(x + r * x_row, x_row, dy + r * dy_row, dy_row, c0,
                         count, part, mag);
    }
    bool certain = true;
    for (int64_t c = 0; c < count; ++c) {
      certain = certain && (!Checked<In>() || CertainMagnitude(mag[c]));
    }
    if (!certain) {
      const auto e = static_cast<int64_t>(sizeof(T));
      AddRows<typename In::Wide>(x + c0 * e, x_row, dy + c0 * e, dy_row, rows,
                                 count, in_order, sums + c0,
                                 sums + channels + c0);
      continue;
    }
    for (int64_t c = 0; c < count; ++c) {
      sums[c0 + c] += part[c];
      sums[channels + c0 + c] += mag[c];
    }
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

// float64 dalpha (the pair kernels): a double-double sum per lane, Ogita,
// Rump and Oishi's Dot2 ("Accurate sum and dot product", SIAM J. Sci.
// Comput. 26, 2005): each term x * dy split into p + pi exactly
// (TwoProduct by a fused multiply-add; pi = 0 where x and dy are 32/16-bit
// values, whose product float64 holds), p added to the sum s by TwoSum
// (s + p = t + sigma exactly), pi + sigma to the compensation c, |p| to
// the magnitude a.
struct LoadF64 {
  using T = double;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const double* p) {
    return hn::LoadU(d, p);
  }
};

template <class L, class D>
HWY_INLINE void AddPairTerms(D d, const typename L::T* x,
                             const typename L::T* dy, hn::Vec<D>* s,
                             hn::Vec<D>* c, hn::Vec<D>* a) {
  const auto xn = hn::Min(L::Load(d, x), hn::Zero(d));
  const auto dyv = L::Load(d, dy);
  const auto p = hn::Mul(xn, dyv);
  const auto t = hn::Add(*s, p);
  const auto z = hn::Sub(t, *s);
  auto e = hn::Add(hn::Sub(*s, hn::Sub(t, z)), hn::Sub(p, z));  // sigma
  if constexpr (sizeof(typename L::T) == 8) {  // float64 x: TwoProduct
    e = hn::Add(e, hn::MulSub(xn, dyv, p));
  }
  *s = t;
  *c = hn::Add(*c, e);
  *a = hn::Add(*a, hn::Abs(p));
}

// Adds the `count` (s, c, a) triples at s, c, a to out[0 .. 2] (sum, low,
// magnitude) by TwoSum, in order: `count` more steps of the chain.
HWY_INLINE void JoinPairs(const double* s, const double* c, const double* a,
                          size_t count, double* out) {
  for (size_t k = 0; k < count; ++k) {
    const double t = out[0] + s[k];
    const double z = t - out[0];
    out[1] += ((out[0] - (t - z)) + (s[k] - z)) + c[k];
    out[0] = t;
    out[2] += a[k];
  }
}

template <class L>
void PairRun(const void* xp, const void* dyp, size_t n, BoundedSum* out) {
  using T = typename L::T;
  const auto* x = static_cast<const T*>(xp);
  const auto* dy = static_cast<const T*>(dyp);
  const hn::ScalableTag<double> d;
  const size_t lanes = hn::Lanes(d);
  // Two chains: TwoSum's additions depend on the sum before.
  auto s0 = hn::Zero(d), c0 = s0, a0 = s0, s1 = s0, c1 = s0, a1 = s0;
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    AddPairTerms<L>(d, x + i, dy + i, &s0, &c0, &a0);
    AddPairTerms<L>(d, x + i + lanes, dy + i + lanes, &s1, &c1, &a1);
  }
  if (i < n) {  // zero-padded: a zero x makes a zero term
    T xt[HWY_MAX_BYTES / 4] = {}, dyt[HWY_MAX_BYTES / 4] = {};
    std::memcpy(xt, x + i, (n - i) * sizeof(T));
    std::memcpy(dyt, dy + i, (n - i) * sizeof(T));
    for (size_t k = 0; k < n - i; k += lanes) {
      AddPairTerms<L>(d, xt + k, dyt + k, &s0, &c0, &a0);
    }
  }
  alignas(64) double sv[HWY_MAX_BYTES / 4], cv[HWY_MAX_BYTES / 4],
      av[HWY_MAX_BYTES / 4];
  hn::Store(s0, d, sv);
  hn::Store(s1, d, sv + lanes);
  hn::Store(c0, d, cv);
  hn::Store(c1, d, cv + lanes);
  hn::Store(a0, d, av);
  hn::Store(a1, d, av + lanes);
  double sum[3] = {0, 0, 0};
  JoinPairs(sv, cv, av, 2 * lanes, sum);
  // A chain takes n / (2 lanes) steps in the loop and 2 in the tail;
  // the join 2 lanes more.
  out->AddPair(sum[0], sum[1], sum[2],
               static_cast<int64_t>(n / (2 * lanes) + 2 + 2 * lanes));
}

// Rows of `channels` elements into sums[k], sums[channels + k] and
// sums[2 channels + k] (sum, low, magnitude), one chain step a row, four
// rows a step at any width and wherever they come from (one load and store
// of the accumulators per four terms). One row at a time had been chosen
// because four a step took 2.5-3x one read out of cache (1.2x one at a
// time; float64, 64 channels); with each row prefetched ahead
// (PrefetchAhead) four a step took 0.69-0.81x the time of one at a time
// out of cache (16 to 4096 channels, 4-16 Mi elements, one and two
// threads), 0.71-0.73x with small tensors flushed from the caches and
// 0.62-0.80x in the L2 (A/B, float64).
template <class L>
void PairRows(const char* x, int64_t x_row, const char* dy, int64_t dy_row,
              int64_t rows, int64_t channels, bool /*streamed*/, double* sums) {
  using T = typename L::T;
  double* s = sums;
  double* c = sums + channels;
  double* a = sums + 2 * channels;
  const hn::ScalableTag<double> d;
  const hn::CappedTag<double, 1> d1;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  // kRows rows from row r, each term through its own step of the chain.
  auto add = [&](int64_t r, auto rows_tag) {
    constexpr int kRows = decltype(rows_tag)::value;
    int64_t k = 0;
    auto step = [&](auto dv) {
      auto sv = hn::LoadU(dv, s + k), cv = hn::LoadU(dv, c + k),
           av = hn::LoadU(dv, a + k);
      for (int q = 0; q < kRows; ++q) {
        const T* xq = Row<T>(x + r * x_row, x_row, q) + k;
        const T* dyq = Row<T>(dy + r * dy_row, dy_row, q) + k;
        if constexpr (kRows > 1) {
          PrefetchAhead(xq);
          PrefetchAhead(dyq);
        }
        AddPairTerms<L>(dv, xq, dyq, &sv, &cv, &av);
      }
      hn::StoreU(sv, dv, s + k);
      hn::StoreU(cv, dv, c + k);
      hn::StoreU(av, dv, a + k);
    };
    for (; k + lanes <= channels; k += lanes) step(d);
    for (; k < channels; ++k) step(d1);
  };
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) add(r, std::integral_constant<int, 4>());
  for (; r < rows; ++r) add(r, std::integral_constant<int, 1>());
}

// Runs side by side (BoundedRunsKernel): kGroup runs step together, one
// accumulator of each kind a run, so the additions' latency is hidden by
// the other runs instead of by four accumulators of one (a run of 128
// terms has four steps of four; its chains and lane sums were the
// latency of the whole call).
constexpr size_t kGroup = 4;

#if HWY_TARGET != HWY_SCALAR
// Folds v into its lowest 128-bit block, half onto half (an addition a lane
// a level), and stores that block to `out`.
template <class D>
HWY_INLINE void FoldToBlock(D d, hn::Vec<D> v, hn::TFromD<D>* out) {
  if constexpr (hn::MaxLanes(d) * sizeof(hn::TFromD<D>) > 16) {
    const hn::Half<D> dh;
    FoldToBlock(dh, hn::Add(hn::LowerHalf(dh, v), hn::UpperHalf(dh, v)), out);
  } else {
    hn::StoreU(v, d, out);
  }
}
// The lane sums of kGroup = 4 vectors side by side: out[g] = the sum of
// v[g]'s lanes, along a tree of at most log2(lanes) additions a lane (within
// RunsHeight's `lanes` for the join). Interleaving pairs of vectors first
// halves the vectors to fold: ~14 operations for the four where a lane sum
// each took ~28.
template <class D>
HWY_INLINE void SumsOfFour(D d, const hn::Vec<D>* v, hn::TFromD<D>* out) {
  static_assert(kGroup == 4, "four vectors");
  using T = hn::TFromD<D>;
  const auto a = hn::Add(hn::InterleaveLower(d, v[0], v[1]),
                         hn::InterleaveUpper(d, v[0], v[1]));
  const auto b = hn::Add(hn::InterleaveLower(d, v[2], v[3]),
                         hn::InterleaveUpper(d, v[2], v[3]));
  if constexpr (sizeof(T) == 8) {
    // Each block of a: (v0's, v1's); of b: (v2's, v3's).
    FoldToBlock(d, a, out);
    FoldToBlock(d, b, out + 2);
  } else {
    // Each block of a: (v0, v1, v0, v1); then (v0, v2, v1, v3).
    const auto c =
        hn::Add(hn::InterleaveLower(d, a, b), hn::InterleaveUpper(d, a, b));
    alignas(16) T block[4];
    FoldToBlock(d, c, block);
    out[0] = block[0];
    out[1] = block[2];
    out[2] = block[1];
    out[3] = block[3];
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

// Adds the last n - i terms of each run of a group (float64 terms, loader
// L), zero-padded to a vector, to s[g] and their magnitudes to a[g].
template <class L, class D>
HWY_INLINE void GroupTail(D d, const typename L::T* const* x,
                          const typename L::T* const* dy, size_t i, size_t n,
                          hn::Vec<D>* s, hn::Vec<D>* a) {
  using T = typename L::T;
  if (i == n) return;
  for (size_t g = 0; g < kGroup; ++g) {
    T xt[HWY_MAX_BYTES / 2] = {}, dyt[HWY_MAX_BYTES / 2] = {};
    std::memcpy(xt, x[g] + i, (n - i) * sizeof(T));
    std::memcpy(dyt, dy[g] + i, (n - i) * sizeof(T));
    const auto p = Term<L>(d, xt, dyt);  // a zero x makes a zero term
    s[g] = hn::Add(s[g], p);
    a[g] = hn::Add(a[g], hn::Abs(p));
  }
}

// kGroup runs of float64 terms (loader L): sums[g] and abs[g].
template <class L>
void GroupRun(const typename L::T* const* x, const typename L::T* const* dy,
              size_t n, double* sums, double* abs) {
  const hn::ScalableTag<double> d;
  const size_t lanes = hn::Lanes(d);
  hn::Vec<decltype(d)> s[kGroup], a[kGroup];
  for (size_t g = 0; g < kGroup; ++g) s[g] = a[g] = hn::Zero(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    for (size_t g = 0; g < kGroup; ++g) {
      const auto p = Term<L>(d, x[g] + i, dy[g] + i);
      s[g] = hn::Add(s[g], p);
      a[g] = hn::Add(a[g], hn::Abs(p));
    }
  }
  GroupTail<L>(d, x, dy, i, n, s, a);
#if HWY_TARGET == HWY_SCALAR
  for (size_t g = 0; g < kGroup; ++g) {
    sums[g] = hn::GetLane(s[g]);
    abs[g] = hn::GetLane(a[g]);
  }
#else
  SumsOfFour(d, s, sums);
  SumsOfFour(d, a, abs);
#endif
}

#if HWY_TARGET != HWY_SCALAR
// kGroup runs of terms formed in float32 lanes (BoundedRunLanes's, loader
// In): sums[g] and abs[g]; a run whose float32 magnitude does not hold the
// bound goes again on its own in float64.
template <class In>
void GroupRunLanes(const typename In::T* const* x,
                   const typename In::T* const* dy, size_t n, double* sums,
                   double* abs) {
  using T = typename In::T;
  const hn::ScalableTag<double> d;
  const hn::Repartition<float, decltype(d)> df;
  const size_t lanes = hn::Lanes(df);
  // The float32 magnitudes restart every kLaneAdds additions a lane
  // (CertainMagnitude's margin; 16-lane targets never reach it).
  constexpr size_t kLaneAdds = 256;
  const size_t chunk = kLaneAdds * lanes;
  hn::Vec<decltype(d)> lo[kGroup], hi[kGroup];
  hn::Vec<decltype(df)> m[kGroup];
  double mag[kGroup] = {};
  bool certain[kGroup];
  for (size_t g = 0; g < kGroup; ++g) {
    lo[g] = hi[g] = hn::Zero(d);
    certain[g] = true;
  }
  size_t i = 0;
  for (size_t begin = 0; begin < n; begin += chunk) {
    const size_t end = std::min(n, begin + chunk);
    for (size_t g = 0; g < kGroup; ++g) m[g] = hn::Zero(df);
    for (i = begin; i + lanes <= end; i += lanes) {
      for (size_t g = 0; g < kGroup; ++g) {
        if (i * sizeof(T) % 64 == 0) {  // once a line
          PrefetchAhead(x[g] + i);
          PrefetchAhead(dy[g] + i);
        }
        AddTerms<In>(d, df, x[g] + i, dy[g] + i, &lo[g], &hi[g], &m[g]);
      }
    }
    if (i < end) {  // zero-padded, as BoundedRunLanes (the last chunk)
      for (size_t g = 0; g < kGroup; ++g) {
        T xt[HWY_MAX_BYTES / 2] = {}, dyt[HWY_MAX_BYTES / 2] = {};
        std::memcpy(xt, x[g] + i, (end - i) * sizeof(T));
        std::memcpy(dyt, dy[g] + i, (end - i) * sizeof(T));
        AddTerms<In>(d, df, xt, dyt, &lo[g], &hi[g], &m[g]);
      }
    }
    float a[kGroup];
    SumsOfFour(df, m, a);
    for (size_t g = 0; g < kGroup; ++g) {
      certain[g] = certain[g] && (!Checked<In>() || CertainMagnitude(a[g]));
      mag[g] += static_cast<double>(a[g]);
    }
  }
  hn::Vec<decltype(d)> joined[kGroup];
  for (size_t g = 0; g < kGroup; ++g) joined[g] = hn::Add(lo[g], hi[g]);
  double joined_sums[kGroup];
  SumsOfFour(d, joined, joined_sums);
  for (size_t g = 0; g < kGroup; ++g) {
    if (!certain[g]) {
      BoundedSum one;
      BoundedRun<typename In::Wide>(x[g], dy[g], n, &one);
      sums[g] = one.sum;
      abs[g] = one.abs;
      continue;
    }
    sums[g] = joined_sums[g];
    abs[g] = mag[g];
  }
}

// float16 and bfloat16 runs summed in float32 (BoundedTable's runs32):
// float16's products (at most 22 bits, within 2^-48 .. 2^32) are exact in
// float32, bfloat16's (16 bits) wherever |t| >= 2^-134 (CertainMagnitude),
// so the terms need no widening. The bound is a running one: an addition
// whose rounded result r lies in [2^k, 2^(k+1)) errs by at most half its
// ulp, u 2^k (u = 2^-24; a zero or subnormal r is exact), so the kernels
// sum 2^k (Binade) after every float32 addition, E, in place of the terms'
// magnitudes: the float32 sum is within u E of the exact one. A float32
// partial sum moves into float64 lanes (exactly) after Sums32Adds
// additions a lane, which keeps each r (a random walk of that many terms)
// and so E small: E is ~0.2x Sums32Adds A for normally distributed terms,
// where A is what a fixed height needs. The float64 additions of those
// partial sums (each below 2 2^k of its last r, so 2 E in all) err by at
// most 2 gamma_b E: the float64 bound's abs = E and height
// kSums32Height + 2 b hold both (Sums32Height). float16's interval is 8x
// narrower than bfloat16's, so more of its sums are left to the float64
// kernels; 16 additions a part measured quickest for it (A/B: 4 and 32 slower),
// 32 for bfloat16.
template <bool kHalf>
constexpr size_t Sums32Adds() {
  return kHalf ? 16 : 32;
}

// The power of two at or below |r| (r's exponent bits alone; 0 for a zero
// or subnormal r, inf for an inf or NaN): the rounding of an addition
// whose result is r erred by at most u times it.
template <class DF>
HWY_INLINE hn::Vec<DF> Binade(DF df, hn::Vec<DF> r) {
  const hn::RebindToUnsigned<DF> du;
  return hn::BitCast(df, hn::And(hn::BitCast(du, r), hn::Set(du, 0x7f800000u)));
}

// The terms of bfloat16 words' low values (*low) and high ones (*high), in
// float32 lanes: a word's low value is a float32 once shifted up, its high
// one once the low half is cleared (as BFloat16PairProducts).
template <class DU>
HWY_INLINE void WordTerms(DU du, hn::Vec<DU> xw, hn::Vec<DU> dyw,
                          hn::Vec<hn::Repartition<float, DU>>* low,
                          hn::Vec<hn::Repartition<float, DU>>* high) {
  const hn::Repartition<float, DU> df;
  const auto upper = hn::Set(du, 0xffff0000u);
  *low = hn::Mul(hn::Min(hn::BitCast(df, hn::ShiftLeft<16>(xw)), hn::Zero(df)),
                 hn::BitCast(df, hn::ShiftLeft<16>(dyw)));
  *high = hn::Mul(hn::Min(hn::BitCast(df, hn::And(xw, upper)), hn::Zero(df)),
                  hn::BitCast(df, hn::And(dyw, upper)));
}

// Adds the terms of the 2 Lanes(du) bfloat16 values at x and dy (read as
// 32-bit words; WordTerms) to *s and the binade of each addition's result
// to *e, two additions a lane (a sum takes the terms in any order). 14
// operations per 32 terms, against 18 widening each value to its own lane
// (Highway's PromoteTo and a shift).
template <class DU>
HWY_INLINE void AddWordTerms(DU du, const uint16_t* x, const uint16_t* dy,
                             hn::Vec<hn::Repartition<float, DU>>* s,
                             hn::Vec<hn::Repartition<float, DU>>* e) {
  const hn::Repartition<float, DU> df;
  hn::Vec<decltype(df)> te, to;
  WordTerms(du, hn::LoadU(du, reinterpret_cast<const uint32_t*>(x)),
            hn::LoadU(du, reinterpret_cast<const uint32_t*>(dy)), &te, &to);
  const auto s1 = hn::Add(*s, te);
  *s = hn::Add(s1, to);
  *e = hn::Add(hn::Add(*e, Binade(df, s1)), Binade(df, *s));
}

// Adds the terms of Lanes(df) float16 values at x and dy to *s and the
// binade of the addition's result to *e: F16C's conversions (or their
// integer form), one addition a lane.
template <class DF>
HWY_INLINE void AddHalfTerms(DF df, const uint16_t* x, const uint16_t* dy,
                             hn::Vec<DF>* s, hn::Vec<DF>* e) {
  *s = hn::Add(*s, HalfProducts(df, x, dy));
  *e = hn::Add(*e, Binade(df, *s));
}

// Adds the terms [begin, stop) of kGroup runs (x[g], dy[g]) of float16
// (kHalf) or bfloat16 to s[g] and the binades of the additions to e[g]: a
// step of Lanes(df) values at a time (bfloat16: two a lane, AddWordTerms),
// a last partial step zero-padded (a zero x makes a zero term), each line
// prefetched ahead once.
template <bool kHalf, class DF>
HWY_INLINE void AddGroupTerms32(DF df, const uint16_t* const* x,
                                const uint16_t* const* dy, size_t begin,
                                size_t stop, hn::Vec<DF>* s, hn::Vec<DF>* e) {
  const hn::RebindToUnsigned<DF> du;
  const size_t step = (kHalf ? 1 : 2) * hn::Lanes(df);
  auto add = [&](const uint16_t* xp, const uint16_t* dyp, size_t g) {
    if constexpr (kHalf) {
      AddHalfTerms(df, xp, dyp, &s[g], &e[g]);
    } else {
      AddWordTerms(du, xp, dyp, &s[g], &e[g]);
    }
  };
  size_t i = begin;
  for (; i + step <= stop; i += step) {
    for (size_t g = 0; g < kGroup; ++g) {
      if (i * sizeof(uint16_t) % 64 == 0) {  // once a line
        PrefetchAhead(x[g] + i);
        PrefetchAhead(dy[g] + i);
      }
      add(x[g] + i, dy[g] + i, g);
    }
  }
  if (i < stop) {
    for (size_t g = 0; g < kGroup; ++g) {
      alignas(64) uint16_t xt[HWY_MAX_BYTES / 2] = {},
                                              dyt[HWY_MAX_BYTES / 2] = {};
      std::memcpy(xt, x[g] + i, (stop - i) * sizeof(uint16_t));
      std::memcpy(dyt, dy[g] + i, (stop - i) * sizeof(uint16_t));
      add(xt, dyt, g);
    }
  }
}

// kGroup runs of float16 (kHalf) or bfloat16 terms summed in float32:
// sums[g] and their E as abs[g]; a run whose float32 E does not hold the
// bound (CertainMagnitude, as a magnitude's: tiny terms make a tiny E)
// goes again on its own in float64, as GroupRunLanes's.
template <bool kHalf>
void GroupRunSums32(const uint16_t* const* x, const uint16_t* const* dy,
                    size_t n, double* sums, double* abs) {
  const hn::ScalableTag<double> d;
  const hn::Repartition<float, decltype(d)> df;
  const hn::Half<decltype(df)> dh;
  // Additions a lane a step (bfloat16: two, a word's values), values a
  // step, and additions a lane a part and a magnitude chunk (as
  // GroupRunLanes's).
  constexpr size_t kPer = kHalf ? 1 : 2;
  const size_t step = kPer * hn::Lanes(df);
  constexpr size_t kAdds = Sums32Adds<kHalf>();
  constexpr size_t kLaneAdds = 256;
  static_assert(kLaneAdds % kAdds == 0 && kAdds % kPer == 0,
                "a magnitude chunk ends a part, a part a step");
  hn::Vec<decltype(d)> lo[kGroup], hi[kGroup];
  hn::Vec<decltype(df)> s[kGroup], m[kGroup];
  double mag[kGroup] = {};
  bool certain[kGroup];
  for (size_t g = 0; g < kGroup; ++g) {
    lo[g] = hi[g] = hn::Zero(d);
    certain[g] = true;
  }
  for (size_t begin = 0; begin < n; begin += kLaneAdds / kPer * step) {
    const size_t end = std::min(n, begin + kLaneAdds / kPer * step);
    for (size_t g = 0; g < kGroup; ++g) m[g] = hn::Zero(df);
    for (size_t part = begin; part < end; part += kAdds / kPer * step) {
      const size_t stop = std::min(end, part + kAdds / kPer * step);
      for (size_t g = 0; g < kGroup; ++g) s[g] = hn::Zero(df);
      AddGroupTerms32<kHalf>(df, x, dy, part, stop, s, m);
      for (size_t g = 0; g < kGroup; ++g) {
        lo[g] = hn::Add(lo[g], hn::PromoteTo(d, hn::LowerHalf(dh, s[g])));
        hi[g] = hn::Add(hi[g], hn::PromoteTo(d, hn::UpperHalf(dh, s[g])));
      }
    }
    float a[kGroup];
    SumsOfFour(df, m, a);
    for (size_t g = 0; g < kGroup; ++g) {
      certain[g] = certain[g] && CertainMagnitude(a[g]);
      mag[g] += static_cast<double>(a[g]);
    }
  }
  hn::Vec<decltype(d)> joined[kGroup];
  for (size_t g = 0; g < kGroup; ++g) joined[g] = hn::Add(lo[g], hi[g]);
  double joined_sums[kGroup];
  SumsOfFour(d, joined, joined_sums);
  for (size_t g = 0; g < kGroup; ++g) {
    if (!certain[g]) {
      BoundedSum one;
      BoundedRun<Load16<kHalf>>(x[g], dy[g], n, &one);
      sums[g] = one.sum;
      abs[g] = one.abs;
      continue;
    }
    sums[g] = joined_sums[g];
    abs[g] = mag[g];
  }
}

// One float32 addition of LaneRunSums32's tree: *s = a + b, and *e the
// E's of both parts with the binade of *s (what that addition may err by).
template <class DF>
HWY_INLINE void AddBounded(DF df, hn::Vec<DF> a, hn::Vec<DF> b, hn::Vec<DF> ea,
                           hn::Vec<DF> eb, hn::Vec<DF>* s, hn::Vec<DF>* e) {
  *s = hn::Add(a, b);
  *e = hn::Add(hn::Add(ea, eb), Binade(df, *s));
}

// The lane sums of four vectors s[0..3] (E's e[0..3]) within each 128-bit
// block: lane j of every block of *out holds s[j]'s sum over that block.
// Two float32 additions a lane, each bounded (AddBounded); pairing (0, 2)
// and (1, 3) first leaves the four in order.
template <class DF>
HWY_INLINE void FourInBlocks(DF df, const hn::Vec<DF>* s, const hn::Vec<DF>* e,
                             hn::Vec<DF>* out, hn::Vec<DF>* out_e) {
  hn::Vec<DF> a, ea, b, eb;
  AddBounded(df, hn::InterleaveLower(df, s[0], s[2]),
             hn::InterleaveUpper(df, s[0], s[2]),
             hn::InterleaveLower(df, e[0], e[2]),
             hn::InterleaveUpper(df, e[0], e[2]), &a, &ea);
  AddBounded(df, hn::InterleaveLower(df, s[1], s[3]),
             hn::InterleaveUpper(df, s[1], s[3]),
             hn::InterleaveLower(df, e[1], e[3]),
             hn::InterleaveUpper(df, e[1], e[3]), &b, &eb);
  AddBounded(df, hn::InterleaveLower(df, a, b), hn::InterleaveUpper(df, a, b),
             hn::InterleaveLower(df, ea, eb), hn::InterleaveUpper(df, ea, eb),
             out, out_e);
}

// The most terms a run of LaneRunSums32 may have: one part a lane.
template <bool kHalf>
HWY_INLINE size_t LaneRunMax() {
  return Sums32Adds<kHalf>() * hn::Lanes(hn::ScalableTag<float>());
}

// Lanes(df) runs of float16 (kHalf) or bfloat16 terms, each of at most
// LaneRunMax terms, summed in float32 as GroupRunSums32's parts (binades
// in E), then each run's lanes added in a tree that transposes as it adds
// (two levels within 128-bit blocks, one a level across blocks), every
// addition's binade in E too: each sum is within u E of the exact one,
// which Sums32Height's kSums32Height holds. GroupRunSums32 widened and folded
// each run on its own, ~20 operations a run more, ~1/3 of a 128-term run's
// time. sums[k] and E as abs[k]; a run whose E leaves CertainMagnitude's
// range goes again on its own in float64.
template <bool kHalf>
void LaneRunSums32(const uint16_t* const* x, const uint16_t* const* dy,
                   size_t n, double* sums, double* abs) {
  const hn::ScalableTag<float> df;
  const hn::ScalableTag<double> d;
  const hn::Half<decltype(df)> dh;
  using V = hn::Vec<decltype(df)>;
  constexpr size_t kLanes = hn::MaxLanes(df);
  static_assert(kLanes == 4 || kLanes == 8 || kLanes == 16,
                "one to four 128-bit blocks");
  static_assert(kGroup == 4, "FourInBlocks: four runs a group");
  V w[kLanes / kGroup], we[kLanes / kGroup];
  for (size_t q = 0; q < kLanes / kGroup; ++q) {
    V s[kGroup], e[kGroup];
    for (size_t g = 0; g < kGroup; ++g) s[g] = e[g] = hn::Zero(df);
    AddGroupTerms32<kHalf>(df, x + kGroup * q, dy + kGroup * q, 0, n, s, e);
    FourInBlocks(df, s, e, &w[q], &we[q]);
  }
  // Block j of w[q] holds runs 4q .. 4q + 3 over block j's lanes.
  V total = w[0], total_e = we[0];
  if constexpr (kLanes == 16) {
    // Blocks (0, 1) and (2, 3) of w[q] and w[q + 1] added, side by side:
    // [w[q]'s 0+1, w[q+1]'s 0+1, w[q]'s 2+3, w[q+1]'s 2+3].
    auto pair = [&](size_t q, V* out, V* out_e) {
      AddBounded(df, hn::OddEvenBlocks(hn::SwapAdjacentBlocks(w[q + 1]), w[q]),
                 hn::OddEvenBlocks(w[q + 1], hn::SwapAdjacentBlocks(w[q])),
                 hn::OddEvenBlocks(hn::SwapAdjacentBlocks(we[q + 1]), we[q]),
                 hn::OddEvenBlocks(we[q + 1], hn::SwapAdjacentBlocks(we[q])),
                 out, out_e);
    };
    V lo, lo_e, hi, hi_e;
    pair(0, &lo, &lo_e);
    pair(2, &hi, &hi_e);
    // The lower halves hold every group's blocks 0+1, the upper 2+3.
    AddBounded(df, hn::ConcatLowerLower(df, hi, lo),
               hn::ConcatUpperUpper(df, hi, lo),
               hn::ConcatLowerLower(df, hi_e, lo_e),
               hn::ConcatUpperUpper(df, hi_e, lo_e), &total, &total_e);
  } else if constexpr (kLanes == 8) {
    AddBounded(df, hn::ConcatLowerLower(df, w[1], w[0]),
               hn::ConcatUpperUpper(df, w[1], w[0]),
               hn::ConcatLowerLower(df, we[1], we[0]),
               hn::ConcatUpperUpper(df, we[1], we[0]), &total, &total_e);
  }
  // Lane k: run k's sum and E.
  const size_t half = kLanes / 2;
  hn::StoreU(hn::PromoteTo(d, hn::LowerHalf(dh, total)), d, sums);
  hn::StoreU(hn::PromoteTo(d, hn::UpperHalf(dh, total)), d, sums + half);
  hn::StoreU(hn::PromoteTo(d, hn::LowerHalf(dh, total_e)), d, abs);
  hn::StoreU(hn::PromoteTo(d, hn::UpperHalf(dh, total_e)), d, abs + half);
  const auto certain =
      hn::And(hn::Ge(total_e, hn::Set(df, 0x1p-60f)),
              hn::Le(total_e, hn::Set(df, 0x1p127f)));  // CertainMagnitude
  if (HWY_UNLIKELY(!hn::AllTrue(df, certain))) {
    for (size_t k = 0; k < kLanes; ++k) {
      if (CertainMagnitude(static_cast<float>(abs[k]))) continue;
      BoundedSum one;
      BoundedRunLanes<From16<kHalf>>(x[k], dy[k], n, &one);
      sums[k] = one.sum;
      abs[k] = one.abs;
    }
  }
}

// bfloat16 rows summed in float32 (BoundedTable's bfloat16_rows32), each
// channel with GroupRunSums32's running bound: sums[c] and E into
// sums[channels + c], up to kChunk channels a pass. A word's two values
// are two channels side by side, so each vector of words has accumulators
// for its even channels and for its odd ones (in lane order), put back in
// channel order at the end of the pass. The last channels (fewer than a
// vector of words) take BoundedRowsLanes (float64 sums of exact terms,
// whose magnitudes stand for their E; one addition a row at most, within
// Rows32Height). A pass whose E leaves the bound's range
// (CertainMagnitude's) runs again in float64 (AddRows).
template <int kRows, class DU>
HWY_INLINE void RowsWordsOf(DU du, const char* x, int64_t x_row, const char* dy,
                            int64_t dy_row, int64_t vectors, float* s,
                            float* e) {
  const hn::Repartition<float, DU> df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t v = 0; v < vectors; ++v) {
    float* sv = s + 2 * v * lanes;
    float* ev = e + 2 * v * lanes;
    auto se = hn::Load(df, sv), so = hn::Load(df, sv + lanes);
    auto ee = hn::Load(df, ev), eo = hn::Load(df, ev + lanes);
    for (int k = 0; k < kRows; ++k) {
      const auto* xw =
          reinterpret_cast<const uint32_t*>(x + k * x_row) + v * lanes;
      const auto* dyw =
          reinterpret_cast<const uint32_t*>(dy + k * dy_row) + v * lanes;
      if constexpr (kRows > 1) {
        PrefetchAhead(xw);
        PrefetchAhead(dyw);
      }
      hn::Vec<decltype(df)> te, to;
      WordTerms(du, hn::LoadU(du, xw), hn::LoadU(du, dyw), &te, &to);
      se = hn::Add(se, te);
      ee = hn::Add(ee, Binade(df, se));
      so = hn::Add(so, to);
      eo = hn::Add(eo, Binade(df, so));
    }
    hn::Store(se, df, sv);
    hn::Store(so, df, sv + lanes);
    hn::Store(ee, df, ev);
    hn::Store(eo, df, ev + lanes);
  }
}

void BoundedRowsSums32(const char* x, int64_t x_row, const char* dy,
                       int64_t dy_row, int64_t rows, int64_t channels,
                       bool streamed, double* sums) {
  const hn::ScalableTag<double> d;
  const hn::Repartition<float, decltype(d)> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::Half<decltype(df)> dh;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const int64_t step = 2 * lanes;  // channels a vector of words
  constexpr int64_t kChunk = 512;
  constexpr auto kAdds = static_cast<int64_t>(Sums32Adds<false>());
  const bool in_order = RowsInOrder(channels * 2, streamed);
  alignas(64) float s[kChunk], e[kChunk];
  alignas(64) double part[kChunk], mag[kChunk];
  for (int64_t c0 = 0; c0 < channels; c0 += kChunk) {
    const int64_t count = std::min(kChunk, channels - c0);
    const int64_t vectors = count / step;
    const int64_t in_vectors = vectors * step;
    const char* xc = x + 2 * c0;
    const char* dyc = dy + 2 * c0;
    std::fill(part, part + in_vectors, 0.0);
    std::fill(mag, mag + in_vectors, 0.0);
    for (int64_t r0 = 0; r0 < rows; r0 += kAdds) {
      const int64_t r1 = std::min(rows, r0 + kAdds);
      std::fill(s, s + in_vectors, 0.0f);
      std::fill(e, e + in_vectors, 0.0f);
      int64_t r = r0;
      if (!in_order) {
        for (; r + 4 <= r1; r += 4) {
          RowsWordsOf<4>(du, xc + r * x_row, x_row, dyc + r * dy_row, dy_row,
                         vectors, s, e);
        }
      }
      for (; r < r1; ++r) {
        RowsWordsOf<1>(du, xc + r * x_row, x_row, dyc + r * dy_row, dy_row,
                       vectors, s, e);
      }
      // The part's sums and E into float64 (exactly).
      const int64_t h = lanes / 2;
      auto add = [&](hn::Vec<decltype(df)> v, double* to) {
        hn::Store(
            hn::Add(hn::Load(d, to), hn::PromoteTo(d, hn::LowerHalf(dh, v))), d,
            to);
        hn::Store(hn::Add(hn::Load(d, to + h),
                          hn::PromoteTo(d, hn::UpperHalf(dh, v))),
                  d, to + h);
      };
      for (int64_t k = 0; k < in_vectors; k += lanes) {
        add(hn::Load(df, s + k), part + k);
        add(hn::Load(df, e + k), mag + k);
      }
    }
    bool certain = true;
    for (int64_t k = 0; k < in_vectors; ++k) {
      certain = certain && mag[k] >= 0x1p-60 && mag[k] <= 0x1p127;
    }
    if (!certain) {
      AddRows<Load16<false>>(xc, x_row, dyc, dy_row, rows, count, in_order,
                             sums + c0, sums + channels + c0);
      continue;
    }
    // Back in channel order: lane j of vector v's even accumulators is
    // channel v step + 2 j, of its odd ones v step + 2 j + 1.
    for (int64_t v = 0; v < vectors; ++v) {
      for (int64_t j = 0; j < lanes; ++j) {
        for (int64_t odd = 0; odd < 2; ++odd) {
          const int64_t from = v * step + odd * lanes + j;
          const int64_t to = c0 + v * step + 2 * j + odd;
          sums[to] += part[from];
          sums[channels + to] += mag[from];
        }
      }
    }
    // The last channels: BoundedRowsLanes's float32 products widened to
    // float64 sums, into its own block (sums, then magnitudes).
    const int64_t tail = count - in_vectors;
    if (tail > 0) {
      double block[2 * 64] = {};
      BoundedRowsLanes<From16<false>>(xc + 2 * in_vectors, x_row,
                                      dyc + 2 * in_vectors, dy_row, rows, tail,
                                      streamed, block);
      for (int64_t c = 0; c < tail; ++c) {
        sums[c0 + in_vectors + c] += block[c];
        sums[channels + c0 + in_vectors + c] += block[tail + c];
      }
    }
  }
}
#endif

// The height of every run kernel's terms for runs of n terms: BoundedRun
// (four accumulators: n / (4 lanes) terms a lane, four from the tail, two
// joins, at most `lanes` additions joining the lanes), BoundedRunLanes
// (n / (2 lanes) and two in float32 lanes, the halves' join) and the group
// kernels (one accumulator: n / lanes and one), whichever ran.
inline int64_t RunsHeight(size_t n) {
  const hn::ScalableTag<double> d;
  const hn::Repartition<float, decltype(d)> df;
  const auto l = static_cast<int64_t>(hn::Lanes(d));
  const auto lf = static_cast<int64_t>(hn::Lanes(df));
  const auto m = static_cast<int64_t>(n);
  return std::max({m / (4 * l) + 6 + l, m / (2 * lf) + 4 + lf, m / l + 2 + l,
                   m / lf + 3 + lf});
}

// group(k, xg, dyg) for each kSize runs from run k (pointers to their
// starts), as many whole groups as count holds; returns the runs taken.
template <class T, size_t kSize, class Group>
HWY_INLINE size_t ForWholeGroups(const void* xp, const void* dyp,
                                 const int64_t* x_offsets,
                                 const int64_t* dy_offsets, size_t count,
                                 Group&& group) {
  const auto* x = static_cast<const T*>(xp);
  const auto* dy = static_cast<const T*>(dyp);
  size_t k = 0;
  for (; k + kSize <= count; k += kSize) {
    const T* xg[kSize];
    const T* dyg[kSize];
    for (size_t g = 0; g < kSize; ++g) {
      xg[g] = x + x_offsets[k + g];
      dyg[g] = dy + dy_offsets[k + g];
    }
    group(k, xg, dyg);
  }
  return k;
}

// kGroupRun over count runs in groups, the last count % kGroup one at a
// time through kRun (BoundedRunsKernel).
// group(k, xg, dyg) for each kGroup runs from run k (pointers to their
// starts), then single(k, x, dy) for each of the last count % kGroup.
template <class T, class Group, class Single>
HWY_INLINE void ForGroups(const void* xp, const void* dyp,
                          const int64_t* x_offsets, const int64_t* dy_offsets,
                          size_t count, Group&& group, Single&& single) {
  const auto* x = static_cast<const T*>(xp);
  const auto* dy = static_cast<const T*>(dyp);
  for (size_t k = ForWholeGroups<T, kGroup>(xp, dyp, x_offsets, dy_offsets,
                                            count, group);
       k < count; ++k) {
    single(k, x + x_offsets[k], dy + dy_offsets[k]);
  }
}

#if HWY_TARGET != HWY_SCALAR
// RunsHeight, or the float32 sums' where it is larger: kSums32Height for
// their float32 additions (u E), then twice GroupRunSums32's float64
// additions (one a part, one for the tail's, the halves' join and at most
// `lanes` joining the lanes; twice, as the partial sums reach 2 E).
// LaneRunSums32 makes float32 additions only.
template <bool kHalf>
int64_t Sums32Height(size_t n) {
  const hn::ScalableTag<float> df;
  const auto lf = static_cast<int64_t>(hn::Lanes(df));
  const auto adds = static_cast<int64_t>(Sums32Adds<kHalf>());
  const int64_t parts = static_cast<int64_t>(n) / (adds * lf);
  return std::max(RunsHeight(n), kSums32Height + 2 * (parts + 2 + lf));
}
#endif

template <class T,
          void (*kGroupRun)(const T* const*, const T* const*, size_t, double*,
                            double*),
          void (*kRun)(const void*, const void*, size_t, BoundedSum*),
          int64_t (*kHeight)(size_t) = &RunsHeight>
int64_t BoundedRuns(const void* xp, const void* dyp, const int64_t* x_offsets,
                    const int64_t* dy_offsets, size_t count, size_t n,
                    double* sums, double* abs) {
  ForGroups<T>(
      xp, dyp, x_offsets, dy_offsets, count,
      [&](size_t k, const T* const* x, const T* const* dy) {
        kGroupRun(x, dy, n, sums + k, abs + k);
      },
      [&](size_t k, const T* x, const T* dy) {
        BoundedSum one;  // one AddRun from zero: its sum exactly, no error
        kRun(x, dy, n, &one);
        sums[k] = one.sum;
        abs[k] = one.abs;
      });
  return kHeight(n);
}

#if HWY_TARGET != HWY_SCALAR
// The runs kernel of float16 (kHalf) or bfloat16 sums in float32: runs of
// at most LaneRunMax terms Lanes(df) at a time (LaneRunSums32), the others
// and the last count % Lanes(df) as GroupRunSums32's.
template <bool kHalf>
int64_t BoundedRuns32(const void* xp, const void* dyp, const int64_t* x_offsets,
                      const int64_t* dy_offsets, size_t count, size_t n,
                      double* sums, double* abs) {
  constexpr size_t kLanes = hn::MaxLanes(hn::ScalableTag<float>());
  const size_t k =
      n > LaneRunMax<kHalf>()
          ? 0
          : ForWholeGroups<uint16_t, kLanes>(
                xp, dyp, x_offsets, dy_offsets, count,
                [&](size_t at, const uint16_t* const* x,
                    const uint16_t* const* dy) {
                  LaneRunSums32<kHalf>(x, dy, n, sums + at, abs + at);
                });
  return BoundedRuns<uint16_t, &GroupRunSums32<kHalf>,
                     &BoundedRunLanes<From16<kHalf>>, &Sums32Height<kHalf>>(
      xp, dyp, x_offsets + k, dy_offsets + k, count - k, n, sums + k, abs + k);
}

// Two double-double lane vectors' pairs (s, c, a) joined lane by lane:
// TwoSum of the sums, its error added to the lows.
template <class D>
HWY_INLINE void JoinTwo(D /*d*/, hn::Vec<D> s0, hn::Vec<D> s1, hn::Vec<D> c0,
                        hn::Vec<D> c1, hn::Vec<D> a0, hn::Vec<D> a1,
                        hn::Vec<D>* s, hn::Vec<D>* c, hn::Vec<D>* a) {
  const auto t = hn::Add(s0, s1);
  const auto z = hn::Sub(t, s0);
  const auto e = hn::Add(hn::Sub(s0, hn::Sub(t, z)), hn::Sub(s1, z));
  *s = t;
  *c = hn::Add(hn::Add(c0, c1), e);
  *a = hn::Add(a0, a1);
}
// Folds (s, c, a) into their lowest 128-bit blocks, half onto half by
// JoinTwo, and stores each block's two lanes to out[0] and out[1].
template <class D>
HWY_INLINE void FoldPairsToBlock(D d, hn::Vec<D> s, hn::Vec<D> c, hn::Vec<D> a,
                                 double (*out)[3]) {
  if constexpr (hn::MaxLanes(d) > 2) {
    const hn::Half<D> dh;
    hn::Vec<decltype(dh)> fs, fc, fa;
    JoinTwo(dh, hn::LowerHalf(dh, s), hn::UpperHalf(dh, s),
            hn::LowerHalf(dh, c), hn::UpperHalf(dh, c), hn::LowerHalf(dh, a),
            hn::UpperHalf(dh, a), &fs, &fc, &fa);
    FoldPairsToBlock(dh, fs, fc, fa, out);
  } else {
    alignas(16) double bs[2], bc[2], ba[2];
    hn::Store(s, d, bs);
    hn::Store(c, d, bc);
    hn::Store(a, d, ba);
    for (int k = 0; k < 2; ++k) {
      out[k][0] = bs[k];
      out[k][1] = bc[k];
      out[k][2] = ba[k];
    }
  }
}
// The lanes of kGroup = 4 runs' double-double sums joined, each run's into
// out[g] (sum, low, magnitude), as SumsOfFour's tree: pairs of runs
// interleaved and joined (each block then holds two runs' partial sums),
// then halves folded. log2(lanes) TwoSums a term where a chain of TwoSums
// along the lanes took `lanes` dependent ones for each run (half a
// 128-term run's time).
template <class D>
HWY_INLINE void JoinFour(D d, const hn::Vec<D>* s, const hn::Vec<D>* c,
                         const hn::Vec<D>* a, double (*out)[3]) {
  static_assert(kGroup == 4, "four runs");
  for (size_t g = 0; g < kGroup; g += 2) {
    hn::Vec<D> js, jc, ja;
    JoinTwo(d, hn::InterleaveLower(d, s[g], s[g + 1]),
            hn::InterleaveUpper(d, s[g], s[g + 1]),
            hn::InterleaveLower(d, c[g], c[g + 1]),
            hn::InterleaveUpper(d, c[g], c[g + 1]),
            hn::InterleaveLower(d, a[g], a[g + 1]),
            hn::InterleaveUpper(d, a[g], a[g + 1]), &js, &jc, &ja);
    FoldPairsToBlock(d, js, jc, ja, out + g);
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

// PairRunsKernel: kGroup runs side by side, one chain of Dot2 steps a run
// (PairRun's two chains a run would not fit 16 registers four times), then
// their lanes joined by JoinFour's tree (PairRun's join, a chain of 2 lanes
// dependent TwoSums, is ~1/2 of a 128-term run's time alone; the four
// runs' chains interleaved took ~1/5 of a 512-channel call). The last
// count % kGroup runs go through kRun.
template <class L>
void GroupPairRun(const typename L::T* const* x, const typename L::T* const* dy,
                  size_t n, BoundedSum* sums) {
  using T = typename L::T;
  const hn::ScalableTag<double> d;
  constexpr size_t kMax = HWY_MAX_BYTES / sizeof(double);
  const size_t lanes = hn::Lanes(d);
  hn::Vec<decltype(d)> s[kGroup], c[kGroup], a[kGroup];
  for (size_t g = 0; g < kGroup; ++g) s[g] = c[g] = a[g] = hn::Zero(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    for (size_t g = 0; g < kGroup; ++g) {
      AddPairTerms<L>(d, x[g] + i, dy[g] + i, &s[g], &c[g], &a[g]);
    }
  }
  if (i < n) {  // zero-padded: a zero x makes a zero term
    for (size_t g = 0; g < kGroup; ++g) {
      T xt[kMax] = {}, dyt[kMax] = {};
      std::memcpy(xt, x[g] + i, (n - i) * sizeof(T));
      std::memcpy(dyt, dy[g] + i, (n - i) * sizeof(T));
      AddPairTerms<L>(d, xt, dyt, &s[g], &c[g], &a[g]);
    }
  }
#if HWY_TARGET == HWY_SCALAR
  double out[kGroup][3] = {};
  for (size_t g = 0; g < kGroup; ++g) {
    out[g][0] = hn::GetLane(s[g]);
    out[g][1] = hn::GetLane(c[g]);
    out[g][2] = hn::GetLane(a[g]);
  }
#else
  double out[kGroup][3];
  JoinFour(d, s, c, a, out);
#endif
  // A chain takes n / lanes steps in the loop and one in the tail; the
  // join at most `lanes` more (a tree of log2(lanes) TwoSums; the lows'
  // additions two a level).
  const auto height = static_cast<int64_t>(n / lanes + 1 + lanes);
  for (size_t g = 0; g < kGroup; ++g) {
    sums[g].AddPair(out[g][0], out[g][1], out[g][2], height);
  }
}

template <class T,
          void (*kGroupRun)(const T* const*, const T* const*, size_t,
                            BoundedSum*),
          void (*kRun)(const void*, const void*, size_t, BoundedSum*)>
void PairRuns(const void* xp, const void* dyp, const int64_t* x_offsets,
              const int64_t* dy_offsets, size_t count, size_t n,
              BoundedSum* sums) {
  ForGroups<T>(
      xp, dyp, x_offsets, dy_offsets, count,
      [&](size_t k, const T* const* x, const T* const* dy) {
        kGroupRun(x, dy, n, sums + k);
      },
      [&](size_t k, const T* x, const T* dy) { kRun(x, dy, n, &sums[k]); });
}

// RoundSumsKernel for Lanes(d) sums: `sum` (sum + error), the magnitudes
// `abs` and `scale`, (height + 2) u: the decided lanes' bits into *bits
// and a mask of them.
template <class D>
HWY_INLINE hn::Mask<D> RoundSumsVector(D d, hn::Vec<D> sum, hn::Vec<D> abs,
                                       hn::Vec<D> scale,
                                       const reference::Format& f,
                                       hn::Vec<hn::RebindToUnsigned<D>>* bits) {
  const hn::RebindToUnsigned<D> du;
  // As RoundIfCertain: A within the bound's range (a NaN fails), the
  // interval [sum - wide, sum + wide] around the sum.
  const auto valid = hn::And(hn::Ge(abs, hn::Set(d, 0x1p-900)),
                             hn::Le(abs, hn::Set(d, 0x1p900)));
  const auto wide = hn::Mul(
      hn::MulAdd(scale, abs, hn::Mul(hn::Abs(sum), hn::Set(d, 0x1p-50))),
      hn::Set(d, 1 + 0x1p-49));
  const auto lo = hn::Sub(sum, wide);
  const auto hi = hn::Add(sum, wide);
  // Both ends in the format's normal range (RoundNormal's test; an inf or
  // NaN sum fails it).
  const int shift = 53 - f.precision;
  const auto least = hn::Set(d, Pow2(1 - f.emax));
  const auto largest = hn::Set(
      d, Pow2(f.emax, ((uint64_t{1} << (f.precision - 1)) - 1) << shift));
  auto normal = [&](hn::Vec<D> v) {
    const auto m = hn::Abs(v);
    return hn::And(hn::Ge(m, least), hn::Le(m, largest));
  };
  // RoundNormal in integers: to nearest even at `shift` bits below
  // float64's last; a carry moves into the exponent.
  const auto half = hn::Set(du, (uint64_t{1} << (shift - 1)) - 1);
  const auto one = hn::Set(du, 1);
  auto round = [&](hn::Vec<D> v) {
    const auto b = hn::BitCast(du, v);
    return hn::Add(b,
                   hn::Add(half, hn::And(hn::ShiftRightSame(b, shift), one)));
  };
  const auto rlo = round(lo);
  const auto rhi = round(hi);
  // One value of the format: the same bits from `shift` up, sign included.
  const auto same =
      hn::Eq(hn::ShiftRightSame(rlo, shift), hn::ShiftRightSame(rhi, shift));
  const auto exponent = hn::And(hn::ShiftRight<52>(rlo), hn::Set(du, 0x7ff));
  const auto fraction =
      hn::And(hn::ShiftRightSame(rlo, shift),
              hn::Set(du, (uint64_t{1} << (f.precision - 1)) - 1));
  // The exponent rebiased (1023 to emax), the sign at the format's top bit.
  const auto biased =
      hn::Sub(hn::Add(exponent, hn::Set(du, static_cast<uint64_t>(f.emax))),
              hn::Set(du, 1023));
  *bits = hn::Or(hn::Or(hn::ShiftLeftSame(hn::ShiftRight<63>(rlo), f.width - 1),
                        hn::ShiftLeftSame(biased, f.precision - 1)),
                 fraction);
  return hn::And(hn::And(valid, hn::And(normal(lo), normal(hi))),
                 hn::RebindMask(d, same));
}

size_t RoundSums(const double* sums, const double* abs, size_t count,
                 int64_t height, const reference::Format& format,
                 uint64_t* bits, uint64_t* decided) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const size_t lanes = hn::Lanes(d);
  // RoundIfCertain's bound: (height + 2) u A.
  const auto scale = hn::Set(d, static_cast<double>(height + 2) * 0x1p-52);
  auto round = [&](hn::Vec<decltype(d)> s, hn::Vec<decltype(d)> a, uint64_t* b,
                   uint64_t* m) {
    hn::Vec<decltype(du)> v;
    const auto ok = RoundSumsVector(d, s, a, scale, format, &v);
    hn::StoreU(v, du, b);
    hn::StoreU(hn::VecFromMask(du, hn::RebindMask(du, ok)), du, m);
    return hn::CountTrue(d, ok);
  };
  size_t k = 0, done = 0;
  for (; k + lanes <= count; k += lanes) {
    done += round(hn::LoadU(d, sums + k), hn::LoadU(d, abs + k), bits + k,
                  decided + k);
  }
  if (k < count) {  // zero-padded: zero magnitudes are left undecided
    const size_t c = count - k;
    HWY_ALIGN double s[HWY_MAX_BYTES / 8] = {}, a[HWY_MAX_BYTES / 8] = {};
    HWY_ALIGN uint64_t b[HWY_MAX_BYTES / 8], m[HWY_MAX_BYTES / 8];
    std::memcpy(s, sums + k, c * sizeof(double));
    std::memcpy(a, abs + k, c * sizeof(double));
    round(hn::Load(d, s), hn::Load(d, a), b, m);
    std::memcpy(bits + k, b, c * sizeof(uint64_t));
    std::memcpy(decided + k, m, c * sizeof(uint64_t));
    for (size_t j = 0; j < c; ++j) done += m[j] != 0 ? 1 : 0;
  }
  return count - done;
}

// RoundPairsKernel: RoundPairIfCertain's arithmetic in vectors, on the
// sums gathered a block at a time (PairBound scalar: the BoundedSums'
// fields side by side).
size_t RoundPairs(const BoundedSum* s, size_t count, uint64_t* bits,
                  uint64_t* decided) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const size_t lanes = hn::Lanes(d);
  constexpr size_t kBlock = 64;
  HWY_ALIGN double sum[kBlock], error[kBlock], bound[kBlock];
  HWY_ALIGN uint64_t b[kBlock], m[kBlock];
  size_t done = 0;
  for (size_t k0 = 0; k0 < count; k0 += kBlock) {
    const size_t n = std::min(kBlock, count - k0);
    for (size_t j = 0; j < n; ++j) {
      sum[j] = s[k0 + j].sum;
      error[j] = s[k0 + j].error;
      bound[j] = PairBound(s[k0 + j]);
    }
    const size_t padded = (n + lanes - 1) / lanes * lanes;
    for (size_t j = n; j < padded; ++j) {  // NaN: decides nothing
      sum[j] = error[j] = 0;
      bound[j] = std::numeric_limits<double>::quiet_NaN();
    }
    for (size_t j = 0; j < padded; j += lanes) {
      const auto sv = hn::Load(d, sum + j), ev = hn::Load(d, error + j);
      const auto hi = hn::Add(sv, ev);
      const auto z = hn::Sub(hi, sv);
      const auto lo = hn::Add(hn::Sub(sv, hn::Sub(hi, z)), hn::Sub(ev, z));
      const auto hb = hn::BitCast(du, hi);
      const auto away = hn::BitCast(d, hn::Add(hb, hn::Set(du, 1)));
      const auto towards = hn::BitCast(d, hn::Sub(hb, hn::Set(du, 1)));
      const auto half = hn::Mul(
          hn::Min(hn::Abs(hn::Sub(away, hi)), hn::Abs(hn::Sub(hi, towards))),
          hn::Set(d, 0.5));  // exact, as the scalar / 2
      // A NaN bound fails the comparison, an infinite or NaN hi the
      // finiteness test (its `half` may be anything).
      const auto ok =
          hn::And(hn::Lt(hn::Add(hn::Abs(lo), hn::Load(d, bound + j)),
                         hn::Mul(half, hn::Set(d, 1 - 0x1p-50))),
                  hn::And(hn::IsFinite(hi), hn::Ne(hi, hn::Zero(d))));
      hn::Store(hb, du, b + j);
      hn::Store(hn::VecFromMask(du, hn::RebindMask(du, ok)), du, m + j);
    }
    for (size_t j = 0; j < n; ++j) {
      if (m[j] != 0) bits[k0 + j] = b[j];
      decided[k0 + j] = m[j];
      done += m[j] != 0 ? 1 : 0;
    }
  }
  return count - done;
}

void FillBoundedTable(BoundedTable* table) {
  table->run[0] = &BoundedRun<LoadF32>;
#if HWY_TARGET == HWY_SCALAR
  table->run[1] = &BoundedRun<Load16<true>>;
  table->run[2] = &BoundedRun<Load16<false>>;
  table->rows[0] = &BoundedRows<LoadF32>;
  table->rows[1] = &BoundedRows<Load16<true>>;
  table->rows[2] = &BoundedRows<Load16<false>>;
#else
  table->run[1] = &BoundedRunLanes<From16<true>>;
  table->run[2] = &BoundedRunLanes<From16<false>>;
  table->rows[0] = &BoundedRowsLanes<FromF32>;
  table->rows[1] = &BoundedRowsLanes<From16<true>>;
  table->rows[2] = &BoundedRowsLanes<From16<false>>;
#endif
  table->run[3] = &PairRun<LoadF32>;
  table->run[4] = &PairRun<Load16<true>>;
  table->run[5] = &PairRun<Load16<false>>;
  table->rows[3] = &PairRows<LoadF32>;
  table->rows[4] = &PairRows<Load16<true>>;
  table->rows[5] = &PairRows<Load16<false>>;
  // TwoProduct needs the fused multiply-add; without, the exact paths.
  table->run[6] = HWY_NATIVE_FMA ? &PairRun<LoadF64> : nullptr;
  table->rows[6] = HWY_NATIVE_FMA ? &PairRows<LoadF64> : nullptr;
#if HWY_TARGET <= HWY_AVX3
  // AVX-512: float32 magnitudes and fused multiply-adds, as float32's wide
  // rows (one operation in six fewer a term).
  table->runs[0] =
      &BoundedRuns<float, &GroupRunLanes<FromF32>, &BoundedRun<LoadF32>>;
#else
  table->runs[0] =
      &BoundedRuns<float, &GroupRun<LoadF32>, &BoundedRun<LoadF32>>;
#endif
#if HWY_TARGET == HWY_SCALAR
  table->runs[1] = &BoundedRuns<uint16_t, &GroupRun<Load16<true>>,
                                &BoundedRun<Load16<true>>>;
  table->runs[2] = &BoundedRuns<uint16_t, &GroupRun<Load16<false>>,
                                &BoundedRun<Load16<false>>>;
  table->runs32[0] = table->runs32[1] = nullptr;
  table->bfloat16_rows32 = nullptr;
#else
  table->runs[1] = &BoundedRuns<uint16_t, &GroupRunLanes<From16<true>>,
                                &BoundedRunLanes<From16<true>>>;
  table->runs[2] = &BoundedRuns<uint16_t, &GroupRunLanes<From16<false>>,
                                &BoundedRunLanes<From16<false>>>;
  table->runs32[0] = &BoundedRuns32<true>;
  table->runs32[1] = &BoundedRuns32<false>;
  table->bfloat16_rows32 = &BoundedRowsSums32;
#endif
  table->round_sums = &RoundSums;
  table->round_pairs = &RoundPairs;
  table->pair_runs[0] =
      &PairRuns<float, &GroupPairRun<LoadF32>, &PairRun<LoadF32>>;
  table->pair_runs[1] =
      &PairRuns<uint16_t, &GroupPairRun<Load16<true>>, &PairRun<Load16<true>>>;
  table->pair_runs[2] = &PairRuns<uint16_t, &GroupPairRun<Load16<false>>,
                                  &PairRun<Load16<false>>>;
  table->pair_runs[3] =
      HWY_NATIVE_FMA
          ? &PairRuns<double, &GroupPairRun<LoadF64>, &PairRun<LoadF64>>
          : nullptr;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "cpu/kernels.h"
#include "cpu/prelu_dalpha_ulp.h"  // Pow2
#include "reference/dtype_traits.h"

namespace lrelu::cpu {
namespace {

// v rounded to float32 to odd (an inexact result gets an odd last bit):
// rounding that to a format of at most 22 bits, to nearest even, is v
// rounded to nearest even directly (no double rounding). Needs the
// default rounding mode.
uint32_t RoundToOddFloat(double v) {
  const auto f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if (static_cast<double>(f) != v && (bits & 1) == 0) {
    // One step towards v: to the largest finite value from inf, away
    // from zero from a zero.
    bits =
        std::fabs(static_cast<double>(f)) > std::fabs(v) ? bits - 1 : bits + 1;
  }
  return bits;
}

// v rounded to nearest even in `format` (float32, float16 or bfloat16);
// -0 and +0 both give +0.
uint64_t RoundTo(const reference::Format& format, double v) {
  if (v == 0) return 0;
  if (format.precision == 24) {
    const auto f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    return bits;
  }
  const uint32_t odd = RoundToOddFloat(v);
  return format.precision == 11 ? reference::FloatBitsToHalfBits(odd)
                                : reference::FloatBitsToBFloat16Bits(odd);
}

// Where v lies in format's normal range (its smallest normal value up to
// its largest finite one): true, and v rounded to nearest even in
// `format` as its bits. In integers, without branches on the data or a
// call: RoundTo costs two calls per end for the 16-bit formats (float32's
// is one conversion, quicker than this).
bool RoundNormal(const reference::Format& format, double v, uint64_t* out) {
  const int shift = 53 - format.precision;
  const double largest =
      Pow2(format.emax, ((uint64_t{1} << (format.precision - 1)) - 1) << shift);
  const double magnitude = std::fabs(v);
  if (!(magnitude >= Pow2(1 - format.emax) && magnitude <= largest)) {
    return false;
  }
  uint64_t b;
  std::memcpy(&b, &v, sizeof(b));
  b += (uint64_t{1} << (shift - 1)) - 1 + ((b >> shift) & 1);
  // Rounded within the range: a normal value of format.
  const auto exponent = static_cast<int>((b >> 52) & 0x7ff) - 1023;
  const uint64_t fraction =
      (b >> shift) & ((uint64_t{1} << (format.precision - 1)) - 1);
  *out = (b >> 63) << (format.width - 1) |
         static_cast<uint64_t>(exponent + format.emax)
             << (format.precision - 1) |
         fraction;
  return true;
}

// RoundIfCertain for float64 (the pair kernels' sums; PairBound in
// prelu_dalpha_bound.h, RoundPairs the same in vectors).
bool RoundPairIfCertain(const BoundedSum& s, uint64_t* bits) {
  const double bound = PairBound(s);
  if (std::isnan(bound)) return false;
  // The exact sum is within `bound` of hi + lo (TwoSum: exactly sum +
  // error).
  const double hi = s.sum + s.error;
  const double z = hi - s.sum;
  const double lo = (s.sum - (hi - z)) + (s.error - z);
  if (!std::isfinite(hi) || hi == 0) return false;
  // It rounds to hi when within half an ulp of hi on either side (the ulp
  // below a power of two is half the one above; the halves are powers of
  // two, so the product below is exact, and its margin takes the rounding
  // of |lo| + bound).
  uint64_t b;
  std::memcpy(&b, &hi, sizeof(b));
  const uint64_t up = b + 1, down = b - 1;  // away from and towards zero
  double away, towards;
  std::memcpy(&away, &up, sizeof(away));
  std::memcpy(&towards, &down, sizeof(towards));
  const double half =
      std::min(std::fabs(away - hi), std::fabs(hi - towards)) / 2;
  if (!(std::fabs(lo) + bound < half * (1 - 0x1p-50))) return false;
  *bits = b;
  return true;
}

}  // namespace

HWY_EXPORT(FillBoundedTable);

const BoundedTable& BoundedFor(int64_t target) {
  return FilledTable(target, HWY_DISPATCH_TABLE(FillBoundedTable));
}

bool RoundIfCertain(const BoundedSum& s, const reference::Format& format,
                    uint64_t* bits) {
  if (format.precision == 53) return RoundPairIfCertain(s, bits);
  if (format.precision > 24) return false;
  if (s.abs == 0 && s.sum == 0) {  // every term zero: the exact sum is +0
    *bits = 0;
    return true;
  }
  // Finite (a NaN fails the comparisons), and far enough from underflow
  // and overflow that the bound's own arithmetic has relative errors.
  const double sum = s.sum + s.error;
  if (!(s.abs >= 0x1p-900 && s.abs <= 0x1p900) || !std::isfinite(sum) ||
      s.height > (int64_t{1} << 36) || s.runs > (int64_t{1} << 26)) {
    return false;
  }
  // The runs' errors, gamma_height * A, plus u * A for `error`'s, with A
  // at most abs / (1 - gamma_(height + runs)) (float32 magnitudes:
  // / (1 - 2^-15) more): below (height + 1) * u * (1 + 2^-10)
  // * abs; twice (height + 2) * u also covers this product's roundings.
  const double bound = static_cast<double>(s.height + 2) * 0x1p-52 * s.abs;
  // Widened so that lo and hi, rounded, still lie outside the interval
  // around sum + error (sum's own rounding included).
  const double wide = (bound + std::fabs(sum) * 0x1p-50) * (1 + 0x1p-49);
  uint64_t lo, hi;
  if (format.precision == 24 || !RoundNormal(format, sum - wide, &lo) ||
      !RoundNormal(format, sum + wide, &hi)) {
    lo = RoundTo(format, sum - wide);  // zero, subnormal, beyond the largest
    hi = RoundTo(format, sum + wide);
  }
  if (lo != hi) return false;
  *bits = lo;
  return true;
}

}  // namespace lrelu::cpu
#endif  // HWY_ONCE
