// PReLU dalpha's float64 accumulators (cpu/prelu_dalpha_ulp.h) on every
// runnable target: the kernels sum exactly whenever they report a fit
// (checked against the GMP oracle), report a misfit for terms too large for
// the top level, below the bottom level, or inf/NaN, and ProductBins /
// ChannelBins give the oracle's sums while their data moves between scales
// (grids widen, narrow, or give way to the slots).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cpu/kernels.h"
#include "cpu/prelu_dalpha.h"
#include "cpu/prelu_dalpha_ulp.h"
#include "prelu/exact_oracle.h"
#include "reference/exact_sum.h"
#include "support/test_data.h"

namespace lrelu::testing {
namespace {

constexpr lrelu_dtype_t kDTypes[] = {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16,
                                     LRELU_DTYPE_BFLOAT16};

// Values of `dtype` with exponents center +- spread (clamped to the normal
// range), random signs and significands; one in eight is zero.
std::vector<uint64_t> Scaled(lrelu_dtype_t dtype, size_t n, int center,
                             int spread, std::mt19937_64& rng) {
  const int mbits = dtype == LRELU_DTYPE_FLOAT32   ? 23
                    : dtype == LRELU_DTYPE_FLOAT16 ? 10
                                                   : 7;
  const int ebits = dtype == LRELU_DTYPE_FLOAT16 ? 5 : 8;
  const int bias = (1 << (ebits - 1)) - 1;
  std::vector<uint64_t> out(n);
  for (uint64_t& b : out) {
    const uint64_t r = rng();
    if ((r & 7) == 0) {
      b = 0;
      continue;
    }
    int field =
        bias + center +
        static_cast<int>((r >> 3) % static_cast<uint64_t>(2 * spread + 1)) -
        spread;
    field = std::max(1, std::min(field, (1 << ebits) - 2));
    b = ((r >> 20) & 1) << (mbits + ebits) |
        static_cast<uint64_t>(field) << mbits |
        ((r >> 21) & ((uint64_t{1} << mbits) - 1));
  }
  return out;
}

uint64_t Oracle(lrelu_dtype_t dtype, const std::vector<uint64_t>& x,
                const std::vector<uint64_t>& dy) {
  return ExactDalpha(dtype, x, dy, LRELU_DTYPE_FLOAT64);
}

const reference::Format kF64 = reference::FormatOf(LRELU_DTYPE_FLOAT64);

// The grid a run's terms need, from the oracle's values.
cpu::UlpGrid NeededGrid(lrelu_dtype_t dtype, const std::vector<uint64_t>& x,
                        const std::vector<uint64_t>& dy) {
  double max_abs = 0, min_abs = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < x.size(); ++i) {
    const double xv = ValueOf(dtype, x[i]);
    const double p = xv < 0 ? std::fabs(xv * ValueOf(dtype, dy[i])) : 0.0;
    if (p > 0) {
      max_abs = std::max(max_abs, p);
      min_abs = std::min(min_abs, p);
    }
  }
  return max_abs > 0 ? cpu::GridFor(max_abs, min_abs,
                                    reference::FormatOf(dtype).precision)
                     : cpu::UlpGrid{0, 1};
}

// The run kernel on a fresh grid: whether it fitted, and the sum it holds.
struct RunResult {
  bool fits;
  uint64_t sum;
};
RunResult RunOnGrid(int64_t target, lrelu_dtype_t dtype,
                    const std::vector<uint64_t>& x,
                    const std::vector<uint64_t>& dy, const cpu::UlpGrid& g) {
  std::vector<unsigned char> xb = StoredBits(dtype, x),
                             dyb = StoredBits(dtype, dy);
  int64_t units[cpu::kMaxLevels];
  cpu::UlpStats stats;
  cpu::UlpFor(target).run[cpu::FormatIndex(dtype)][g.levels - 1](
      xb.data(), dyb.data(), x.size(), g.lo, units, &stats);
  reference::ExactSum sum;
  for (int j = 0; j < g.levels; ++j) {
    sum.AddScaled128(units[j], cpu::LevelExponent(g, j));
  }
  return {cpu::Fits(g, stats), sum.Round(kF64)};
}

// The rows kernel on a fresh grid: whether it fitted, and each channel's
// sum (rows of `channels` elements, x and dy in C order).
struct RowsResult {
  bool fits;
  std::vector<uint64_t> sums;
};
RowsResult RowsOnGrid(int64_t target, lrelu_dtype_t dtype,
                      const std::vector<uint64_t>& x,
                      const std::vector<uint64_t>& dy, int64_t channels,
                      const cpu::UlpGrid& g) {
  const std::vector<unsigned char> xb = StoredBits(dtype, x),
                                   dyb = StoredBits(dtype, dy);
  std::vector<double> acc(static_cast<size_t>(channels) * cpu::kMaxLevels);
  std::vector<int64_t> units(acc.size(), 0);
  cpu::UlpStats stats;
  const int64_t row = channels * static_cast<int64_t>(lrelu_dtype_size(dtype));
  const auto rows = static_cast<int64_t>(x.size()) / channels;
  cpu::UlpFor(target).rows[cpu::FormatIndex(dtype)][g.levels - 1](
      reinterpret_cast<const char*>(xb.data()), row,
      reinterpret_cast<const char*>(dyb.data()), row, rows, channels, g.lo,
      acc.data(), units.data(), &stats);
  RowsResult r{cpu::Fits(g, stats), {}};
  for (int64_t c = 0; c < channels; ++c) {
    reference::ExactSum sum;
    for (int j = 0; j < g.levels; ++j) {
      sum.AddScaled128(units[static_cast<size_t>(j * channels + c)],
                       cpu::LevelExponent(g, j));
    }
    r.sums.push_back(sum.Round(kF64));
  }
  return r;
}

TEST(DalphaLevels, RunKernelIsExactWhereItFits) {
  std::mt19937_64 rng(7);
  for (const cpu::Target& t : cpu::RunnableTargets()) {
    for (lrelu_dtype_t dtype : kDTypes) {
      const bool f16 = dtype == LRELU_DTYPE_FLOAT16;
      std::set<int> seen;
      // Spreads that need one to four levels (float16's range allows two,
      // float32's precision needs two at least).
      for (int spread : f16 ? std::vector<int>{1, 6, 14}
                            : std::vector<int>{1, 10, 18, 30, 38}) {
        for (size_t n : {size_t{1}, size_t{3}, size_t{7}, size_t{9}, size_t{33},
                         size_t{1000}, size_t{2048}}) {
          const std::vector<uint64_t> x = Scaled(dtype, n, 0, spread, rng);
          const std::vector<uint64_t> dy = Scaled(dtype, n, -3, spread, rng);
          const cpu::UlpGrid g = NeededGrid(dtype, x, dy);
          if (g.levels > cpu::kMaxLevels) continue;
          seen.insert(g.levels);
          const std::string what =
              std::string(t.name) + " " + lrelu_dtype_name(dtype) + " n " +
              std::to_string(n) + " levels " + std::to_string(g.levels);
          const RunResult r = RunOnGrid(t.bit, dtype, x, dy, g);
          ASSERT_TRUE(r.fits) << what;
          ASSERT_EQ(Hex(r.sum, 8), Hex(Oracle(dtype, x, dy), 8)) << what;
        }
      }
      const std::set<int> want = f16 ? std::set<int>{1, 2}
                                 : dtype == LRELU_DTYPE_BFLOAT16
                                     ? std::set<int>{1, 2, 3, 4}
                                     : std::set<int>{2, 3, 4};
      for (int levels : want) {
        EXPECT_EQ(seen.count(levels), 1u)
            << t.name << " " << lrelu_dtype_name(dtype) << " levels " << levels
            << " not exercised";
      }
    }
  }
}

TEST(DalphaLevels, RunKernelReportsMisfits) {
  for (const cpu::Target& t : cpu::RunnableTargets()) {
    for (lrelu_dtype_t dtype : kDTypes) {
      const uint64_t one = dtype == LRELU_DTYPE_FLOAT32   ? 0x3f800000u
                           : dtype == LRELU_DTYPE_FLOAT16 ? 0x3c00u
                                                          : 0x3f80u;
      const uint64_t sign =
          dtype == LRELU_DTYPE_FLOAT32 ? 0x80000000u : 0x8000u;
      const uint64_t inf = dtype == LRELU_DTYPE_FLOAT32   ? 0x7f800000u
                           : dtype == LRELU_DTYPE_FLOAT16 ? 0x7c00u
                                                          : 0x7f80u;
      const uint64_t nan = inf | (inf >> 1 & ~inf);  // top fraction bit set
      const std::string what =
          std::string(t.name) + " " + lrelu_dtype_name(dtype);
      std::vector<uint64_t> x(9, one | sign), dy(9, one);
      const cpu::UlpGrid g = NeededGrid(dtype, x, dy);
      EXPECT_TRUE(RunOnGrid(t.bit, dtype, x, dy, g).fits) << what;
      // dy = +0 makes x * dy = -0: no term, and a -0 remainder.
      std::vector<uint64_t> dy0 = dy;
      dy0[3] = 0;
      dy0[8] = 0;
      EXPECT_TRUE(RunOnGrid(t.bit, dtype, x, dy0, g).fits) << what;
      // The terms are 1: the top level's ulp must be at least
      // 2^(1 - kUlpWidth), the bottom's at most 1.
      const cpu::UlpGrid top{1 - cpu::kUlpWidth, 1};
      EXPECT_TRUE(RunOnGrid(t.bit, dtype, x, dy, top).fits) << what;
      EXPECT_TRUE(RunOnGrid(t.bit, dtype, x, dy, {0, 1}).fits) << what;
      // Too large for the top level, and bits below the bottom level.
      const cpu::UlpGrid low{-cpu::kUlpWidth, 1};
      EXPECT_FALSE(RunOnGrid(t.bit, dtype, x, dy, low).fits) << what;
      EXPECT_FALSE(RunOnGrid(t.bit, dtype, x, dy, {1, 1}).fits) << what;
      EXPECT_FALSE(RunOnGrid(t.bit, dtype, x, dy, {1, 2}).fits) << what;
      // inf and NaN products, in the last (partial) vector and the first.
      for (size_t at : {size_t{8}, size_t{0}}) {
        for (uint64_t special : {inf, nan}) {
          std::vector<uint64_t> dy2 = dy;
          dy2[at] = special;
          EXPECT_FALSE(RunOnGrid(t.bit, dtype, x, dy2, g).fits)
              << what << " at " << at;
        }
      }
    }
  }
}

// Terms as large as a level takes (2^(kUlpWidth - 1) of its ulps), all of
// one sign, kMaxRun of them: the accumulators are moved into their
// integers often enough to stay in their binades. x = -1 or -1.5, dy = 1;
// on two levels, -1.5 leaves -0.5 (half the top ulp) to the bottom level.
TEST(DalphaLevels, LargestTermsStayExact) {
  for (const cpu::Target& t : cpu::RunnableTargets()) {
    for (lrelu_dtype_t dtype : kDTypes) {
      const bool f32 = dtype == LRELU_DTYPE_FLOAT32;
      const bool f16 = dtype == LRELU_DTYPE_FLOAT16;
      const uint64_t one = f32 ? 0x3f800000u : f16 ? 0x3c00u : 0x3f80u;
      const uint64_t minus_one = f32 ? 0xbf800000u : f16 ? 0xbc00u : 0xbf80u;
      const uint64_t minus_1_5 = f32 ? 0xbfc00000u : f16 ? 0xbe00u : 0xbfc0u;
      const auto n = static_cast<size_t>(cpu::kMaxRun);
      const std::vector<uint64_t> dy(n, one);
      for (int levels : {1, 2}) {
        const std::vector<uint64_t> x(n, levels == 1 ? minus_one : minus_1_5);
        // Top ulp 2^(1 - kUlpWidth) for 1, 2 for 1.5 (bottom 2^-kUlpWidth).
        const cpu::UlpGrid g = levels == 1
                                   ? cpu::UlpGrid{1 - cpu::kUlpWidth, 1}
                                   : cpu::UlpGrid{1 - cpu::kUlpWidth, 2};
        const std::string what = std::string(t.name) + " " +
                                 lrelu_dtype_name(dtype) + " levels " +
                                 std::to_string(levels);
        const RunResult r = RunOnGrid(t.bit, dtype, x, dy, g);
        ASSERT_TRUE(r.fits) << what;
        ASSERT_EQ(Hex(r.sum, 8), Hex(Oracle(dtype, x, dy), 8)) << what;
        // The rows kernel: every row the same, 5 channels.
        const int64_t channels = 5;
        const RowsResult rows =
            RowsOnGrid(t.bit, dtype, std::vector<uint64_t>(n * channels, x[0]),
                       std::vector<uint64_t>(n * channels, one), channels, g);
        ASSERT_TRUE(rows.fits) << what;
        for (int64_t c = 0; c < channels; ++c) {
          ASSERT_EQ(Hex(rows.sums[static_cast<size_t>(c)], 8), Hex(r.sum, 8))
              << what << " rows, channel " << c;
        }
      }
    }
  }
}

TEST(DalphaLevels, RowsKernelIsExactPerChannel) {
  std::mt19937_64 rng(11);
  for (const cpu::Target& t : cpu::RunnableTargets()) {
    for (lrelu_dtype_t dtype : kDTypes) {
      for (int64_t channels : {1, 3, 5, 64, 67}) {
        const int64_t rows = 21;  // past kRenormEvery
        const auto n = static_cast<size_t>(rows * channels);
        const std::vector<uint64_t> x = Scaled(dtype, n, 2, 5, rng);
        const std::vector<uint64_t> dy = Scaled(dtype, n, -4, 5, rng);
        const cpu::UlpGrid g = NeededGrid(dtype, x, dy);
        ASSERT_LE(g.levels, cpu::kMaxLevels);
        const RowsResult result = RowsOnGrid(t.bit, dtype, x, dy, channels, g);
        const std::string what = std::string(t.name) + " " +
                                 lrelu_dtype_name(dtype) + " channels " +
                                 std::to_string(channels);
        ASSERT_TRUE(result.fits) << what;
        for (int64_t c = 0; c < channels; ++c) {
          std::vector<uint64_t> xc, dyc;
          for (int64_t r = 0; r < rows; ++r) {
            xc.push_back(x[static_cast<size_t>(r * channels + c)]);
            dyc.push_back(dy[static_cast<size_t>(r * channels + c)]);
          }
          ASSERT_EQ(Hex(result.sums[static_cast<size_t>(c)], 8),
                    Hex(Oracle(dtype, xc, dyc), 8))
              << what << " channel " << c;
        }
      }
    }
  }
}

// float16's fixed grid (cpu/prelu_dalpha_ulp.h): every finite term is taken
// exactly, checked as an integer count of 2^-48 (the exact sum of float16
// products is one, below 2^91), so no bit can hide in a rounding. The run
// kernel and the rows kernel (every channel the same column of data) on
// the largest terms (2^11 of 65504^2 of one sign, the bound the grid's
// width is chosen for), the smallest (subnormal squared), both at once,
// random bits over the whole range at lengths that leave every kind of
// tail; an inf or NaN term is reported (or, for a NaN x, which has no term,
// the sum is still exact).
__int128 HalfUnits(const std::vector<uint64_t>& x,
                   const std::vector<uint64_t>& dy) {
  __int128 sum = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double xv = ValueOf(LRELU_DTYPE_FLOAT16, x[i]);
    if (xv < 0) {
      sum += static_cast<__int128>(std::ldexp(
          xv * ValueOf(LRELU_DTYPE_FLOAT16, dy[i]), -cpu::kHalfBottom));
    }
  }
  return sum;
}

