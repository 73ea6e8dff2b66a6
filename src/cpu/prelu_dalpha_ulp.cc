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

static_assert(HWY_MAX_BYTES / 8 <= kRunLanes / 2,
              "two sets of float64 lanes must fit kRunLanes");

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
    const auto magnitude = hn::And(hn::BitCast(du, remainder),
                                   hn::Set(du, ~(uint64_t{1} << 63)));
    stats->remainder = stats->remainder ||
                       !hn::AllTrue(du, hn::Eq(magnitude, hn::Zero(du)));
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

template <class L, int kLevels>
void Run(const void* xp, const void* dyp, size_t n, double* acc,
         UlpStats* stats) {
  using T = typename L::T;
  using D = hn::ScalableTag<double>;
  const auto* x = static_cast<const T*>(xp);
  const auto* dy = static_cast<const T*>(dyp);
  const D d;
  const size_t lanes = hn::Lanes(d);
  constexpr int kHalf = kRunLanes / 2;
  // Two sets of accumulators, so consecutive vectors' additions do not wait
  // for each other; one Seen for both (registers are short).
  hn::Vec<D> a0[kLevels], a1[kLevels];
  for (int j = 0; j < kLevels; ++j) {
    a0[j] = hn::LoadU(d, acc + j * kRunLanes);
    a1[j] = hn::LoadU(d, acc + j * kRunLanes + kHalf);
  }
  Seen<D> seen(d);
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    Deposit<kLevels>(NegativeProduct<L>(d, x + i, dy + i), a0, &seen);
    Deposit<kLevels>(NegativeProduct<L>(d, x + i + lanes, dy + i + lanes), a1,
                     &seen);
  }
  if (i + lanes <= n) {
    Deposit<kLevels>(NegativeProduct<L>(d, x + i, dy + i), a0, &seen);
    i += lanes;
  }
  if (i < n) {  // the last few, padded with x = +0 (no term)
    T xt[kHalf] = {}, dyt[kHalf] = {};
    std::memcpy(xt, x + i, (n - i) * sizeof(T));
    std::memcpy(dyt, dy + i, (n - i) * sizeof(T));
    Deposit<kLevels>(NegativeProduct<L>(d, xt, dyt), a1, &seen);
  }
  for (int j = 0; j < kLevels; ++j) {
    hn::StoreU(a0[j], d, acc + j * kRunLanes);
    hn::StoreU(a1[j], d, acc + j * kRunLanes + kHalf);
  }
  seen.Into(d, stats);
}

// One step of a row: Lanes(d) channels from c, their levels in memory.
template <class L, int kLevels, class D>
HWY_INLINE void RowStep(D d, const typename L::T* x, const typename L::T* dy,
                        double* acc, int64_t stride, Seen<D>* seen) {
  auto p = NegativeProduct<L>(d, x, dy);
  seen->max_abs = hn::Max(seen->max_abs, hn::Abs(p));
  for (int j = kLevels - 1; j >= 0; --j) {
    double* a = acc + j * stride;
    const auto old = hn::LoadU(d, a);
    const auto s = hn::Add(old, p);
    p = hn::Sub(p, hn::Sub(s, old));
    hn::StoreU(s, d, a);
  }
  seen->remainder = hn::Or(seen->remainder, p);
}

template <class L, int kLevels>
void Rows(const char* x, int64_t x_row, const char* dy, int64_t dy_row,
          int64_t rows, int64_t channels, double* acc, UlpStats* stats) {
  using T = typename L::T;
  using D = hn::ScalableTag<double>;
  using D1 = hn::CappedTag<double, 1>;
  const D d;
  const D1 d1;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  Seen<D> seen(d);
  Seen<D1> seen1(d1);
  for (int64_t r = 0; r < rows; ++r) {
    const auto* xr = reinterpret_cast<const T*>(x + r * x_row);
    const auto* dyr = reinterpret_cast<const T*>(dy + r * dy_row);
    int64_t c = 0;
    for (; c + lanes <= channels; c += lanes) {
      RowStep<L, kLevels>(d, xr + c, dyr + c, acc + c, channels, &seen);
    }
    for (; c < channels; ++c) {
      RowStep<L, kLevels>(d1, xr + c, dyr + c, acc + c, channels, &seen1);
    }
  }
  seen.Into(d, stats);
  seen1.Into(d1, stats);
}

// The extremes of the nonzero |terms| of a contiguous run, for choosing a
// grid; remainder: a term is inf or NaN.
template <class L, class D>
HWY_INLINE void ExtentStep(D d, const typename L::T* x,
                           const typename L::T* dy, hn::Vec<D>* max_abs,
                           hn::Vec<D>* min_abs, hn::Mask<D>* special) {
  const auto inf = hn::Set(d, std::numeric_limits<double>::infinity());
  const auto a = hn::Abs(NegativeProduct<L>(d, x, dy));
  *max_abs = hn::Max(*max_abs, a);
  *min_abs =
      hn::Min(*min_abs, hn::IfThenElse(hn::Eq(a, hn::Zero(d)), inf, a));
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
  if (i < n) ExtentIn<L>(hn::CappedTag<double, 1>(), x + i, dy + i, n - i, stats);
}

template <class L>
void Extent(const void* x, const void* dy, size_t n, UlpStats* stats) {
  ExtentIn<L>(hn::ScalableTag<double>(), static_cast<const typename L::T*>(x),
              static_cast<const typename L::T*>(dy), n, stats);
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
  // max_abs < 2^(top + 1); every term is a multiple of 2^lsb: a product of
  // two significands of `precision` bits has at most 2 * precision bits.
  const int top = std::ilogb(max_abs);
  const int lsb = std::max(std::ilogb(min_abs) - (2 * precision - 1), kUlpBase);
  const int lo = (lsb - kUlpBase) / kUlpWidth;
  // The top level's ulp 2^e needs max_abs <= 2^(kUlpWidth - 1 + e).
  const int need = top + 2 - kUlpWidth - kUlpBase;
  const int hi =
      std::max(lo, need <= 0 ? 0 : (need + kUlpWidth - 1) / kUlpWidth);
  return {lo, hi - lo + 1};
}

bool Fits(const UlpGrid& grid, const UlpStats& stats) {
  return grid.levels > 0 && !stats.remainder &&
         stats.max_abs <=
             std::ldexp(1.0, kUlpWidth - 1 +
                                 LevelExponent(grid, grid.levels - 1));
}

namespace {
uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}
double Start(const UlpGrid& grid, int j) {
  return std::ldexp(1.5, LevelExponent(grid, j) + 52);
}
}  // namespace

void ResetLevels(const UlpGrid& grid, double* acc, int64_t stride,
                 int64_t count) {
  for (int j = 0; j < grid.levels; ++j) {
    std::fill(acc + j * stride, acc + j * stride + count, Start(grid, j));
  }
}

int64_t LevelUnits(const UlpGrid& grid, int j, const double* acc,
                   int64_t stride, int64_t count) {
  // Within a binade the bits grow by one per ulp.
  const uint64_t start = Bits(Start(grid, j));
  uint64_t units = 0;
  for (int64_t i = 0; i < count; ++i) units += Bits(acc[j * stride + i]) - start;
  return static_cast<int64_t>(units);
}

}  // namespace lrelu::cpu
#endif  // HWY_ONCE
