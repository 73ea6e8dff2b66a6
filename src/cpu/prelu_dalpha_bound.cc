// The bounded float64 sums of PReLU's dalpha (cpu/prelu_dalpha_bound.h):
// Highway kernels compiled once per target (foreach_target.h re-includes
// this file), and the decision whether the bound fixes the rounding.
#include "cpu/prelu_dalpha_bound.h"

#include <cmath>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/prelu_dalpha_bound.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "cpu/prelu_dalpha-inl.h"
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
// channel's sums[c] and abs[c].
template <class L, int kRows>
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
      p[k] = Term<L>(dv, Row<T>(x, x_row, k) + c, Row<T>(dy, dy_row, k) + c);
    }
    Accumulate<kRows>(dv, p, sums + c, abs + c);
  };
  for (; c + lanes <= channels; c += lanes) step(d);
  for (; c < channels; ++c) step(d1);
}

// Narrow rows four at a time: one load and store of each accumulator per
// four terms, and a quarter of the height. Wide rows one at a time: two
// or four rows of 1-2 KiB each, read side by side, were 1.5-1.65x slower
// out of cache than the rows in memory order (float32 and float16, 512
// channels), though quicker in cache.
template <class L>
void BoundedRows(const char* x, int64_t x_row, const char* dy, int64_t dy_row,
                 int64_t rows, int64_t channels, double* sums) {
  double* abs = sums + channels;
  int64_t r = 0;
  if (!WideRows(channels * static_cast<int64_t>(sizeof(typename L::T)))) {
    for (; r + 4 <= rows; r += 4) {
      RowsOf<L, 4>(x + r * x_row, x_row, dy + r * dy_row, dy_row, channels,
                   sums, abs);
    }
  }
  for (; r < rows; ++r) {
    RowsOf<L, 1>(x + r * x_row, x_row, dy + r * dy_row, dy_row, channels, sums,
                 abs);
  }
}

#if HWY_TARGET != HWY_SCALAR
// float16: the terms formed in float32 (HalfProducts, exact) and their
// magnitudes summed there too, eight to an AVX2 vector; only the terms are
// widened. A float32 magnitude sum over a run or a rows call (at most ~140
// additions a lane) is within 2^-16 of the exact one, which
// RoundIfCertain's margin takes (prelu_dalpha_bound.h).
void BoundedRunHalf(const void* xp, const void* dyp, size_t n, BoundedSum* s) {
  const auto* x = static_cast<const uint16_t*>(xp);
  const auto* dy = static_cast<const uint16_t*>(dyp);
  const hn::ScalableTag<double> d;
  const hn::Repartition<float, decltype(d)> df;
  const hn::Half<decltype(df)> dh;
  const size_t lanes = hn::Lanes(df);
  using VD = hn::Vec<decltype(d)>;
  using VF = hn::Vec<decltype(df)>;
  VD s0 = hn::Zero(d), s1 = s0, s2 = s0, s3 = s0;
  VF m0 = hn::Zero(df), m1 = m0;
  auto add = [&](VF t, VD* lo, VD* hi, VF* m) {
    *lo = hn::Add(*lo, hn::PromoteTo(d, hn::LowerHalf(dh, t)));
    *hi = hn::Add(*hi, hn::PromoteTo(d, hn::UpperHalf(dh, t)));
    *m = hn::Add(*m, hn::Abs(t));
  };
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    add(HalfProducts(df, x + i, dy + i), &s0, &s1, &m0);
    add(HalfProducts(df, x + i + lanes, dy + i + lanes), &s2, &s3, &m1);
  }
  if (i < n) {  // zero-padded: a zero x makes a zero term
    uint16_t xt[HWY_MAX_BYTES / 2] = {}, dyt[HWY_MAX_BYTES / 2] = {};
    std::memcpy(xt, x + i, (n - i) * sizeof(uint16_t));
    std::memcpy(dyt, dy + i, (n - i) * sizeof(uint16_t));
    for (size_t k = 0; k < n - i; k += lanes) {
      add(HalfProducts(df, xt + k, dyt + k), &s0, &s1, &m0);
    }
  }
  const double sum =
      hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  const float abs = hn::GetLane(hn::SumOfLanes(df, hn::Add(m0, m1)));
  // As BoundedRun, in float32 lanes: n / (2 lanes) terms a lane in the
  // loop, 2 from the tail, then the joins.
  s->AddRun(sum, static_cast<double>(abs),
            static_cast<int64_t>(n / (2 * lanes) + 4 + lanes));
}