std::string Text(__int128 v) {
  std::string s;
  const bool negative = v < 0;
  unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : v;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u != 0);
  return negative ? "-" + s : s;
}

TEST(DalphaLevels, HalfGridTakesEveryFiniteTerm) {
  static_assert(cpu::kMaxRun <= 2048, "the fixed grid's bound");
  // The top level's ulp in bottom ones (a product: units may be negative).
  const __int128 kTopUnit = __int128{1} << (cpu::kHalfTop - cpu::kHalfBottom);
  const auto n = static_cast<size_t>(cpu::kMaxRun);
  struct Case {
    std::string name;
    std::vector<uint64_t> x, dy;
    bool special;  // has an inf or NaN term
  };
  std::vector<Case> cases;
  cases.push_back({"largest", std::vector<uint64_t>(n, 0xfbffu),
                   std::vector<uint64_t>(n, 0x7bffu), false});
  cases.push_back({"largest negative", std::vector<uint64_t>(n, 0xfbffu),
                   std::vector<uint64_t>(n, 0xfbffu), false});
  // -1 * -(1 - 2^-11) 2^(kHalfTop - 1): each term just below half the top
  // level's ulp, all of it left to the bottom level, of one sign (the
  // bottom level's bound).
  const uint64_t below_half = (cpu::kHalfTop - 2 + 15) << 10 | 0x3ffu;
  cases.push_back({"largest remainders", std::vector<uint64_t>(n, 0xbc00u),
                   std::vector<uint64_t>(n, below_half | 0x8000u), false});
  cases.push_back({"largest remainders negative",
                   std::vector<uint64_t>(n, 0xbc00u),
                   std::vector<uint64_t>(n, below_half), false});
  cases.push_back({"smallest", std::vector<uint64_t>(n, 0x8001u),
                   std::vector<uint64_t>(n, 0x0001u), false});
  Case mixed{"largest and smallest", {}, {}, false};
  for (size_t i = 0; i < n; ++i) {
    mixed.x.push_back(i % 3 == 0 ? 0xfbffu : 0x8001u);
    mixed.dy.push_back(i % 3 == 0 ? (i % 2 ? 0x7bffu : 0xfbffu) : 0x83ffu);
  }
  cases.push_back(mixed);
  std::mt19937_64 rng(29);
  for (size_t length : {size_t{1}, size_t{3}, size_t{7}, size_t{8}, size_t{15},
                        size_t{17}, size_t{67}, n}) {
    Case c{"random " + std::to_string(length), {}, {}, false};
    for (size_t i = 0; i < length; ++i) {
      uint64_t a = rng() & 0xffffu, b = rng() & 0xffffu;
      if ((a & 0x7c00u) == 0x7c00u) a &= 0xbfffu;  // finite
      if ((b & 0x7c00u) == 0x7c00u) b &= 0xbfffu;
      c.x.push_back(a);
      c.dy.push_back(b);
    }
    cases.push_back(c);
  }
  for (uint64_t special : {uint64_t{0x7c00u}, uint64_t{0xfc00u},
                           uint64_t{0x7e00u}, uint64_t{0x7c01u}}) {
    Case c = cases[6 + special % 5];  // a random case, one term made special
    c.name += " with dy " + Hex(special, 2);
    c.x[c.x.size() / 2] = 0xbc00u;  // -1
    c.dy[c.dy.size() / 2] = special;
    c.special = true;
    cases.push_back(c);
    c.name += ", x -inf, dy 0";
    c.dy[c.dy.size() / 2] = 0;
    c.x[c.x.size() / 2] = 0xfc00u;
    cases.push_back(c);
  }
  Case nan_x = cases[12];
  nan_x.name = "x NaN";
  nan_x.x[5] = 0xfe00u;
  nan_x.x[6] = 0x7e01u;
  cases.push_back(nan_x);
  for (const cpu::Target& t : cpu::RunnableTargets()) {
    const cpu::UlpTable& table = cpu::UlpFor(t.bit);
    for (const Case& c : cases) {
      const std::string what = std::string(t.name) + " " + c.name;
      const std::vector<unsigned char> xb =
                                           StoredBits(LRELU_DTYPE_FLOAT16, c.x),
                                       dyb = StoredBits(LRELU_DTYPE_FLOAT16,
                                                        c.dy);
      const __int128 expected = c.special ? 0 : HalfUnits(c.x, c.dy);
      int64_t units[2];
      const bool finite =
          table.half_run(xb.data(), dyb.data(), c.x.size(), units);
      ASSERT_EQ(finite, !c.special) << what;
      if (finite) {
        const __int128 got = units[0] + units[1] * kTopUnit;
        ASSERT_EQ(Text(got), Text(expected)) << what;
      }
      // Rows: 3 channels, each holding the case's data as its column.
      const int64_t channels = 3;
      std::vector<uint64_t> xr, dyr;
      for (size_t i = 0; i < c.x.size(); ++i) {
        for (int64_t k = 0; k < channels; ++k) {
          xr.push_back(c.x[i]);
          dyr.push_back(c.dy[i]);
        }
      }
      const std::vector<unsigned char> xrb =
                                           StoredBits(LRELU_DTYPE_FLOAT16, xr),
                                       dyrb =
                                           StoredBits(LRELU_DTYPE_FLOAT16, dyr);
      std::vector<double> acc(2 * channels);
      std::vector<int64_t> ru(2 * channels);
      const bool rows_finite = table.half_rows(
          reinterpret_cast<const char*>(xrb.data()), 2 * channels,
          reinterpret_cast<const char*>(dyrb.data()), 2 * channels,
          static_cast<int64_t>(c.x.size()), channels, acc.data(), ru.data());
      ASSERT_EQ(rows_finite, !c.special) << what << " rows";
      for (int64_t k = 0; rows_finite && k < channels; ++k) {
        const __int128 got = ru[static_cast<size_t>(k)] +
                             ru[static_cast<size_t>(channels + k)] * kTopUnit;
        ASSERT_EQ(Text(got), Text(expected)) << what << " rows, channel " << k;
      }
    }
  }
}

