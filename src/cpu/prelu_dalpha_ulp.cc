// The fixed-ulp float64 accumulators of PReLU's dalpha
// (cpu/prelu_dalpha_ulp.h): Highway kernels compiled once per target
// (foreach_target.h re-includes this file), and the grid arithmetic.
#include "cpu/prelu_dalpha_ulp.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/prelu_dalpha_ulp.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "cpu/prelu_dalpha-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The sum of v's uint64 lanes modulo 2^64. Highway 1.0.3's SumOfLanes of a
// 512-bit vector is GCC's _mm512_reduce_add_epi64, which adds as signed
// long long: the wrap-around these sums rely on is undefined there, and
// UBSan reports it. Halving to 256 bits first keeps every add Highway's.
template <class DU>
HWY_INLINE uint64_t SumOfUnits(DU du, hn::Vec<DU> v) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (hn::MaxLanes(DU()) == 8) {
    const hn::Half<DU> dh;
    return hn::GetLane(hn::SumOfLanes(
        dh, hn::Add(hn::LowerHalf(dh, v), hn::UpperHalf(dh, v))));
  }
#endif
  return hn::GetLane(hn::SumOfLanes(du, v));
}

// The levels' starts C_j = 1.5 * 2^(e_j + 52) and their bits.
template <int kLevels, class D>
struct Starts {
  Starts(D d, int lo) {
    const hn::RebindToUnsigned<D> du;
    for (int j = 0; j < kLevels; ++j) {
      const double c = Pow2(lo + kUlpWidth * j + 52, uint64_t{1} << 51);
      value[j] = hn::Set(d, c);
      bits[j] = hn::BitCast(du, value[j]);
    }
  }
  hn::Vec<D> value[kLevels];
  hn::Vec<hn::RebindToUnsigned<D>> bits[kLevels];
};

// What the level kernels track: the largest |term| (for the top level)
// and the OR of the remainders' bits (only a sign bit when all are zero:
// a -0 term leaves -0).
template <class D>
struct Seen {
  explicit Seen(D d) : max_abs(hn::Zero(d)), remainder(hn::Zero(d)) {}
  hn::Vec<D> max_abs, remainder;

  void Into(D d, UlpStats* stats) const {
    const hn::RebindToUnsigned<D> du;
    stats->max_abs =
        std::max(stats->max_abs, hn::GetLane(hn::MaxOfLanes(d, max_abs)));
    const auto magnitude =
        hn::And(hn::BitCast(du, remainder), hn::Set(du, ~(uint64_t{1} << 63)));
    stats->remainder =
        stats->remainder || !hn::AllTrue(du, hn::Eq(magnitude, hn::Zero(du)));
  }
};

// Top level first: each takes the term rounded to its ulp, exactly, and
// passes the rest down; what is left after level 0 must be zero.
template <int kLevels, class D>
HWY_INLINE void Deposit(hn::Vec<D> p, hn::Vec<D>* acc, Seen<D>* seen) {
  seen->max_abs = hn::Max(seen->max_abs, hn::Abs(p));
  for (int j = kLevels - 1; j >= 0; --j) {
    const auto s = hn::Add(acc[j], p);
    p = hn::Sub(p, hn::Sub(s, acc[j]));
    acc[j] = s;
  }
  seen->remainder = hn::Or(seen->remainder, p);
}

// Moves both sets' accumulators into the integers and back to the starts.
template <int kLevels, class D, class DU = hn::RebindToUnsigned<D>>
HWY_INLINE void Renormalize(const Starts<kLevels, D>& c, hn::Vec<D>* a0,
                            hn::Vec<D>* a1, hn::Vec<DU>* units) {
  const DU du;
  for (int j = 0; j < kLevels; ++j) {
    units[j] =
        hn::Add(units[j], hn::Add(hn::Sub(hn::BitCast(du, a0[j]), c.bits[j]),
                                  hn::Sub(hn::BitCast(du, a1[j]), c.bits[j])));
    a0[j] = c.value[j];
    a1[j] = c.value[j];
  }
}

