// The SIMD path of PReLU's dalpha for float32/float16/bfloat16: the exact
// products x * dy (x < 0) summed in float64 accumulators whose ulp is fixed,
// so that every addition is exact (docs/prelu.md).
//
// Level j of a grid holds a float64 S in [2^(e+52), 2^(e+53)), e = lo +
// kUlpWidth * j: its ulp is 2^e. A term p goes in top level first: s = S + p
// rounds p to a multiple of 2^e, q = s - S and p - q are exact (the error of
// a float addition is representable), and the remainder, at most half an
// ulp, goes to the next level down. The levels step by kUlpWidth bits, so a
// remainder is at most 2^(kUlpWidth - 1) ulps of the next level; after
// kRenormEvery of them S has moved at most 2^50 ulps and is still in its
// binade. Then S - C (C = 1.5 * 2^(e+52), the start) is the integer
// bits(S) - bits(C) times 2^e: the kernels move it into a 64-bit integer per
// lane and put S back to C. A grid fits a set of terms when the largest is
// at most 2^(kUlpWidth - 1) ulps of the top level and the remainder after
// the bottom level is zero; the kernels report both (inf/NaN make the
// remainder NaN), so a misfit is seen. Then a pass over the terms finds the
// grid they need and they are summed again on it, or by the integer slots
// (prelu_dalpha.h) when that needs more than kMaxLevels levels or a term is
// inf/NaN. The integers go to a BinnedSum: the sum stays exact and
// order-independent.
#ifndef LRELU_SRC_CPU_PRELU_DALPHA_ULP_H_
#define LRELU_SRC_CPU_PRELU_DALPHA_ULP_H_

#include <cstddef>
#include <cstdint>
#include <limits>

#include "lrelu/lrelu.h"
#include "reference/exact_sum.h"