// bfloat16's windowed grid (cpu/prelu_dalpha_ulp.h): where every x and dy
// lies in its window the run kernel's sum is exact (as an integer count of
// 2^bottom, checked exactly), at the windows' extremes (the largest and
// smallest magnitudes, remainders just under half the top level's ulp,
// both levels at once, zeros) and on random bits at every tail length; one
// element just above or just below a window, an inf or a NaN makes it
// misfit. The windows of several sums: centred, and at both ends of the
// range the grid allows (the products' float32 range).
uint64_t Bf16(int sign, int field, int mantissa) {
  return static_cast<uint64_t>(sign << 15 | field << 7 | mantissa);
}

__int128 WindowUnits(const std::vector<uint64_t>& x,
                     const std::vector<uint64_t>& dy, int bottom) {
  __int128 sum = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double xv = ValueOf(LRELU_DTYPE_BFLOAT16, x[i]);
    if (xv < 0) {
      sum += static_cast<__int128>(
          std::ldexp(xv * ValueOf(LRELU_DTYPE_BFLOAT16, dy[i]), -bottom));
    }
  }
  return sum;
}

TEST(DalphaLevels, BFloat16WindowIsExactInsideAndMisfitsOutside) {
  const auto n = static_cast<size_t>(cpu::kMaxRun);
  const __int128 top_unit = __int128{1} << cpu::kWindowLevelGap;
  const cpu::BFloat16Window windows[] = {{132, 124}, {33 + 64, 95}, {255, 127}};
  std::mt19937_64 rng(31);
  for (const cpu::BFloat16Window& w : windows) {
    ASSERT_TRUE(w.valid());
    const int xl = w.x_top - cpu::kWindowBinades, xh = w.x_top - 1;
    const int dl = w.dy_top - cpu::kWindowBinades, dh = w.dy_top - 1;
    struct Case {
      std::string name;
      std::vector<uint64_t> x, dy;
      bool inside;
    };
    std::vector<Case> cases;
    cases.push_back({"largest", std::vector<uint64_t>(n, Bf16(1, xh, 127)),
                     std::vector<uint64_t>(n, Bf16(0, dh, 127)), true});
    cases.push_back({"smallest", std::vector<uint64_t>(n, Bf16(1, xl, 1)),
                     std::vector<uint64_t>(n, Bf16(1, dl, 0)), true});
    // 129^2 2^bottom each: every bit of the bottom level in use.
    cases.push_back({"smallest, odd",
                     std::vector<uint64_t>(n - 1, Bf16(1, xl, 1)),
                     std::vector<uint64_t>(n - 1, Bf16(0, dl, 1)), true});
    // -2^(ex) * (2 - 2^-7) 2^(ed), ex + ed = bottom + 38: just under half
    // the top level's ulp (see the header).
    cases.push_back({"largest remainders",
                     std::vector<uint64_t>(n, Bf16(1, w.x_top - 16, 0)),
                     std::vector<uint64_t>(n, Bf16(0, w.dy_top - 24, 127)),
                     true});
    Case mixed{"largest, smallest and zeros", {}, {}, true};
    for (size_t i = 0; i < n; ++i) {
      mixed.x.push_back(i % 5 == 0   ? Bf16(1, xh, 127)
                        : i % 5 == 1 ? 0x8000u
                                     : Bf16(1, xl, 1));
      mixed.dy.push_back(i % 3 == 0 ? Bf16(static_cast<int>(i % 2), dh, 127)
                                    : Bf16(0, dl, 1));
    }
    cases.push_back(mixed);
    for (size_t length : {size_t{1}, size_t{5}, size_t{15}, size_t{16},
                          size_t{17}, size_t{33}, size_t{67}, n}) {
      Case c{"random " + std::to_string(length), {}, {}, true};
      for (size_t i = 0; i < length; ++i) {
        const uint64_t r = rng();
        const bool zero = (r & 15) == 0;
        c.x.push_back(zero ? 0
                           : Bf16(r >> 4 & 1,
                                  xl + static_cast<int>((r >> 5) % 32),
                                  static_cast<int>(r >> 12 & 127)));
        c.dy.push_back(Bf16(r >> 20 & 1, dl + static_cast<int>((r >> 21) % 32),
                            static_cast<int>(r >> 28 & 127)));
      }
      cases.push_back(c);
    }
    const Case base = cases.back();
    const std::pair<const char*, uint64_t> outside_x[] = {
        {"x above", Bf16(1, std::min(w.x_top, 255), 0)},
        {"x below", Bf16(1, xl - 1, 5)},
        {"x positive above", Bf16(0, std::min(w.x_top, 255), 0)},
        {"x NaN", 0xffc1u}};
    for (const auto& [name, bits] : outside_x) {
      Case c = base;
      c.name = name;
      c.x[n / 3] = bits;
      c.inside = false;
      cases.push_back(c);
    }
    const std::pair<const char*, uint64_t> outside_dy[] = {
        {"dy above", Bf16(0, std::min(w.dy_top, 255), 0)},
        {"dy below", Bf16(0, dl - 1, 0)},
        {"dy inf", 0x7f80u}};
    for (const auto& [name, bits] : outside_dy) {
      Case c = base;
      c.name = name;
      c.dy[n - 1] = bits;  // in the last vector
      c.inside = false;
      cases.push_back(c);
    }
    for (const cpu::Target& t : cpu::RunnableTargets()) {
      if (std::string(t.name) == "SCALAR") continue;  // general levels only
      const cpu::UlpTable& table = cpu::UlpFor(t.bit);
      for (const Case& c : cases) {
        const std::string what = std::string(t.name) + " window " +
                                 std::to_string(w.x_top) + "/" +
                                 std::to_string(w.dy_top) + " " + c.name;
        const std::vector<unsigned char> xb = StoredBits(LRELU_DTYPE_BFLOAT16,
                                                         c.x),
                                         dyb = StoredBits(LRELU_DTYPE_BFLOAT16,
                                                          c.dy);
        int64_t units[2];
        const bool fits =
            table.window_run(xb.data(), dyb.data(), c.x.size(), w, units);
        ASSERT_EQ(fits, c.inside) << what;
        if (fits) {
          // In units of the last bit any product can have, from the
          // windows themselves (not from the grid under test).
          const int lsb = (w.x_top - cpu::kWindowBinades - 134) +
                          (w.dy_top - cpu::kWindowBinades - 134);
          ASSERT_GE(w.bottom(), lsb) << what;
          const __int128 scale = __int128{1} << (w.bottom() - lsb);
          ASSERT_EQ(Text((units[0] + units[1] * top_unit) * scale),
                    Text(WindowUnits(c.x, c.dy, lsb)))
              << what;
        }
        // Rows: 11 channels (a vector step and a scalar tail on AVX2),
        // channel k holding the case's data rotated by k rows.
        const int64_t channels = 11;
        const size_t rows = c.x.size();
        std::vector<uint64_t> xr, dyr;
        for (size_t i = 0; i < rows; ++i) {
          for (int64_t k = 0; k < channels; ++k) {
            xr.push_back(c.x[(i + static_cast<size_t>(k)) % rows]);
            dyr.push_back(c.dy[(i + static_cast<size_t>(k)) % rows]);
          }
        }
        const std::vector<unsigned char> xrb = StoredBits(LRELU_DTYPE_BFLOAT16,
                                                          xr),
                                         dyrb = StoredBits(LRELU_DTYPE_BFLOAT16,
                                                           dyr);
        std::vector<double> acc(2 * channels);
        std::vector<int64_t> ru(2 * channels);
        const bool rows_fit = table.window_rows(
            reinterpret_cast<const char*>(xrb.data()), 2 * channels,
            reinterpret_cast<const char*>(dyrb.data()), 2 * channels,
            static_cast<int64_t>(rows), channels, w, acc.data(), ru.data());
        ASSERT_EQ(rows_fit, c.inside) << what << " rows";
        if (rows_fit) {
          const int lsb = (w.x_top - cpu::kWindowBinades - 134) +
                          (w.dy_top - cpu::kWindowBinades - 134);
          const __int128 scale = __int128{1} << (w.bottom() - lsb);
          const __int128 expected = WindowUnits(c.x, c.dy, lsb);
          for (int64_t k = 0; k < channels; ++k) {
            const __int128 got =
                ru[static_cast<size_t>(k)] +
                ru[static_cast<size_t>(channels + k)] * top_unit;
            ASSERT_EQ(Text(got * scale), Text(expected))
                << what << " rows, channel " << k;
          }
        }
        int x_field, dy_field;
        table.fields(xb.data(), dyb.data(), c.x.size(), &x_field, &dy_field);
        if (c.inside) {
          ASSERT_LT(x_field, w.x_top) << what;
          ASSERT_LT(dy_field, w.dy_top) << what;
        }
      }
    }
  }
}