template <class L, int kLevels>
void Run(const void* xp, const void* dyp, size_t n, int lo, int64_t* out,
         UlpStats* stats) {
  using T = typename L::T;
  using D = hn::ScalableTag<double>;
  using DU = hn::RebindToUnsigned<D>;
  const auto* x = static_cast<const T*>(xp);
  const auto* dy = static_cast<const T*>(dyp);
  const D d;
  const DU du;
  const size_t lanes = hn::Lanes(d);
  const Starts<kLevels, D> c(d, lo);
  // Two sets of accumulators, so consecutive vectors' additions do not wait
  // for each other; one Seen and one set of integers for both (registers
  // are short).
  hn::Vec<D> a0[kLevels], a1[kLevels];
  hn::Vec<DU> units[kLevels];
  for (int j = 0; j < kLevels; ++j) {
    a0[j] = a1[j] = c.value[j];
    units[j] = hn::Zero(du);
  }
  Seen<D> seen(d);
  const size_t block = kRenormEvery * 2 * lanes;
  size_t i = 0;
  for (; i + block <= n; i += block) {
    for (size_t k = i; k < i + block; k += 2 * lanes) {
      Deposit<kLevels>(Term<L>(d, x + k, dy + k), a0, &seen);
      Deposit<kLevels>(Term<L>(d, x + k + lanes, dy + k + lanes), a1, &seen);
    }
    Renormalize(c, a0, a1, units);
  }
  // Fewer than kRenormEvery deposits per set: pairs, one vector, and the
  // last few padded with x = +0 (no term).
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    Deposit<kLevels>(Term<L>(d, x + i, dy + i), a0, &seen);
    Deposit<kLevels>(Term<L>(d, x + i + lanes, dy + i + lanes), a1, &seen);
  }
  if (i + lanes <= n) {
    Deposit<kLevels>(Term<L>(d, x + i, dy + i), a0, &seen);
    i += lanes;
  }
  if (i < n) {
    T xt[HWY_MAX_BYTES / 8] = {}, dyt[HWY_MAX_BYTES / 8] = {};
    std::memcpy(xt, x + i, (n - i) * sizeof(T));
    std::memcpy(dyt, dy + i, (n - i) * sizeof(T));
    Deposit<kLevels>(Term<L>(d, xt, dyt), a1, &seen);
  }
  Renormalize(c, a0, a1, units);
  for (int j = 0; j < kLevels; ++j) {
    out[j] = static_cast<int64_t>(SumOfUnits(du, units[j]));
  }
  seen.Into(d, stats);
}

// One step of a row: Lanes(d) channels, their levels `stride` apart.
template <class L, int kLevels, class D>
HWY_INLINE void RowStep(D d, const typename L::T* x, const typename L::T* dy,
                        double* acc, int64_t stride, Seen<D>* seen) {
  hn::Vec<D> a[kLevels];
  for (int j = 0; j < kLevels; ++j) a[j] = hn::LoadU(d, acc + j * stride);
  Deposit<kLevels>(Term<L>(d, x, dy), a, seen);
  for (int j = 0; j < kLevels; ++j) hn::StoreU(a[j], d, acc + j * stride);
}

// Moves Lanes(d) channels' accumulators into their integers, back to the
// starts.
template <int kLevels, class D>
HWY_INLINE void RowRenormalize(D d, const Starts<kLevels, D>& c, double* acc,
                               int64_t* units, int64_t stride) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  for (int j = 0; j < kLevels; ++j) {
    double* a = acc + j * stride;
    int64_t* u = units + j * stride;
    const auto moved =
        hn::BitCast(di, hn::Sub(hn::BitCast(du, hn::LoadU(d, a)), c.bits[j]));
    hn::StoreU(hn::Add(hn::LoadU(di, u), moved), di, u);
    hn::StoreU(c.value[j], d, a);
  }
}