// kRows rows' terms of channels [c0, c0 + count) into sums[c0 + c] and
// their magnitudes into mag[c] (float32), as BoundedRunHalf's.
template <int kRows>
HWY_INLINE void HalfRowsOf(const char* x, int64_t x_row, const char* dy,
                           int64_t dy_row, int64_t c0, int64_t count,
                           double* sums, float* mag) {
  const hn::ScalableTag<double> d;
  const hn::Repartition<float, decltype(d)> df;
  const hn::Half<decltype(df)> dh;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t c = 0;
  for (; c + lanes <= count; c += lanes) {
    hn::Vec<decltype(df)> a[kRows];
    hn::Vec<decltype(d)> lo[kRows], hi[kRows];
    for (int k = 0; k < kRows; ++k) {
      const auto t = HalfProducts(df, Row<uint16_t>(x, x_row, k) + c0 + c,
                                  Row<uint16_t>(dy, dy_row, k) + c0 + c);
      lo[k] = hn::PromoteTo(d, hn::LowerHalf(dh, t));
      hi[k] = hn::PromoteTo(d, hn::UpperHalf(dh, t));
      a[k] = hn::Abs(t);
    }
    double* sp = sums + c0 + c;
    hn::StoreU(hn::Add(hn::LoadU(d, sp), Tree<kRows>(lo)), d, sp);
    hn::StoreU(hn::Add(hn::LoadU(d, sp + lanes / 2), Tree<kRows>(hi)), d,
               sp + lanes / 2);
    hn::StoreU(hn::Add(hn::LoadU(df, mag + c), Tree<kRows>(a)), df, mag + c);
  }
  const hn::CappedTag<double, 1> d1;
  for (; c < count; ++c) {
    hn::Vec<decltype(d1)> p[kRows], a[kRows];
    for (int k = 0; k < kRows; ++k) {
      p[k] = Term<Load16<true>>(d1, Row<uint16_t>(x, x_row, k) + c0 + c,
                                Row<uint16_t>(dy, dy_row, k) + c0 + c);
      a[k] = hn::Abs(p[k]);
    }
    sums[c0 + c] += hn::GetLane(Tree<kRows>(p));
    mag[c] += static_cast<float>(hn::GetLane(Tree<kRows>(a)));
  }
}

// BoundedRows for float16, its magnitudes in float32 on the stack, up to
// kChunk channels a pass, then added to sums[channels + c].
void BoundedRowsHalf(const char* x, int64_t x_row, const char* dy,
                     int64_t dy_row, int64_t rows, int64_t channels,
                     double* sums) {
  constexpr int64_t kChunk = 1024;
  const bool wide = WideRows(channels * 2);
  alignas(64) float mag[kChunk];
  for (int64_t c0 = 0; c0 < channels; c0 += kChunk) {
    const int64_t count = std::min(kChunk, channels - c0);
    std::fill(mag, mag + count, 0.0f);
    int64_t r = 0;
    if (!wide) {
      for (; r + 4 <= rows; r += 4) {
        HalfRowsOf<4>(x + r * x_row, x_row, dy + r * dy_row, dy_row, c0, count,
                      sums, mag);
      }
    }
    for (; r < rows; ++r) {
      HalfRowsOf<1>(x + r * x_row, x_row, dy + r * dy_row, dy_row, c0, count,
                    sums, mag);
    }
    for (int64_t c = 0; c < count; ++c) sums[channels + c0 + c] += mag[c];
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

void FillBoundedTable(BoundedTable* table) {
  table->run[0] = &BoundedRun<LoadF32>;
#if HWY_TARGET == HWY_SCALAR
  table->run[1] = &BoundedRun<Load16<true>>;
  table->rows[1] = &BoundedRows<Load16<true>>;
#else
  table->run[1] = &BoundedRunHalf;
  table->rows[1] = &BoundedRowsHalf;
#endif
  table->run[2] = &BoundedRun<Load16<false>>;
  table->rows[0] = &BoundedRows<LoadF32>;
  table->rows[2] = &BoundedRows<Load16<false>>;
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

}  // namespace

HWY_EXPORT(FillBoundedTable);

const BoundedTable& BoundedFor(int64_t target) {
  return FilledTable(target, HWY_DISPATCH_TABLE(FillBoundedTable));
}

bool RoundIfCertain(const BoundedSum& s, const reference::Format& format,
                    uint64_t* bits) {
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
  // at most abs / (1 - gamma_(height + runs)) (float16's float32
  // magnitudes: / (1 - 2^-16) more): below (height + 1) * u * (1 + 2^-10)
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