// Blocks at different scales, one too wide for kMaxLevels (the slots); for
// float32 and bfloat16, terms with bits below the bottom level of the grid
// in use follow a narrow block twice (first, and after the grid has had
// time to narrow): the grid widens, narrows and gives way.
struct Block {
  int x_center, dy_center, spread;
  size_t n;
};
std::vector<Block> Blocks(lrelu_dtype_t dtype) {
  if (dtype == LRELU_DTYPE_FLOAT16) {
    return {{0, 0, 2, 3000},
            {-8, 5, 4, 2500},
            {3, -10, 3, 20000},
            {0, 0, 15, 3000},
            {0, 0, 1, 70000}};
  }
  return {{0, 0, 1, 5000},     {-30, -30, 2, 5000}, {0, 0, 2, 3000},
          {-40, 30, 8, 2500},  {3, -10, 3, 20000},  {0, 0, 120, 3000},
          {60, -70, 20, 4000}, {0, 0, 1, 70000},    {-30, -30, 2, 4000}};
}

// One block's x and dy; with `inf`, one product in the middle is -1 * inf.
void Fill(lrelu_dtype_t dtype, const Block& b, bool inf, std::mt19937_64& rng,
          std::vector<uint64_t>* x, std::vector<uint64_t>* dy) {
  *x = Scaled(dtype, b.n, b.x_center, b.spread, rng);
  *dy = Scaled(dtype, b.n, b.dy_center, b.spread, rng);
  if (inf) {
    const bool f32 = dtype == LRELU_DTYPE_FLOAT32;
    const bool f16 = dtype == LRELU_DTYPE_FLOAT16;
    (*x)[b.n / 2] = f32 ? 0xbf800000u : f16 ? 0xbc00u : 0xbf80u;
    (*dy)[b.n / 2] = f32 ? 0x7f800000u : f16 ? 0x7c00u : 0x7f80u;
  }
}