template <class L, int kLevels>
void Rows(const char* x, int64_t x_row, const char* dy, int64_t dy_row,
          int64_t rows, int64_t channels, int lo, double* acc, int64_t* units,
          UlpStats* stats) {
  using T = typename L::T;
  using D = hn::ScalableTag<double>;
  using D1 = hn::CappedTag<double, 1>;
  const D d;
  const D1 d1;
  const Starts<kLevels, D> c(d, lo);
  const Starts<kLevels, D1> c1(d1, lo);
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int j = 0; j < kLevels; ++j) {
    std::fill(acc + j * channels, acc + (j + 1) * channels,
              hn::GetLane(c.value[j]));
  }
  Seen<D> seen(d);
  Seen<D1> seen1(d1);
  for (int64_t r = 0; r < rows; ++r) {
    const auto* xr = reinterpret_cast<const T*>(x + r * x_row);
    const auto* dyr = reinterpret_cast<const T*>(dy + r * dy_row);
    int64_t ch = 0;
    for (; ch + lanes <= channels; ch += lanes) {
      RowStep<L, kLevels>(d, xr + ch, dyr + ch, acc + ch, channels, &seen);
    }
    for (; ch < channels; ++ch) {
      RowStep<L, kLevels>(d1, xr + ch, dyr + ch, acc + ch, channels, &seen1);
    }
    if ((r + 1) % kRenormEvery == 0 || r + 1 == rows) {
      for (ch = 0; ch + lanes <= channels; ch += lanes) {
        RowRenormalize(d, c, acc + ch, units + ch, channels);
      }
      for (; ch < channels; ++ch) {
        RowRenormalize(d1, c1, acc + ch, units + ch, channels);
      }
    }
  }
  seen.Into(d, stats);
  seen1.Into(d1, stats);
}

// The extremes of the nonzero |terms| of a contiguous run, for choosing a
// grid; remainder: a term is inf or NaN.
template <class L, class D>
HWY_INLINE void ExtentStep(D d, const typename L::T* x, const typename L::T* dy,
                           hn::Vec<D>* max_abs, hn::Vec<D>* min_abs,
                           hn::Mask<D>* special) {
  const auto inf = hn::Set(d, std::numeric_limits<double>::infinity());
  const auto a = hn::Abs(NegativeProduct<L>(d, x, dy));
  *max_abs = hn::Max(*max_abs, a);
  *min_abs = hn::Min(*min_abs, hn::IfThenElse(hn::Eq(a, hn::Zero(d)), inf, a));
  *special = hn::Or(*special, hn::Not(hn::Lt(a, inf)));
}

template <class L, class D>
void ExtentIn(D d, const typename L::T* x, const typename L::T* dy, size_t n,
              UlpStats* stats) {
  auto max_abs = hn::Zero(d);
  auto min_abs = hn::Set(d, std::numeric_limits<double>::infinity());
  auto special = hn::FirstN(d, 0);
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    ExtentStep<L>(d, x + i, dy + i, &max_abs, &min_abs, &special);
  }
  stats->max_abs =
      std::max(stats->max_abs, hn::GetLane(hn::MaxOfLanes(d, max_abs)));
  stats->min_abs =
      std::min(stats->min_abs, hn::GetLane(hn::MinOfLanes(d, min_abs)));
  stats->remainder = stats->remainder || !hn::AllFalse(d, special);
  if (i < n) {
    ExtentIn<L>(hn::CappedTag<double, 1>(), x + i, dy + i, n - i, stats);
  }
}

template <class L>
void Extent(const void* x, const void* dy, size_t n, UlpStats* stats) {
  ExtentIn<L>(hn::ScalableTag<double>(), static_cast<const typename L::T*>(x),
              static_cast<const typename L::T*>(dy), n, stats);
}

// Two fixed levels (float16's grid, bfloat16's windowed one; see
// prelu_dalpha_ulp.h): a term rounded to the top level's ulp, the rest,
// exact, to the bottom level. No checks: the grids take every term the
// kernels give them.
template <class V>
HWY_INLINE void FixedDeposit(V p, V* top, V* bottom) {
  const auto s = hn::Add(*top, p);
  *bottom = hn::Add(*bottom, hn::Sub(p, hn::Sub(s, *top)));
  *top = s;
}

// float16: one float16 vector's worth of terms (2 * Lanes(d)) to two sets
// of accumulators.
template <class D>
HWY_INLINE void HalfStep(D d, const uint16_t* x, const uint16_t* dy,
                         hn::Vec<D>* top, hn::Vec<D>* bottom) {
  hn::Vec<D> p0, p1;
  HalfTermPair(d, x, dy, &p0, &p1);
  FixedDeposit(p0, &top[0], &bottom[0]);
  FixedDeposit(p1, &top[1], &bottom[1]);
}