namespace lrelu::cpu {

// Bits between the ulps of neighbouring levels.
constexpr int kUlpWidth = 48;
// Deposits into one accumulator between two moves into its integer:
// 2^(51 - kUlpWidth), so that S stays within 2^50 ulps of its start.
constexpr int kRenormEvery = 1 << (51 - kUlpWidth);
// The last bit of the smallest product of two float32 values (2^-149
// squared): no level needs a smaller ulp.
constexpr int kUlpBase = -298;
// Levels a kernel handles at most; wider sets of terms take the slots.
constexpr int kMaxLevels = 4;
// Terms per run kernel call, and rows per rows kernel call: each term adds
// at most 2^(kUlpWidth - 1) units to a level, so a level's integer stays
// below 2^58 (BinnedSum::AddScaled takes less than 2^62).
constexpr int64_t kMaxRun = 2048;

// What a kernel saw. The level kernels: the largest |x * dy| (unreliable
// when a term is NaN) and whether a remainder was left below the bottom
// level (or a term was inf/NaN). The extent kernel: the largest and the
// smallest nonzero |x * dy| (+inf when none is nonzero) and whether a term
// was inf/NaN.
struct UlpStats {
  double max_abs = 0;
  double min_abs = std::numeric_limits<double>::infinity();
  bool remainder = false;
};

// Sums the terms of x[i], dy[i] (i < n <= kMaxRun, contiguous) on the
// grid from `lo` with the kernel's number of levels: units[j] = their part
// at level j, in units of its ulp. Folds what it saw into *stats.
using RunUlpKernel = void (*)(const void* x, const void* dy, size_t n, int lo,
                              int64_t* units, UlpStats* stats);
// Sums `rows` (<= kMaxRun) rows of `channels` contiguous elements (rows
// x_row / dy_row bytes apart), element c to channel c: units[j * channels +
// c] (zero on entry). acc: room for levels * channels float64 accumulators.
using RowsUlpKernel = void (*)(const char* x, int64_t x_row, const char* dy,
                               int64_t dy_row, int64_t rows, int64_t channels,
                               int lo, double* acc, int64_t* units,
                               UlpStats* stats);

// Folds the extent of the terms of x[i], dy[i] (i < n, contiguous) into
// *stats.
using ExtentKernel = void (*)(const void* x, const void* dy, size_t n,
                              UlpStats* stats);

// float16's fixed grid. Every product of two float16 values is a multiple
// of 2^-48 (2^-24 squared) and below 2^32 (65504^2), so two levels with
// ulps 2^kHalfBottom and 2^kHalfTop take any finite term exactly: no grid
// to choose, no extent pass, no fit to check. A term is at most 2^40 ulps
// of the top level and leaves at most 2^39 ulps of the bottom one, so
// either accumulator takes 2^11 deposits before it could leave its binade:
// the kernels renormalize only at the end (runs and rows are at most
// kMaxRun = 2^11 long). The terms are formed in float32 (22 significant
// bits and 2^-48 .. 2^32: exact), twice as many to a vector as in float64.
constexpr int kHalfBottom = -48;
constexpr int kHalfTop = -8;

// Sums the terms of x[i], dy[i] (i < n <= kMaxRun, float16, contiguous)
// on the fixed grid: units[0] in units of 2^kHalfBottom, units[1] of
// 2^kHalfTop. False when a term is inf or NaN (units are then unusable).
using HalfRunKernel = bool (*)(const void* x, const void* dy, size_t n,
                               int64_t* units);
// The rows form (as RowsUlpKernel, without the stats): units[c] and
// units[channels + c] are set, not added to; acc: room for 2 * channels.
using HalfRowsKernel = bool (*)(const char* x, int64_t x_row, const char* dy,
                                int64_t dy_row, int64_t rows, int64_t channels,
                                double* acc, int64_t* units);

// bfloat16's windowed grid. bfloat16 spans float32's exponents, so no
// fixed grid of two levels holds all its products; but when every x and
// dy of a run has its exponent field within a window of kWindowBinades
// below a top (x_top, dy_top; zero allowed), each product has at most 16
// significant bits, is a multiple of 2^b with b = x_top + dy_top - 332 and
// below 2^(b + 78): exact in float32 (normal there while b lies in
// [-140, 50]) and taken exactly by two levels with ulps 2^b and
// 2^(b + kWindowLevelGap). A term is at most 2^38 ulps of the top level
// and leaves at most 2^39 of the bottom one, so, as float16's, the kernel
// renormalizes only at the end of a run (at most kMaxRun terms). The
// kernel checks the windows on every element (four integer operations per
// 16-bit vector and operand); a run with an element outside them (inf and
// NaN included) misfits and takes the general levels.
constexpr int kWindowBinades = 32;
constexpr int kWindowLevelGap = 40;
struct BFloat16Window {
  int x_top = 0, dy_top = 0;  // exponent fields just above the windows
  bool valid() const {
    const int sum = x_top + dy_top;
    return x_top > kWindowBinades && dy_top > kWindowBinades && x_top <= 255 &&
           dy_top <= 255 && sum >= 192 && sum <= 382;
  }
  int bottom() const { return x_top + dy_top - 332; }  // b above
};

// Sums a bfloat16 run (n <= kMaxRun, contiguous) on window w's grid:
// units[0] in units of 2^w.bottom(), units[1] of 2^(w.bottom() +
// kWindowLevelGap). False when an element lies outside the windows (units
// are then unusable). w.valid().
using WindowRunKernel = bool (*)(const void* x, const void* dy, size_t n,
                                 const BFloat16Window& w, int64_t* units);
// The rows form (as HalfRowsKernel) on window w's grid: units[c] in units
// of 2^w.bottom(), units[channels + c] of 2^(w.bottom() + kWindowLevelGap).
using WindowRowsKernel = bool (*)(const char* x, int64_t x_row, const char* dy,
                                  int64_t dy_row, int64_t rows,
                                  int64_t channels, const BFloat16Window& w,
                                  double* acc, int64_t* units);
// The largest exponent fields of x and of dy over a bfloat16 run.
using FieldsKernel = void (*)(const void* x, const void* dy, size_t n,
                              int* x_field, int* dy_field);

// The bfloat16 windows a stream of runs (or rows) is summed on: kept
// from run to run, chosen again on a misfit from the run's largest x and
// dy; after kMisses runs in a row that fitted none, tried on one run in
// 64 only (data of too wide a range would otherwise pay a second pass
// every time).
class WindowChoice {
 public:
  const BFloat16Window& window() const { return window_; }

  // `kernel(w)` sums the run on windows w (false: an element outside);
  // `fields(&x_field, &dy_field)` gives its largest exponent fields. True
  // when the run was summed, on window().
  template <class Kernel, class Fields>
  bool Fit(Kernel&& kernel, Fields&& fields) {
    if (misses_ >= kMisses && (++skipped_ & 63) != 0) return false;
    if (!window_.valid() || !kernel(window_)) {
      // The same windows again mean an element lies below them: a miss.
      int x_field = 0, dy_field = 0;
      fields(&x_field, &dy_field);
      BFloat16Window fresh;
      fresh.x_top =
          x_field + 1 > kWindowBinades ? x_field + 1 : kWindowBinades + 1;
      fresh.dy_top =
          dy_field + 1 > kWindowBinades ? dy_field + 1 : kWindowBinades + 1;
      if (!fresh.valid() ||
          (fresh.x_top == window_.x_top && fresh.dy_top == window_.dy_top) ||
          !kernel(fresh)) {
        ++misses_;
        return false;
      }
      window_ = fresh;
    }
    misses_ = 0;
    return true;
  }