// Each block is one sum (one alpha element), rounded to float64 and checked
// on its own, so a lost low bit shows; one object sums them all in turn and
// keeps its grid from one to the next, as across the alpha elements of a
// call.
TEST(DalphaLevels, ProductBinsAcrossScales) {
  std::mt19937_64 rng(13);
  for (const cpu::Target& t : cpu::RunnableTargets()) {
    for (lrelu_dtype_t dtype : kDTypes) {
      cpu::ProductBins bins(t.bit);
      const std::vector<Block> blocks = Blocks(dtype);
      for (size_t k = 0; k < blocks.size(); ++k) {
        std::vector<uint64_t> x, dy;
        Fill(dtype, blocks[k], k == 2, rng, &x, &dy);
        const std::vector<unsigned char> xb = StoredBits(dtype, x),
                                         dyb = StoredBits(dtype, dy);
        reference::BinnedSum binned;
        reference::ExactSum sum;
        // Uneven pieces, as the planes of an NCHW tensor.
        const size_t elem = lrelu_dtype_size(dtype);
        for (size_t i = 0; i < x.size();) {
          const size_t piece = std::min(x.size() - i, 1 + (i * 7919) % 3001);
          bins.Add(dtype, xb.data() + i * elem, 1, dyb.data() + i * elem, 1,
                   static_cast<int64_t>(piece), &binned, &sum);
          i += piece;
        }
        bins.FlushInto(&binned);
        binned.FlushInto(&sum);
        ASSERT_EQ(Hex(sum.Round(kF64), 8), Hex(Oracle(dtype, x, dy), 8))
            << t.name << " " << lrelu_dtype_name(dtype) << " block " << k;
      }
    }
  }
}