// The integer a level's accumulator holds above its start, and whether it
// is finite (an inf or NaN term leaves it inf or NaN until it is reset).
template <class D>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<D>> FixedUnits(D d, hn::Vec<D> a,
                                                       double start,
                                                       hn::Mask<D>* finite) {
  const hn::RebindToUnsigned<D> du;
  *finite = hn::And(*finite, hn::IsFinite(a));
  return hn::Sub(hn::BitCast(du, a), hn::BitCast(du, hn::Set(d, start)));
}

inline double FixedStart(int ulp) { return Pow2(ulp + 52, uint64_t{1} << 51); }

// A run kernel's result: units[0] and units[1], the bottom and the top
// level's integers over both sets and every lane; false if one is not
// finite.
template <class D>
HWY_INLINE bool RunUnits(D d, const hn::Vec<D>* top, const hn::Vec<D>* bottom,
                         double top0, double bottom0, int64_t* units) {
  const hn::RebindToUnsigned<D> du;
  auto finite = hn::FirstN(d, hn::Lanes(d));
  const auto b = hn::Add(FixedUnits(d, bottom[0], bottom0, &finite),
                         FixedUnits(d, bottom[1], bottom0, &finite));
  const auto t = hn::Add(FixedUnits(d, top[0], top0, &finite),
                         FixedUnits(d, top[1], top0, &finite));
  units[0] = static_cast<int64_t>(SumOfUnits(du, b));
  units[1] = static_cast<int64_t>(SumOfUnits(du, t));
  return hn::AllTrue(d, finite);
}

// A rows kernel's result from acc ([top, bottom][channel]): units[c] of
// the bottom level, units[channels + c] of the top; false if one is not
// finite.
inline bool ChannelUnits(const double* acc, int64_t channels, double top0,
                         double bottom0, int64_t* units) {
  const hn::CappedTag<double, 1> d1;
  const hn::RebindToSigned<decltype(d1)> di1;
  auto finite = hn::FirstN(d1, 1);
  for (int64_t ch = 0; ch < channels; ++ch) {
    for (int level = 0; level < 2; ++level) {
      const auto u = FixedUnits(d1, hn::LoadU(d1, acc + level * channels + ch),
                                level == 0 ? top0 : bottom0, &finite);
      units[(1 - level) * channels + ch] = hn::GetLane(hn::BitCast(di1, u));
    }
  }
  return hn::AllTrue(d1, finite);
}

// One channel of a row in float64 (the rows kernels' tails).
template <class L, class D1>
HWY_INLINE void FixedRowElement(D1 d1, const uint16_t* x, const uint16_t* dy,
                                double* acc, int64_t stride) {
  auto top = hn::LoadU(d1, acc), bottom = hn::LoadU(d1, acc + stride);
  FixedDeposit(Term<L>(d1, x, dy), &top, &bottom);
  hn::StoreU(top, d1, acc);
  hn::StoreU(bottom, d1, acc + stride);
}

bool HalfRun(const void* xp, const void* dyp, size_t n, int64_t* units) {
  const auto* x = static_cast<const uint16_t*>(xp);
  const auto* dy = static_cast<const uint16_t*>(dyp);
  const hn::ScalableTag<double> d;
  const size_t step = 2 * hn::Lanes(d);
  const double top0 = FixedStart(kHalfTop), bottom0 = FixedStart(kHalfBottom);
  hn::Vec<decltype(d)> top[2] = {hn::Set(d, top0), hn::Set(d, top0)};
  hn::Vec<decltype(d)> bottom[2] = {hn::Set(d, bottom0), hn::Set(d, bottom0)};
  size_t i = 0;
  for (; i + step <= n; i += step) HalfStep(d, x + i, dy + i, top, bottom);
  if (i < n) {  // padded with x = +0: no term
    uint16_t xt[HWY_MAX_BYTES / 4] = {}, dyt[HWY_MAX_BYTES / 4] = {};
    std::memcpy(xt, x + i, (n - i) * sizeof(uint16_t));
    std::memcpy(dyt, dy + i, (n - i) * sizeof(uint16_t));
    HalfStep(d, xt, dyt, top, bottom);
  }
  return RunUnits(d, top, bottom, top0, bottom0, units);
}