 private:
  static constexpr int kMisses = 4;
  BFloat16Window window_;
  int misses_ = 0;
  uint32_t skipped_ = 0;
};

// [format: float32, float16, bfloat16][levels - 1].
struct UlpTable {
  RunUlpKernel run[3][kMaxLevels];
  RowsUlpKernel rows[3][kMaxLevels];
  ExtentKernel extent[3];
  HalfRunKernel half_run;
  HalfRowsKernel half_rows;
  WindowRunKernel window_run;
  WindowRowsKernel window_rows;
  FieldsKernel fields;
};

// The kernels compiled for `target` (one of RunnableTargets()).
const UlpTable& UlpFor(int64_t target);

// A grid: levels with ulps 2^lo, 2^(lo + kUlpWidth), ... (levels 0: none
// yet).
struct UlpGrid {
  int lo = 0;
  int levels = 0;
  bool operator==(const UlpGrid& o) const {
    return lo == o.lo && levels == o.levels;
  }
};

// The grid with the fewest levels that fits terms between min_abs and
// max_abs (finite, max_abs > 0) of products of two values of `precision`
// significant bits, its spare bits split between the top and the bottom so
// that the next terms likely fit too; levels may exceed kMaxLevels.
UlpGrid GridFor(double max_abs, double min_abs, int precision);

// Whether `grid` took the terms `stats` describes exactly.
bool Fits(const UlpGrid& grid, const UlpStats& stats);

// Level j's ulp exponent.
inline int LevelExponent(const UlpGrid& grid, int j) {
  return grid.lo + kUlpWidth * j;
}

// The index of the kernel tables (TermsTable, UlpTable) for a 32/16-bit
// dtype: 0 float32, 1 float16, 2 bfloat16.
inline int FormatIndex(lrelu_dtype_t dtype) {
  return dtype == LRELU_DTYPE_FLOAT16    ? 1
         : dtype == LRELU_DTYPE_BFLOAT16 ? 2
                                         : 0;
}

// What GridChoice::Fit did: the grid the terms were last summed on (levels
// 0: they were not, as there are none), what its kernel saw, and whether
// the terms fitted it.
struct Fitted {
  UlpGrid grid;
  UlpStats stats;
  bool fits = false;
};

// The grid a stream of runs is summed on, for terms of `precision`-bit
// values: kept from run to run (the next terms are likely of the same
// sizes), chosen again on a misfit, and narrowed when samples of the terms'
// extent say so.
class GridChoice {
 public:
  const UlpGrid& grid() const { return grid_; }

  // No grid: the next run is measured first.
  void Forget() { *this = GridChoice(); }

  // Sums a run with `kernel(grid)` on grid(); on a misfit (or with no grid)
  // `extent()` gives the terms' sizes and they are summed once more, on the
  // grid those need, unless that is wider than kMaxLevels or a term is
  // inf/NaN. Take() the grid of a fit.
  template <class Kernel, class Extent>
  Fitted Fit(int precision, Kernel&& kernel, Extent&& extent) const {
    Fitted f;
    if (grid_.levels > 0) {
      f.grid = grid_;
      f.stats = kernel(grid_);
      f.fits = Fits(grid_, f.stats);
      if (f.fits) return f;
    }
    const UlpStats e = extent();
    if (e.remainder) return f;  // an inf/NaN term
    if (!(e.max_abs > 0)) {     // no terms (only with no grid yet)
      f.grid = UlpGrid{};
      f.fits = true;
      return f;
    }
    const UlpGrid need = GridFor(e.max_abs, e.min_abs, precision);
    if (need.levels > kMaxLevels) return f;
    f.grid = need;
    f.stats = kernel(need);
    f.fits = Fits(need, f.stats);
    return f;
  }

  void Take(const UlpGrid& grid) {
    if (grid == grid_) return;
    grid_ = grid;
    narrower_ = 0;
  }

  // After a run summed on grid(): the narrower grid to Take() (levels 0:
  // none). Every sample_every-th run on a grid wider than any terms of the
  // precision need is measured with `extent()`; two such samples in a row
  // that fit a narrower grid narrow it (a grid too narrow costs a second
  // pass over a run, one too wide a few additions per term). Each sample
  // doubles sample_every, up to kSampleEveryMax: data whose extent varies
  // from run to run would otherwise narrow and widen again and again, and
  // data whose extent does not needs few samples.
  template <class Extent>
  UlpGrid Narrower(int precision, Extent&& extent) {
    return SampleDue(precision) ? Narrowed(precision, extent()) : UlpGrid{};
  }

 private:
  static constexpr int64_t kSampleEvery = 8;
  static constexpr int64_t kSampleEveryMax = 1024;
  bool SampleDue(int precision);
  UlpGrid Narrowed(int precision, const UlpStats& e);

  UlpGrid grid_;
  int64_t runs_ = 0;  // since the last sample
  int64_t sample_every_ = kSampleEvery;
  int narrower_ = 0;  // samples in a row that fitted a narrower grid
};

// 2^k * (1 + fraction / 2^52) for a normal float64 exponent k (-1022 ..
// 1023), from its bits: std::ldexp is a library call, and the kernels and
// Fits need a few of these per run.
inline double Pow2(int k, uint64_t fraction = 0) {
  const uint64_t bits = static_cast<uint64_t>(k + 1023) << 52 | fraction;
  double v;
  __builtin_memcpy(&v, &bits, sizeof(v));
  return v;
}

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_PRELU_DALPHA_ULP_H_