TEST(DalphaLevels, ChannelBinsAcrossScales) {
  std::mt19937_64 rng(17);
  for (const cpu::Target& t : cpu::RunnableTargets()) {
    for (lrelu_dtype_t dtype : kDTypes) {
      for (int64_t channels : {16, 67}) {
        const auto c = static_cast<size_t>(channels);
        cpu::ChannelBins bins(t.bit, channels);
        const std::vector<Block> blocks = Blocks(dtype);
        for (size_t k = 0; k < blocks.size(); ++k) {
          std::vector<uint64_t> x, dy;
          Fill(dtype, blocks[k], k == 2, rng, &x, &dy);
          x.resize(x.size() / c * c);
          dy.resize(x.size());
          const auto rows = static_cast<int64_t>(x.size() / c);
          const std::vector<unsigned char> xb = StoredBits(dtype, x),
                                           dyb = StoredBits(dtype, dy);
          std::vector<reference::BinnedSum> binned(c);
          std::vector<reference::ExactSum> sums(c);
          const int64_t row =
              channels * static_cast<int64_t>(lrelu_dtype_size(dtype));
          const auto* xp = reinterpret_cast<const char*>(xb.data());
          const auto* dyp = reinterpret_cast<const char*>(dyb.data());
          // Segments of up to 256 rows, as the API sends them.
          for (int64_t r = 0; r < rows; r += 256) {
            bins.AddRows(dtype, xp + r * row, row, dyp + r * row, row,
                         std::min<int64_t>(256, rows - r), binned.data(),
                         sums.data());
          }
          bins.Flush(binned.data(), sums.data());
          for (size_t j = 0; j < c; ++j) {
            binned[j].FlushInto(&sums[j]);
            std::vector<uint64_t> xc, dyc;
            for (size_t i = j; i < x.size(); i += c) {
              xc.push_back(x[i]);
              dyc.push_back(dy[i]);
            }
            ASSERT_EQ(Hex(sums[j].Round(kF64), 8),
                      Hex(Oracle(dtype, xc, dyc), 8))
                << t.name << " " << lrelu_dtype_name(dtype) << " channels "
                << channels << " block " << k << " channel " << j;
          }
        }
      }
    }
  }
}