// One row's step over Lanes(d) or 2 * Lanes(d) channels, the levels'
// accumulators in memory (top at acc, bottom `stride` after).
template <class D>
HWY_INLINE void HalfRowStep(D d, const uint16_t* x, const uint16_t* dy,
                            double* acc, int64_t stride) {
  hn::Vec<D> top[2] = {hn::LoadU(d, acc), hn::LoadU(d, acc + hn::Lanes(d))};
  hn::Vec<D> bottom[2] = {hn::LoadU(d, acc + stride),
                          hn::LoadU(d, acc + stride + hn::Lanes(d))};
  HalfStep(d, x, dy, top, bottom);
  for (int k = 0; k < 2; ++k) {
    hn::StoreU(top[k], d, acc + k * hn::Lanes(d));
    hn::StoreU(bottom[k], d, acc + stride + k * hn::Lanes(d));
  }
}

bool HalfRows(const char* x, int64_t x_row, const char* dy, int64_t dy_row,
              int64_t rows, int64_t channels, double* acc, int64_t* units) {
  const hn::ScalableTag<double> d;
  const hn::CappedTag<double, 1> d1;
  const auto step = static_cast<int64_t>(2 * hn::Lanes(d));
  const double top0 = FixedStart(kHalfTop), bottom0 = FixedStart(kHalfBottom);
  std::fill(acc, acc + channels, top0);
  std::fill(acc + channels, acc + 2 * channels, bottom0);
  for (int64_t r = 0; r < rows; ++r) {
    const auto* xr = reinterpret_cast<const uint16_t*>(x + r * x_row);
    const auto* dyr = reinterpret_cast<const uint16_t*>(dy + r * dy_row);
    int64_t ch = 0;
    for (; ch + step <= channels; ch += step) {
      HalfRowStep(d, xr + ch, dyr + ch, acc + ch, channels);
    }
    for (; ch < channels; ++ch) {
      FixedRowElement<Load16<true>>(d1, xr + ch, dyr + ch, acc + ch, channels);
    }
  }
  return ChannelUnits(acc, channels, top0, bottom0, units);
}

// bfloat16's windowed grid (prelu_dalpha_ulp.h). Nonzero when a lane of
// bits has a magnitude outside [lo, lo + the window) other than zero: the
// wrapped difference from lo saturates to zero only inside the window, and
// the minimum with the magnitude is zero for a zero.
template <class D16>
HWY_INLINE hn::Vec<D16> OutsideWindow(D16 d16, hn::Vec<D16> bits,
                                      hn::Vec<D16> lo) {
  const auto magnitude = hn::And(bits, hn::Set(d16, uint16_t{0x7fff}));
  const auto offset = hn::Sub(magnitude, lo);
  return hn::Min(hn::SaturatedSub(
                     offset, hn::Set(d16, uint16_t{(kWindowBinades << 7) - 1})),
                 magnitude);
}