// BinnedSum::RoundIfNarrow (dalpha's short way from the bins to the
// result) against the wide accumulator's flush and rounding, for sums of
// blocks spread over one to five bins, with cancellation, results that
// overflow, underflow to zero or land among the subnormals, in every
// format dalpha is rounded to.
TEST(DalphaLevels, NarrowBinsRoundAsTheWideAccumulator) {
  std::mt19937_64 rng(2024);
  const lrelu_dtype_t dtypes[] = {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16,
                                  LRELU_DTYPE_BFLOAT16, LRELU_DTYPE_FLOAT64};
  int narrow = 0, wide = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    reference::BinnedSum bins;
    const int base = -1075 + static_cast<int>(rng() % 1925);  // to 849
    const int terms = 1 + static_cast<int>(rng() % 6);
    const int spread = static_cast<int>(rng() % 6) * 24;  // 0 to 120 bits
    std::vector<std::pair<int64_t, int>> added;
    for (int t = 0; t < terms; ++t) {
      const int width = static_cast<int>(rng() % 63);
      auto v = static_cast<int64_t>(rng() >> (64 - width - 1) >> 1);
      if (rng() % 2) v = -v;
      const int e = base + (spread ? static_cast<int>(rng() % spread) : 0);
      added.emplace_back(v, e);
      bins.AddScaled(v, e);
      if (rng() % 8 == 0) {  // an exact cancellation of this block
        bins.AddScaled(-v, e);
        added.emplace_back(-v, e);
      }
    }
    for (lrelu_dtype_t d : dtypes) {
      const reference::Format f = reference::FormatOf(d);
      reference::BinnedSum a = bins, b = bins;
      reference::ExactSum sum;
      b.FlushInto(&sum);
      const uint64_t want = sum.Round(f);
      uint64_t got = 0;
      if (a.RoundIfNarrow(f, &got)) {
        ++narrow;
        ASSERT_EQ(Hex(got, 8), Hex(want, 8))
            << lrelu_dtype_name(d) << " trial " << trial << " base " << base;
        // The bins are empty afterwards.
        reference::ExactSum rest;
        a.FlushInto(&rest);
        ASSERT_EQ(rest.Round(f), 0u);
        ASSERT_EQ(a.count(), 0u);
      } else {
        ++wide;
      }
    }
  }
  // Both outcomes are exercised.
  EXPECT_GT(narrow, 20000);
  EXPECT_GT(wide, 1000);
}

}  // namespace
}  // namespace lrelu::testing