#if HWY_TARGET != HWY_SCALAR
// 4 * Lanes(d) elements: the window checks, the products in float32 (the
// 16-bit lanes unpacked in place: the same order for x and dy, and a sum's
// order is free), four deposits.
template <class D>
HWY_INLINE void WindowStep(D d, const uint16_t* x, const uint16_t* dy,
                           hn::Vec<hn::Repartition<uint16_t, D>> x_lo,
                           hn::Vec<hn::Repartition<uint16_t, D>> dy_lo,
                           hn::Vec<hn::Repartition<uint16_t, D>>* outside,
                           hn::Vec<D>* top, hn::Vec<D>* bottom) {
  const hn::Repartition<uint16_t, D> d16;
  const hn::Repartition<uint32_t, D> d32;
  const hn::Repartition<float, D> df;
  const hn::Half<decltype(df)> dh;
  const auto xb = hn::LoadU(d16, x);
  const auto dyb = hn::LoadU(d16, dy);
  *outside = hn::Or(*outside, hn::Or(OutsideWindow(d16, xb, x_lo),
                                     OutsideWindow(d16, dyb, dy_lo)));
  const auto zero = hn::Zero(d16);
  const auto x_lower = hn::BitCast(df, hn::ZipLower(d32, zero, xb));
  const auto x_upper = hn::BitCast(df, hn::ZipUpper(d32, zero, xb));
  const auto dy_lower = hn::BitCast(df, hn::ZipLower(d32, zero, dyb));
  const auto dy_upper = hn::BitCast(df, hn::ZipUpper(d32, zero, dyb));
  const auto lower = hn::Mul(hn::Min(x_lower, hn::Zero(df)), dy_lower);
  const auto upper = hn::Mul(hn::Min(x_upper, hn::Zero(df)), dy_upper);
  // Two sets, not four: sixteen registers hold them, the constants and
  // the terms without spilling, and the additions' latency still hides
  // behind the conversions.
  FixedDeposit(hn::PromoteTo(d, hn::LowerHalf(dh, lower)), &top[0], &bottom[0]);
  FixedDeposit(hn::PromoteTo(d, hn::UpperHalf(dh, lower)), &top[1], &bottom[1]);
  FixedDeposit(hn::PromoteTo(d, hn::LowerHalf(dh, upper)), &top[0], &bottom[0]);
  FixedDeposit(hn::PromoteTo(d, hn::UpperHalf(dh, upper)), &top[1], &bottom[1]);
}
#endif

bool WindowRun(const void* xp, const void* dyp, size_t n,
               const BFloat16Window& w, int64_t* units) {
#if HWY_TARGET == HWY_SCALAR
  // One lane: no half vectors to unpack into; the general levels take it.
  (void)xp, (void)dyp, (void)n, (void)w, (void)units;
  return false;
#else
  const auto* x = static_cast<const uint16_t*>(xp);
  const auto* dy = static_cast<const uint16_t*>(dyp);
  const hn::ScalableTag<double> d;
  const hn::Repartition<uint16_t, decltype(d)> d16;
  const size_t step = hn::Lanes(d16);
  const int b = w.bottom();
  const double top0 = FixedStart(b + kWindowLevelGap), bottom0 = FixedStart(b);
  hn::Vec<decltype(d)> top[2], bottom[2];
  for (int k = 0; k < 2; ++k) {
    top[k] = hn::Set(d, top0);
    bottom[k] = hn::Set(d, bottom0);
  }
  const auto x_lo =
      hn::Set(d16, static_cast<uint16_t>((w.x_top - kWindowBinades) << 7));
  const auto dy_lo =
      hn::Set(d16, static_cast<uint16_t>((w.dy_top - kWindowBinades) << 7));
  auto outside = hn::Zero(d16);
  size_t i = 0;
  for (; i + step <= n; i += step) {
    WindowStep(d, x + i, dy + i, x_lo, dy_lo, &outside, top, bottom);
  }
  if (i < n) {  // padded with zeros: inside, and no term
    uint16_t xt[HWY_MAX_BYTES / 2] = {}, dyt[HWY_MAX_BYTES / 2] = {};
    std::memcpy(xt, x + i, (n - i) * sizeof(uint16_t));
    std::memcpy(dyt, dy + i, (n - i) * sizeof(uint16_t));
    WindowStep(d, xt, dyt, x_lo, dy_lo, &outside, top, bottom);
  }
  if (!hn::AllTrue(d16, hn::Eq(outside, hn::Zero(d16)))) return false;
  // Inside the windows every term is finite; the check is a second guard.
  return RunUnits(d, top, bottom, top0, bottom0, units);
#endif
}

// Whether one bfloat16 pattern lies in the window from lo (scalar form of
// OutsideWindow).
inline bool InsideWindow(uint16_t bits, uint16_t lo) {
  const auto magnitude = static_cast<uint16_t>(bits & 0x7fff);
  return magnitude == 0 ||
         static_cast<uint16_t>(magnitude - lo) < (kWindowBinades << 7);
}

#if HWY_TARGET != HWY_SCALAR
// One row's step over 2 * Lanes(d) channels (channel order kept: the
// widening promotes, it does not unpack), the levels' accumulators in
// memory (top at acc, bottom `stride` after).
template <class D, class V16>
HWY_INLINE void WindowRowStep(D d, const uint16_t* x, const uint16_t* dy,
                              V16 x_lo, V16 dy_lo, V16* outside, double* acc,
                              int64_t stride) {
  const hn::Repartition<float, D> df;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  const hn::Half<decltype(df)> dh;
  const auto xb = hn::LoadU(d16, x);
  const auto dyb = hn::LoadU(d16, dy);
  *outside = hn::Or(*outside, hn::Or(OutsideWindow(d16, xb, x_lo),
                                     OutsideWindow(d16, dyb, dy_lo)));
  const auto t = hn::Mul(hn::Min(BFloat16BitsToFloat(df, xb), hn::Zero(df)),
                         BFloat16BitsToFloat(df, dyb));
  const size_t lanes = hn::Lanes(d);
  auto top0 = hn::LoadU(d, acc), top1 = hn::LoadU(d, acc + lanes);
  auto bottom0 = hn::LoadU(d, acc + stride);
  auto bottom1 = hn::LoadU(d, acc + stride + lanes);
  FixedDeposit(hn::PromoteTo(d, hn::LowerHalf(dh, t)), &top0, &bottom0);
  FixedDeposit(hn::PromoteTo(d, hn::UpperHalf(dh, t)), &top1, &bottom1);
  hn::StoreU(top0, d, acc);
  hn::StoreU(top1, d, acc + lanes);
  hn::StoreU(bottom0, d, acc + stride);
  hn::StoreU(bottom1, d, acc + stride + lanes);
}
#endif

bool WindowRows(const char* x, int64_t x_row, const char* dy, int64_t dy_row,
                int64_t rows, int64_t channels, const BFloat16Window& w,
                double* acc, int64_t* units) {
#if HWY_TARGET == HWY_SCALAR
  (void)x, (void)x_row, (void)dy, (void)dy_row, (void)rows, (void)channels,
      (void)w, (void)acc, (void)units;
  return false;
#else
  const hn::ScalableTag<double> d;
  const hn::CappedTag<double, 1> d1;
  const hn::Rebind<uint16_t, hn::Repartition<float, decltype(d)>> d16;
  const auto step = static_cast<int64_t>(2 * hn::Lanes(d));
  const int b = w.bottom();
  const double top0 = FixedStart(b + kWindowLevelGap), bottom0 = FixedStart(b);
  std::fill(acc, acc + channels, top0);
  std::fill(acc + channels, acc + 2 * channels, bottom0);
  const auto x_lo16 = static_cast<uint16_t>((w.x_top - kWindowBinades) << 7);
  const auto dy_lo16 = static_cast<uint16_t>((w.dy_top - kWindowBinades) << 7);
  const auto x_lo = hn::Set(d16, x_lo16), dy_lo = hn::Set(d16, dy_lo16);
  auto outside = hn::Zero(d16);
  bool outside_tail = false;
  for (int64_t r = 0; r < rows; ++r) {
    const auto* xr = reinterpret_cast<const uint16_t*>(x + r * x_row);
    const auto* dyr = reinterpret_cast<const uint16_t*>(dy + r * dy_row);
    int64_t ch = 0;
    for (; ch + step <= channels; ch += step) {
      WindowRowStep(d, xr + ch, dyr + ch, x_lo, dy_lo, &outside, acc + ch,
                    channels);
    }
    for (; ch < channels; ++ch) {
      outside_tail = outside_tail || !InsideWindow(xr[ch], x_lo16) ||
                     !InsideWindow(dyr[ch], dy_lo16);
      FixedRowElement<Load16<false>>(d1, xr + ch, dyr + ch, acc + ch, channels);
    }
  }
  if (outside_tail || !hn::AllTrue(d16, hn::Eq(outside, hn::Zero(d16)))) {
    return false;
  }
  return ChannelUnits(acc, channels, top0, bottom0, units);
#endif
}

void WindowFields(const void* xp, const void* dyp, size_t n, int* x_field,
                  int* dy_field) {
  const auto* x = static_cast<const uint16_t*>(xp);
  const auto* dy = static_cast<const uint16_t*>(dyp);
  const hn::ScalableTag<uint16_t> d16;
  const auto magnitude = hn::Set(d16, uint16_t{0x7fff});
  auto x_max = hn::Zero(d16), dy_max = hn::Zero(d16);
  const size_t lanes = hn::Lanes(d16);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    x_max = hn::Max(x_max, hn::And(hn::LoadU(d16, x + i), magnitude));
    dy_max = hn::Max(dy_max, hn::And(hn::LoadU(d16, dy + i), magnitude));
  }
  int xm = hn::GetLane(hn::MaxOfLanes(d16, x_max));
  int dm = hn::GetLane(hn::MaxOfLanes(d16, dy_max));
  for (; i < n; ++i) {
    xm = std::max(xm, x[i] & 0x7fff);
    dm = std::max(dm, dy[i] & 0x7fff);
  }
  *x_field = xm >> 7;
  *dy_field = dm >> 7;
}

template <class L, int... kLevels>
void FillFormat(UlpTable* table, int format,
                std::integer_sequence<int, kLevels...> /*levels*/) {
  ((table->run[format][kLevels] = &Run<L, kLevels + 1>), ...);
  ((table->rows[format][kLevels] = &Rows<L, kLevels + 1>), ...);
}

void FillUlpTable(UlpTable* table) {
  const auto levels = std::make_integer_sequence<int, kMaxLevels>();
  FillFormat<LoadF32>(table, 0, levels);
  FillFormat<Load16<true>>(table, 1, levels);
  FillFormat<Load16<false>>(table, 2, levels);
  table->extent[0] = &Extent<LoadF32>;
  table->extent[1] = &Extent<Load16<true>>;
  table->extent[2] = &Extent<Load16<false>>;
  table->half_run = &HalfRun;
  table->half_rows = &HalfRows;
  table->window_run = &WindowRun;
  table->window_rows = &WindowRows;
  table->fields = &WindowFields;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "cpu/kernels.h"

namespace lrelu::cpu {

HWY_EXPORT(FillUlpTable);

const UlpTable& UlpFor(int64_t target) {
  return FilledTable(target, HWY_DISPATCH_TABLE(FillUlpTable));
}

UlpGrid GridFor(double max_abs, double min_abs, int precision) {
  // Every term is a multiple of 2^lsb (a product of two significands of
  // `precision` bits has at most 2 * precision bits) and below
  // 2^(ilogb(max_abs) + 1), which the top level's ulp 2^e takes when
  // max_abs <= 2^(kUlpWidth - 1 + e).
  const int lsb = std::max(std::ilogb(min_abs) - (2 * precision - 1), kUlpBase);
  const int top = std::ilogb(max_abs) + 2 - kUlpWidth;
  const int span = top - lsb;
  const int levels = span <= 0 ? 1 : (span + kUlpWidth - 1) / kUlpWidth + 1;
  const int spare = (levels - 1) * kUlpWidth - span;
  return {std::max(lsb - spare / 2, kUlpBase), levels};
}

bool Fits(const UlpGrid& grid, const UlpStats& stats) {
  return grid.levels > 0 && !stats.remainder &&
         stats.max_abs <=
             Pow2(kUlpWidth - 1 + LevelExponent(grid, grid.levels - 1));
}

bool GridChoice::SampleDue(int precision) {
  // Runs count only on a grid wider than any terms of the precision need
  // (float32's 48-bit products always take two levels): a cheap test, two
  // ilogb per run of up to kMaxRun terms.
  if (grid_.levels <= GridFor(1.0, 1.0, precision).levels ||
      ++runs_ < sample_every_) {
    return false;
  }
  runs_ = 0;
  sample_every_ = std::min(2 * sample_every_, kSampleEveryMax);
  return true;
}

UlpGrid GridChoice::Narrowed(int precision, const UlpStats& e) {
  UlpGrid need;
  if (!e.remainder && e.max_abs > 0) {
    need = GridFor(e.max_abs, e.min_abs, precision);
  }
  if (need.levels == 0 || need.levels >= grid_.levels) {
    narrower_ = 0;
    return {};
  }
  if (++narrower_ < 2) return {};
  narrower_ = 0;
  return need;
}

}  // namespace lrelu::cpu
#endif  // HWY_ONCE
