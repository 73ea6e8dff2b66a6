// PReLU dalpha's bounded float64 sums (cpu/prelu_dalpha_bound.h) on every
// runnable target: a sum is decided only when the decision is the
// correctly rounded sum (the GMP oracle), also where the float64 sum itself
// rounds the wrong way (a tail that float64 additions lose, a sum on a
// midpoint); ordinary data is decided (the bounded path is the one that
// runs); and the public call gives the oracle's bits on both paths, for
// every target and thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/float_env.h"
#include "cpu/kernels.h"
#include "cpu/prelu_dalpha_bound.h"
#include "cpu/prelu_dalpha_ulp.h"
#include "prelu/exact_oracle.h"
#include "reference/dtype_traits.h"
#include "reference/exact_sum.h"
#include "support/test_data.h"

namespace lrelu::testing {
namespace {

constexpr lrelu_dtype_t kDTypes[] = {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16,
                                     LRELU_DTYPE_BFLOAT16};

// v (representable in dtype, or rounded to it) as dtype's bits.
uint64_t BitsOf(lrelu_dtype_t dtype, double v) {
  const auto f = static_cast<float>(v);
  switch (dtype) {
    case LRELU_DTYPE_FLOAT16:
      return reference::FloatToHalf(f);
    case LRELU_DTYPE_BFLOAT16:
      return reference::FloatToBFloat16(f);
    case LRELU_DTYPE_FLOAT64:
      return reference::BitCast<uint64_t>(v);
    default:
      return reference::BitCast<uint32_t>(f);
  }
}

// Precision (significand bits) of dtype.
int Precision(lrelu_dtype_t dtype) {
  return reference::FormatOf(dtype).precision;
}

// One channel's terms as x and dy bits.
struct Terms {
  std::vector<uint64_t> x, dy;
  void Add(lrelu_dtype_t dtype, double xv, double dyv) {
    x.push_back(BitsOf(dtype, xv));
    dy.push_back(BitsOf(dtype, dyv));
  }
};

// n normally distributed x and dy (about half the x negative).
Terms Normal(lrelu_dtype_t dtype, size_t n, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;  // float64: all 53 bits
  Terms t;
  for (size_t i = 0; i < n; ++i) t.Add(dtype, normal(rng), normal(rng));
  return t;
}

// Terms whose exact sum is 1 + 2^-p, the midpoint between 1 and the next
// value of dtype (p its precision): ties to even give 1.
Terms Midpoint(lrelu_dtype_t dtype) {
  Terms t;
  t.Add(dtype, -1.0, -1.0);
  t.Add(dtype, -std::ldexp(1.0, -Precision(dtype)), -1.0);
  return t;
}

// x * dy = sign * 2^k, with x < 0 (x and dy powers of two).
void AddPow2(lrelu_dtype_t dtype, Terms* t, int k, double sign) {
  const int half = k >= 0 ? k / 2 : -((1 - k) / 2);
  t->Add(dtype, -std::ldexp(1.0, half), -sign * std::ldexp(1.0, k - half));
}

// A sum that float64 additions round to the wrong side of a midpoint:
// S + S 2^-p (the midpoint above S, p dtype's precision) - S 2^-below +
// `count` terms of S 2^-56, whose total is above S 2^-below: exactly, the
// sum lies above the midpoint and rounds up. In float64 each S 2^-56 is
// lost (below half an ulp of S), so the float64 sum is S 2^-below under
// the midpoint and rounds down. S = 2^16 for float16 (its products reach
// 2^-48 at least), else 1.
Terms WrongSide(lrelu_dtype_t dtype, int below, int count) {
  const int s = dtype == LRELU_DTYPE_FLOAT16 ? 16 : 0;
  Terms t;
  AddPow2(dtype, &t, s, 1);
  AddPow2(dtype, &t, s - Precision(dtype), 1);
  AddPow2(dtype, &t, s - below, -1);
  for (int i = 0; i < count; ++i) AddPow2(dtype, &t, s - 56, 1);
  return t;
}

// One run: 2^-49 under the midpoint against 2^-48.4 above; only the bound
// (~2^-47 S here) keeps it from being decided.
Terms LostTail(lrelu_dtype_t dtype) { return WrongSide(dtype, 49, 200); }

// One term a run: each run's sum, S 2^-56, is lost when added to the
// total as a float64, which ends 2^-46 S under the midpoint against an
// exact 2^-45.1 S above. Runs are added without error (BoundedSum's
// TwoSum), so the bound of a one-term run (~2^-48.7 S) decides it, up.
Terms LostRuns(lrelu_dtype_t dtype) { return WrongSide(dtype, 46, 2000); }

// A sum that float32 additions (bfloat16's runs summed in float32) round
// to the wrong side of a midpoint: 32 terms 2^-5 first (a vector's worth
// of values or more, so every lane's partial sum is 2^-4 or more on any
// target, whichever lanes the values go to), then 96 terms 1.5 2^-29 in
// the same part of the run, each below half an ulp of that partial and
// lost against it, then 2^-p and -2^-22. Exactly 1 + 2^-p + 2^-25, above
// the midpoint (rounds up); in float32 1 + 2^-p - 2^-22, below it. What
// is lost (2^-21.8) exceeds u A (2^-24 of the terms' magnitudes, ~1): only
// a bound on the float32 additions' results (u E) holds it. float64 keeps
// every term.
Terms LostInFloat32(lrelu_dtype_t dtype) {
  Terms t;
  for (int i = 0; i < 32; ++i) AddPow2(dtype, &t, -5, 1);
  for (int i = 0; i < 96; ++i) t.Add(dtype, -0x1.8p-15, -0x1p-14);
  AddPow2(dtype, &t, -Precision(dtype), 1);
  AddPow2(dtype, &t, -22, -1);
  return t;
}

// LostInFloat32 for a rows kernel, where a channel's terms take one lane
// in row order and the float32 sums move to float64 every 32 rows: each
// 32 rows start with 2^-2, then 31 terms of 1.5 2^-27, each below half an
// ulp of 2^-2 and lost against it; four such parts, then 2^-p and -2^-20.
// Exactly 1 + 2^-p + 58 2^-27, above the midpoint (rounds up); in float32
// 1 + 2^-p - 2^-20, below it; what is lost (2^-19.5) exceeds u A.
Terms RowsLostInFloat32(lrelu_dtype_t dtype) {
  Terms t;
  for (int part = 0; part < 4; ++part) {
    AddPow2(dtype, &t, -2, 1);
    for (int i = 0; i < 31; ++i) t.Add(dtype, -0x1.8p-14, -0x1p-13);
  }
  AddPow2(dtype, &t, -Precision(dtype), 1);
  AddPow2(dtype, &t, -20, -1);
  return t;
}

// Large terms that cancel around a small sum that lands on a midpoint.
Terms Cancelled(lrelu_dtype_t dtype) {
  Terms t = Midpoint(dtype);
  const double big = dtype == LRELU_DTYPE_FLOAT16 ? 0x1p7 : 0x1p60;
  t.Add(dtype, -big, -big);
  t.Add(dtype, -big, big);
  return t;
}

std::string Name(int64_t target, lrelu_dtype_t dtype) {
  for (const cpu::Target& t : cpu::RunnableTargets()) {
    if (t.bit == target) {
      return std::string(t.name) + " " + lrelu_dtype_name(dtype);
    }
  }
  return lrelu_dtype_name(dtype);
}

// The run kernel over t (in runs of up to kBoundedRun), then the decision;
// pair: a float64 dalpha (the pair kernels).
bool RunDecides(int64_t target, lrelu_dtype_t dtype, const Terms& t,
                uint64_t* bits, size_t per_run = cpu::kBoundedRun,
                bool pair = false) {
  const std::vector<unsigned char> x = StoredBits(dtype, t.x),
                                   dy = StoredBits(dtype, t.dy);
  const size_t e = lrelu_dtype_size(dtype);
  const cpu::BoundedRunKernel run =
      cpu::BoundedFor(target)
          .run[cpu::BoundedIndex(dtype, pair ? LRELU_DTYPE_FLOAT64 : dtype)];
  cpu::BoundedSum s;
  for (size_t i = 0; i < t.x.size(); i += per_run) {
    const size_t n = std::min(per_run, t.x.size() - i);
    run(x.data() + i * e, dy.data() + i * e, n, &s);
  }
  return cpu::RoundIfCertain(
      s, reference::FormatOf(pair ? LRELU_DTYPE_FLOAT64 : dtype), bits);
}

TEST(DalphaBound, RunDecidesOnlyTheCorrectlyRoundedSum) {
  cpu::DefaultFloatEnv env;
  std::mt19937_64 rng(5);
  for (const cpu::Target& target : cpu::RunnableTargets()) {
    for (lrelu_dtype_t dtype : kDTypes) {
      const std::string what = Name(target.bit, dtype);
      uint64_t bits = 0;
      // Ordinary data of every run length around the kernels' steps.
      for (size_t n : {1, 3, 7, 8, 15, 16, 17, 33, 1000, 2048, 5000}) {
        // A few products can sum to a midpoint exactly (a bfloat16
        // product has 16 bits, 7 of them below the rounding point): then
        // the bound cannot decide. Long sums it must.
        const Terms t = Normal(dtype, n, rng);
        const bool decided = RunDecides(target.bit, dtype, t, &bits);
        ASSERT_TRUE(decided || n < 1000) << what << " n " << n;
        if (decided) {
          ASSERT_EQ(Hex(bits, 4), Hex(ExactDalpha(dtype, t.x, t.dy, dtype), 4))
              << what << " n " << n;
        }
      }
      // On the midpoint the bound cannot decide; next to it, it must not
      // decide wrongly.
      EXPECT_FALSE(RunDecides(target.bit, dtype, Midpoint(dtype), &bits))
          << what;
      {  // LostTail's float64 sum does lie on the wrong side.
        const Terms t = LostTail(dtype);
        double naive = 0;
        for (size_t i = 0; i < t.x.size(); ++i) {
          naive += ValueOf(dtype, t.x[i]) * ValueOf(dtype, t.dy[i]);
        }
        const double scale = dtype == LRELU_DTYPE_FLOAT16 ? 0x1p16 : 1.0;
        const double mid = scale * (1 + std::ldexp(1.0, -Precision(dtype)));
        const uint64_t exact =
            ExactDalpha(dtype, t.x, t.dy, LRELU_DTYPE_FLOAT64);
        EXPECT_LT(naive, mid) << what;
        EXPECT_GT(reference::BitCast<double>(exact), mid) << what;
      }
      for (const Terms& t : {LostTail(dtype), Cancelled(dtype)}) {
        const uint64_t want = ExactDalpha(dtype, t.x, t.dy, dtype);
        if (RunDecides(target.bit, dtype, t, &bits)) {
          EXPECT_EQ(Hex(bits, 4), Hex(want, 4)) << what;
        }
      }
      {
        const Terms t = LostRuns(dtype);
        ASSERT_TRUE(RunDecides(target.bit, dtype, t, &bits, 1)) << what;
        EXPECT_EQ(Hex(bits, 4), Hex(ExactDalpha(dtype, t.x, t.dy, dtype), 4))
            << what;
      }
      // Sums outside the normal range: subnormal, and beyond the largest
      // finite value (inf), for each dtype's range.
      {
        const int emax = reference::FormatOf(dtype).emax;
        Terms tiny, huge;
        for (int i = 0; i < 5; ++i) {
          AddPow2(dtype, &tiny, -emax - 3 - i, i % 2 ? -1 : 1);
          AddPow2(dtype, &huge, emax - i % 2, 1);
        }
        for (const Terms& t : {tiny, huge}) {
          const uint64_t want = ExactDalpha(dtype, t.x, t.dy, dtype);
          if (RunDecides(target.bit, dtype, t, &bits)) {
            EXPECT_EQ(Hex(bits, 4), Hex(want, 4)) << what;
          }
        }
        ASSERT_TRUE(RunDecides(target.bit, dtype, huge, &bits)) << what;
        EXPECT_EQ(Hex(bits, 4),
                  Hex(ExactDalpha(dtype, huge.x, huge.dy, dtype), 4))
            << what;
      }
      // No terms, or only zero ones: +0.
      Terms zeros;
      zeros.Add(dtype, 1.0, 5.0);
      zeros.Add(dtype, -2.0, -0.0);
      ASSERT_TRUE(RunDecides(target.bit, dtype, zeros, &bits)) << what;
      EXPECT_EQ(bits, 0u) << what;
    }
  }
}

// The rows kernel: channel c of each row is the c-th term of channel c's
// Terms (all of them `rows` long).
// rows32: bfloat16's rows summed in float32 (bfloat16_rows32).
// streamed: the kernel told the rows come from memory (wide rows one at a
// time, RowsInOrder), else from the L2 (four side by side).
std::vector<uint64_t> RowsDecide(int64_t target, lrelu_dtype_t dtype,
                                 const std::vector<Terms>& channels,
                                 size_t rows, std::vector<bool>* decided,
                                 bool pair = false, bool rows32 = false,
                                 bool streamed = false) {
  const size_t count = channels.size();
  std::vector<uint64_t> xb(rows * count), dyb(rows * count);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < count; ++c) {
      xb[r * count + c] = channels[c].x[r];
      dyb[r * count + c] = channels[c].dy[r];
    }
  }
  const std::vector<unsigned char> x = StoredBits(dtype, xb),
                                   dy = StoredBits(dtype, dyb);
  const auto row_bytes = static_cast<int64_t>(count * lrelu_dtype_size(dtype));
  std::vector<cpu::BoundedSum> sums(count);
  std::vector<double> block((pair ? 3 : 2) * count);
  const cpu::BoundedTable& table = cpu::BoundedFor(target);
  const cpu::BoundedRowsKernel kernel =
      rows32 ? table.bfloat16_rows32
             : table.rows[cpu::BoundedIndex(
                   dtype, pair ? LRELU_DTYPE_FLOAT64 : dtype)];
  const int64_t per_run =
      cpu::RowsPerRun(row_bytes, static_cast<int64_t>(rows));
  for (int64_t r = 0; r < static_cast<int64_t>(rows); r += per_run) {
    const int64_t n = std::min(per_run, static_cast<int64_t>(rows) - r);
    kernel(reinterpret_cast<const char*>(x.data()) + r * row_bytes, row_bytes,
           reinterpret_cast<const char*>(dy.data()) + r * row_bytes, row_bytes,
           n, static_cast<int64_t>(count), streamed, block.data());
    cpu::AddRowsBlock(block.data(), count, pair,
                      rows32 ? cpu::Rows32Height(n) : cpu::RowsHeight(n),
                      sums.data());
  }
  std::vector<uint64_t> out(count);
  decided->assign(count, false);
  const reference::Format format =
      reference::FormatOf(pair ? LRELU_DTYPE_FLOAT64 : dtype);
  for (size_t c = 0; c < count; ++c) {
    uint64_t bits = 0;
    (*decided)[c] = cpu::RoundIfCertain(sums[c], format, &bits);
    out[c] = bits;
  }
  return out;
}

// RowsDecide's result for channel `at` among `count` channels: t there,
// normally distributed terms in the others. False where undecided.
bool RowsDecideAmongNormal(int64_t target, lrelu_dtype_t dtype, const Terms& t,
                           size_t count, size_t at, std::mt19937_64& rng,
                           bool streamed, uint64_t* bits) {
  std::vector<Terms> channels;
  for (size_t c = 0; c < count; ++c) {
    channels.push_back(Normal(dtype, t.x.size(), rng));
  }
  channels[at] = t;
  std::vector<bool> decided;
  const std::vector<uint64_t> got = RowsDecide(
      target, dtype, channels, t.x.size(), &decided, false, false, streamed);
  *bits = got[at];
  return decided[at];
}

TEST(DalphaBound, RowsDecideOnlyTheCorrectlyRoundedSums) {
  cpu::DefaultFloatEnv env;
  std::mt19937_64 rng(6);
  for (const cpu::Target& target : cpu::RunnableTargets()) {
    for (lrelu_dtype_t dtype : kDTypes) {
      // bfloat16 also summed in float32 (bfloat16_rows32, where present).
      for (bool rows32 : {false, true}) {
        if (rows32 &&
            (dtype != LRELU_DTYPE_BFLOAT16 ||
             cpu::BoundedFor(target.bit).bfloat16_rows32 == nullptr)) {
          continue;
        }
        // Narrow and wide rows (WideRows), whole vectors and a ragged tail,
        // more channels than float16's rows kernel takes a pass;
        // an odd number of rows (the four-row steps leave three).
        // Wide rows both from the L2 and streamed (RowsInOrder).
        for (size_t count : {16, 19, 64, 520, 1100}) {
          for (size_t rows : {1, 39, 300}) {
            for (bool streamed : {false, true}) {
              if (streamed && count < 520) continue;
              const std::string what =
                  Name(target.bit, dtype) + (rows32 ? " (float32 sums)" : "") +
                  " channels " + std::to_string(count) + " rows " +
                  std::to_string(rows) + (streamed ? " streamed" : "");
              std::vector<Terms> channels;
              for (size_t c = 0; c < count; ++c) {
                channels.push_back(Normal(dtype, rows, rng));
              }
              // Four channels on (or next to) a midpoint, padded with zero
              // terms (x = +0) to `rows`.
              std::vector<Terms> edge = {Midpoint(dtype), LostTail(dtype),
                                         Cancelled(dtype),
                                         RowsLostInFloat32(dtype)};
              for (size_t k = 0; k < edge.size(); ++k) {
                edge[k].x.resize(std::max(rows, edge[k].x.size()), 0);
                edge[k].dy.resize(edge[k].x.size(), 0);
                if (edge[k].x.size() > rows) continue;  // too long for 1 row
                channels[(k * 7 + 2) % count] = edge[k];
              }
              std::vector<bool> decided;
              const std::vector<uint64_t> got =
                  RowsDecide(target.bit, dtype, channels, rows, &decided, false,
                             rows32, streamed);
              size_t ordinary = 0, ordinary_decided = 0;
              for (size_t c = 0; c < count; ++c) {
                const uint64_t want =
                    ExactDalpha(dtype, channels[c].x, channels[c].dy, dtype);
                bool edge_channel = false;
                for (size_t k = 0; k < edge.size(); ++k) {
                  edge_channel = edge_channel || (edge[k].x.size() <= rows &&
                                                  c == (k * 7 + 2) % count);
                }
                if (!edge_channel) {
                  ++ordinary;
                  ordinary_decided += decided[c] ? 1 : 0;
                }
                if (decided[c]) {
                  ASSERT_EQ(Hex(got[c], 4), Hex(want, 4))
                      << what << " channel " << c;
                }
              }
              // Short sums can sit on a midpoint exactly (see above), and a
              // sum near zero (cancellation) has a tiny ulp: most are decided,
              // long ones nearly all (float32 sums: ~1-2 % left at 300 rows).
              EXPECT_GE(ordinary_decided * 10, ordinary * 9) << what;
              if (rows == 300 && !rows32) {
                EXPECT_GE(ordinary_decided * 100, ordinary * 99) << what;
              }
              // Float32 sums fall below RowsLostInFloat32's midpoint; only a
              // bound that counts their additions keeps it undecided (64
              // channels or more: a whole vector of words on every target;
              // the last ones take float64 sums, which decide it).
              if (rows32 && rows >= edge[3].x.size() && count >= 64) {
                EXPECT_FALSE(decided[(3 * 7 + 2) % count]) << what;
              }
            }
          }
        }
      }
    }
  }
}

// float32 rows whose float64 sum loses a term in every row: 1 + 2^-24 (the
// midpoint between 1 and its float32 successor) - 1.5 2^-46, then 253 terms
// of (1 - 2^-20) 2^-53, each under half an ulp of the sum and lost where it
// is added to it alone. Exactly the sum is 0.49 2^-46 above the midpoint
// (rounds up); the float64 sum stays 1.5 2^-46 under it. Only a bound that
// counts one addition a row keeps it undecided (with a quarter of the
// height, as a tree of four rows would have, it decides down): narrow rows
// (16 and 48 channels) and wide ones (300), the channel inside a vector and
// among the last ones.
Terms LostEveryRow() {
  const lrelu_dtype_t f32 = LRELU_DTYPE_FLOAT32;
  Terms t;
  t.Add(f32, -1.0, -1.0);
  t.Add(f32, -0x1p-12, -0x1p-12);
  t.Add(f32, -1.5 * 0x1p-23, 0x1p-23);
  while (t.x.size() < 256) t.Add(f32, -(1 - 0x1p-20) * 0x1p-27, -0x1p-26);
  return t;
}

TEST(DalphaBound, RowsBoundCountsEveryRow) {
  cpu::DefaultFloatEnv env;
  std::mt19937_64 rng(17);
  const lrelu_dtype_t f32 = LRELU_DTYPE_FLOAT32;
  const Terms lost = LostEveryRow();
  const uint64_t want = ExactDalpha(f32, lost.x, lost.dy, f32);
  ASSERT_EQ(want, 0x3f800001u);  // up: 1 + 2^-23
  for (const cpu::Target& target : cpu::RunnableTargets()) {
    for (size_t count : {16, 48, 300}) {
      for (size_t at : {size_t{3}, count - 1}) {
        for (bool streamed : {false, true}) {
          uint64_t got = 0;
          if (RowsDecideAmongNormal(target.bit, f32, lost, count, at, rng,
                                    streamed, &got)) {
            EXPECT_EQ(Hex(got, 4), Hex(want, 4))
                << Name(target.bit, f32) << " channels " << count << " at "
                << at << (streamed ? " streamed" : "");
          }
        }
      }
    }
  }
}

// The table's runs kernel summed in float32 for a 16-bit dtype; NULL for
// float32 and where the target has none.
cpu::BoundedRunsKernel Runs32(const cpu::BoundedTable& table,
                              lrelu_dtype_t dtype) {
  switch (dtype) {
    case LRELU_DTYPE_FLOAT16:
      return table.runs32[0];
    case LRELU_DTYPE_BFLOAT16:
      return table.runs32[1];
    default:
      return nullptr;
  }
}

// The runs kernels (many NCHW planes a call; float16 and bfloat16 also
// summed in float32) and the vector decision: each plane's terms padded with
// zero terms (x >= 0) to n, the planes stored in reverse order (offsets that
// are not the call's order). A sum the vector decides is the oracle's and
// RoundIfCertain's bits; ordinary sums are decided in vectors (float64
// sums); a midpoint never is.
TEST(DalphaBound, RunsDecideOnlyTheCorrectlyRoundedSums) {
  cpu::DefaultFloatEnv env;
  std::mt19937_64 rng(11);
  for (const cpu::Target& target : cpu::RunnableTargets()) {
    const cpu::BoundedTable& table = cpu::BoundedFor(target.bit);
    for (lrelu_dtype_t dtype : kDTypes) {
      std::vector<std::pair<std::string, cpu::BoundedRunsKernel>> kernels = {
          {"", table.runs[cpu::BoundedIndex(dtype, dtype)]}};
      const cpu::BoundedRunsKernel runs32 = Runs32(table, dtype);
      if (runs32 != nullptr) kernels.emplace_back(" (float32 sums)", runs32);
      for (const auto& [kernel_name, kernel] : kernels) {
        const bool sums32 = !kernel_name.empty();
        const std::string what = Name(target.bit, dtype) + kernel_name;
        const reference::Format format = reference::FormatOf(dtype);
        const size_t e = lrelu_dtype_size(dtype);
        const int emax = format.emax;
        Terms tiny, huge;
        for (int i = 0; i < 5; ++i) {
          AddPow2(dtype, &tiny, -emax - 3 - i, i % 2 ? -1 : 1);
          AddPow2(dtype, &huge, emax - i % 2, 1);
        }
        for (size_t n : {7, 16, 17, 128, 1000, 2048}) {
          // Ten planes twice and two more: the float32 sums' runs a
          // vector of lanes at a time (16, 8 or 4: LaneRunSums32, up to
          // its most terms), then groups of four (LostInFloat32 in one: a
          // run alone takes float64 sums) and two alone.
          std::vector<Terms> planes = {Normal(dtype, n, rng),
                                       Midpoint(dtype),
                                       Normal(dtype, n, rng),
                                       LostTail(dtype),
                                       Cancelled(dtype),
                                       tiny,
                                       huge,
                                       LostInFloat32(dtype),
                                       Normal(dtype, n, rng),
                                       Terms{}};
          for (size_t k = 0; k < 10; ++k) planes.push_back(planes[k]);
          planes.push_back(Normal(dtype, n, rng));
          planes.push_back(Normal(dtype, n, rng));
          std::vector<bool> fits(planes.size());
          for (size_t k = 0; k < planes.size(); ++k) {
            fits[k] = planes[k].x.size() <= n;
            if (!fits[k]) planes[k] = Normal(dtype, n, rng);
            while (planes[k].x.size() < n) planes[k].Add(dtype, 1.0, -3.0);
          }
          const size_t count = planes.size();
          std::vector<uint64_t> xb, dyb;
          std::vector<int64_t> offsets(count);
          for (size_t k = count; k-- > 0;) {
            offsets[k] = static_cast<int64_t>(xb.size());
            xb.insert(xb.end(), planes[k].x.begin(), planes[k].x.end());
            dyb.insert(dyb.end(), planes[k].dy.begin(), planes[k].dy.end());
          }
          const std::vector<unsigned char> x = StoredBits(dtype, xb),
                                           dy = StoredBits(dtype, dyb);
          std::vector<double> sums(count), abs(count);
          const int64_t height =
              kernel(x.data(), dy.data(), offsets.data(), offsets.data(), count,
                     n, sums.data(), abs.data());
          std::vector<uint64_t> bits(count), decided(count);
          table.round_sums(sums.data(), abs.data(), count, height, format,
                           bits.data(), decided.data());
          ASSERT_EQ(e * xb.size(), x.size());
          for (size_t k = 0; k < count; ++k) {
            const std::string at = what + " n " + std::to_string(n) +
                                   " plane " + std::to_string(k);
            const uint64_t want =
                ExactDalpha(dtype, planes[k].x, planes[k].dy, dtype);
            cpu::BoundedSum one;
            one.AddRun(sums[k], abs[k], height);
            uint64_t scalar = 0;
            const bool certain = cpu::RoundIfCertain(one, format, &scalar);
            if (certain) {
              EXPECT_EQ(Hex(scalar, 4), Hex(want, 4)) << at;
            }
            if (decided[k] != 0) {
              EXPECT_TRUE(certain) << at;
              EXPECT_EQ(Hex(bits[k], 4), Hex(want, 4)) << at;
            }
          }
          // Ordinary long sums: decided in vectors (float64 sums; float32's
          // leave a few percent, below). The midpoint: never.
          for (size_t k : {0, 2, 8, 10, 12, 18, 20, 21}) {
            if (n >= 1000 && !sums32) {
              EXPECT_NE(decided[k], 0u) << what << " plane " << k;
            }
          }
          for (size_t k : {0, 10}) {
            // Float32 sums fall below the midpoint; only a bound that
            // counts float32's additions keeps it undecided (float64 sums
            // decide it).
            if (fits[k + 7] && sums32) {
              EXPECT_EQ(decided[k + 7], 0u) << what << " n " << n;
            }
            if (fits[k + 1]) {
              EXPECT_EQ(decided[k + 1], 0u) << what;
            }
            // huge's sum is beyond the largest value (inf): RoundIfCertain's.
            if (fits[k + 6]) {
              EXPECT_EQ(decided[k + 6], 0u) << what;
            }
          }
        }
      }
    }
  }
}

// The float32 lanes a target's vectors hold (LaneRunSums32 takes that
// many runs a call); 0 where it has none.
size_t FloatLanes(const cpu::Target& target) {
  const std::string name = target.name;
  if (name.rfind("AVX3", 0) == 0) return 16;
  if (name == "AVX2") return 8;
  if (name == "SSE4" || name == "SSSE3") return 4;
  return 0;
}

// Runs of 2 L terms whose L lane sums are exact (lane j: m_j 2^-23, then
// 1) but whose additions across the lanes round away up to ~1.75 L 2^-24,
// more than u times the lanes' own E (~L): the float32 runs kernel's sums
// stay within u E of the exact ones only if E also counts the lane tree's
// additions. float16 puts element i in lane i % L, bfloat16 elements 2j
// and 2j + 1 in lane j (a 32-bit word's two values). The patterns m are
// the lossiest of 20000 random ones in a float32 model of the tree.
TEST(DalphaBound, Float32SumsBoundHoldsAcrossTheLaneTree) {
  cpu::DefaultFloatEnv env;
  for (const cpu::Target& target : cpu::RunnableTargets()) {
    const size_t lanes = FloatLanes(target);
    if (lanes == 0) continue;
    const std::vector<int> m =
        lanes == 16
            ? std::vector<int>{0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}
        : lanes == 8 ? std::vector<int>{1, 0, 1, 1, 1, 1, 1, 1}
                     : std::vector<int>{1, 1, 0, 1};
    for (lrelu_dtype_t dtype : {LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16}) {
      const cpu::BoundedRunsKernel kernel =
          Runs32(cpu::BoundedFor(target.bit), dtype);
      ASSERT_NE(kernel, nullptr) << target.name;
      const size_t n = 2 * lanes;
      Terms plane;
      std::vector<std::pair<double, double>> terms(n);
      for (size_t j = 0; j < lanes; ++j) {
        // x >= 0 makes a zero term; -2^-12 * -2^-11 = 2^-23.
        const std::pair<double, double> small =
            m[j] != 0 ? std::pair{-0x1p-12, -0x1p-11} : std::pair{1.0, 1.0};
        const std::pair<double, double> one{-1.0, -1.0};
        const bool half = dtype == LRELU_DTYPE_FLOAT16;
        terms[half ? j : 2 * j] = small;
        terms[half ? lanes + j : 2 * j + 1] = one;
      }
      double exact = 0;  // exact: multiples of 2^-23 below 2^5
      for (const auto& [xv, dyv] : terms) {
        plane.Add(dtype, xv, dyv);
        if (xv < 0) exact += xv * dyv;
      }
      // Two vectors' worth of runs (one at least through LaneRunSums32).
      const size_t count = 2 * lanes;
      std::vector<uint64_t> xb, dyb;
      std::vector<int64_t> offsets(count);
      for (size_t k = 0; k < count; ++k) {
        offsets[k] = static_cast<int64_t>(xb.size());
        xb.insert(xb.end(), plane.x.begin(), plane.x.end());
        dyb.insert(dyb.end(), plane.dy.begin(), plane.dy.end());
      }
      const std::vector<unsigned char> x = StoredBits(dtype, xb),
                                       dy = StoredBits(dtype, dyb);
      std::vector<double> sums(count), abs(count);
      kernel(x.data(), dy.data(), offsets.data(), offsets.data(), count, n,
             sums.data(), abs.data());
      for (size_t k = 0; k < count; ++k) {
        // u E, E's own float32 additions allowed for (2^-20 of it).
        EXPECT_LE(std::fabs(sums[k] - exact), 0x1p-24 * abs[k] * (1 + 0x1p-20))
            << Name(target.bit, dtype) << " run " << k << " sum " << sums[k]
            << " exact " << exact << " E " << abs[k];
      }
    }
  }
}

// The runs summed in float32 decide most ordinary sums in vectors: 256
// planes of 128 and of 1024 normally distributed terms (512 and 64
// channels of a 64 Ki-element NCHW tensor). bfloat16: 90 % at least
// (98-100 % seen on every target); float16, whose interval is 8x
// narrower: 85 % (93-97 % seen). Each decided sum is the oracle's.
TEST(DalphaBound, Float32SumsDecideMostOrdinarySums) {
  cpu::DefaultFloatEnv env;
  std::mt19937_64 rng(12);
  for (const cpu::Target& target : cpu::RunnableTargets()) {
    for (lrelu_dtype_t dtype : {LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16}) {
      const reference::Format format = reference::FormatOf(dtype);
      const cpu::BoundedRunsKernel kernel =
          Runs32(cpu::BoundedFor(target.bit), dtype);
      if (kernel == nullptr) continue;  // no float32 vectors
      for (size_t n : {128, 1024}) {
        constexpr size_t kPlanes = 256;
        const Terms t = Normal(dtype, kPlanes * n, rng);
        const std::vector<unsigned char> x = StoredBits(dtype, t.x),
                                         dy = StoredBits(dtype, t.dy);
        std::vector<int64_t> offsets(kPlanes);
        for (size_t k = 0; k < kPlanes; ++k) {
          offsets[k] = static_cast<int64_t>(k * n);
        }
        std::vector<double> sums(kPlanes), abs(kPlanes);
        const int64_t height =
            kernel(x.data(), dy.data(), offsets.data(), offsets.data(), kPlanes,
                   n, sums.data(), abs.data());
        std::vector<uint64_t> bits(kPlanes), decided(kPlanes);
        cpu::BoundedFor(target.bit)
            .round_sums(sums.data(), abs.data(), kPlanes, height, format,
                        bits.data(), decided.data());
        size_t count = 0;
        for (size_t k = 0; k < kPlanes; ++k) {
          if (decided[k] == 0) continue;
          ++count;
          const std::vector<uint64_t> px(t.x.begin() + k * n,
                                         t.x.begin() + (k + 1) * n),
              pdy(t.dy.begin() + k * n, t.dy.begin() + (k + 1) * n);
          ASSERT_EQ(Hex(bits[k], 4), Hex(ExactDalpha(dtype, px, pdy, dtype), 4))
              << Name(target.bit, dtype) << " n " << n << " plane " << k;
        }
        const size_t least = dtype == LRELU_DTYPE_FLOAT16 ? 85 : 90;
        EXPECT_GE(count, kPlanes * least / 100)
            << Name(target.bit, dtype) << " n " << n;
      }
    }
  }
}

// The vector decision against RoundIfCertain on sums built around each
// format's rounding points: on a value, a midpoint, a bound's width from
// either, near the least normal and the largest values, zeros, infs and
// NaNs. Where the vector decides, RoundIfCertain decides the same bits;
// where both ends lie well inside the normal range, they decide alike.
TEST(DalphaBound, VectorDecisionIsRoundIfCertains) {
  cpu::DefaultFloatEnv env;
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> unit(0, 1);
  for (const cpu::Target& target : cpu::RunnableTargets()) {
    const cpu::BoundedTable& table = cpu::BoundedFor(target.bit);
    for (lrelu_dtype_t dtype : kDTypes) {
      const std::string what = Name(target.bit, dtype);
      const reference::Format f = reference::FormatOf(dtype);
      const double least = std::ldexp(1.0, 1 - f.emax);
      const double largest =
          std::ldexp(2 - std::ldexp(1.0, 1 - f.precision), f.emax);
      for (int64_t height : {9, 300, 3000}) {
        std::vector<double> sums, abs;
        for (int i = 0; i < 4000; ++i) {
          // A value of the format, or the midpoint above it.
          const int exponent =
              static_cast<int>(unit(rng) * (2 * f.emax + 8)) - f.emax - 4;
          const double ulp = std::ldexp(1.0, exponent - f.precision + 1);
          double v = std::ldexp(1.0, exponent) +
                     std::floor(unit(rng) * 64) * ulp + (i % 2) * ulp / 2;
          if (i % 3 == 0) v = -v;
          // A distance from it of about the bound: either side.
          const double a = std::fabs(v) * std::ldexp(1.0, -(i % 40));
          const double bound = static_cast<double>(height + 2) * 0x1p-52 * a;
          const double off = (unit(rng) * 4 - 2) * bound;
          sums.push_back(v + (i % 5 == 0 ? 0 : off));
          abs.push_back(a);
        }
        for (double v : {0.0, -0.0, least, -least, largest, -largest,
                         largest * 2, std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::quiet_NaN(), 1.0}) {
          for (double a : {0.0, std::fabs(v), 1.0, 0x1p-950, 0x1p950}) {
            sums.push_back(v);
            abs.push_back(a);
          }
        }
        const size_t count = sums.size();
        std::vector<uint64_t> bits(count), decided(count);
        const size_t left =
            table.round_sums(sums.data(), abs.data(), count, height, f,
                             bits.data(), decided.data());
        // It counts what it leaves (its callers skip their loop on zero).
        EXPECT_EQ(left, static_cast<size_t>(
                            std::count(decided.begin(), decided.end(), 0u)))
            << what;
        size_t agreed = 0;
        for (size_t k = 0; k < count; ++k) {
          cpu::BoundedSum one;
          one.AddRun(sums[k], abs[k], height);
          uint64_t scalar = 0;
          const bool certain = cpu::RoundIfCertain(one, f, &scalar);
          const std::string at = what + " sum " + std::to_string(sums[k]) +
                                 " abs " + std::to_string(abs[k]);
          if (decided[k] != 0) {
            ASSERT_TRUE(certain) << at;
            ASSERT_EQ(Hex(bits[k], 4), Hex(scalar, 4)) << at;
          }
          const double m = std::fabs(sums[k]);
          if (m >= 4 * least && m <= largest / 4 && abs[k] <= 8 * m &&
              abs[k] >= 0x1p-900) {
            EXPECT_EQ(decided[k] != 0, certain) << at;
            agreed += certain ? 1 : 0;
          }
        }
        // Both kinds occur: decided sums and undecided ones.
        EXPECT_GT(agreed, count / 8) << what;
        EXPECT_LT(agreed, count) << what;
      }
    }
  }
}

// RoundPairsKernel (float64 dalpha's decision in vectors) decides exactly
// what RoundIfCertain decides, with its bits, on every target: sums near
// float64 values and midpoints at about the bound's distance (either
// side), heights and runs from one to past the bound's limits, and the
// edges (zero, subnormal, largest, inf, NaN, magnitudes out of range).
TEST(DalphaBound, PairVectorDecisionIsRoundIfCertains) {
  cpu::DefaultFloatEnv env;
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(0, 1);
  const reference::Format f = reference::FormatOf(LRELU_DTYPE_FLOAT64);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<cpu::BoundedSum> sums;
  const int64_t kHeights[] = {1, 40, 3000, (int64_t{1} << 20) + 1};
  const int64_t kRuns[] = {1, 7, 100000, (int64_t{1} << 26) + 1};
  for (int i = 0; i < 6000; ++i) {
    cpu::BoundedSum s;
    s.height = kHeights[i % 4];
    s.runs = kRuns[(i / 4) % 4];
    // hi: a float64 near 1 scaled; lo: the midpoint's distance (half its
    // ulp) or a value's (0) with an offset of about the bound.
    const int exponent = static_cast<int>(unit(rng) * 1800) - 900;
    const double hi =
        std::ldexp(1 + std::floor(unit(rng) * 64) * 0x1p-52, exponent) *
        (i % 3 == 0 ? -1 : 1);
    const double half_ulp = std::ldexp(1.0, exponent - 53);
    s.abs = std::fabs(hi) * std::ldexp(1.0, static_cast<int>(i % 50));
    const double bound = cpu::PairBound(s);
    const double off = std::isnan(bound) ? 0 : (unit(rng) * 4 - 2) * bound;
    s.sum = hi;
    s.error = ((i % 2) * half_ulp + off) * (i % 7 == 0 ? -1 : 1);
    sums.push_back(s);
  }
  for (double v : {0.0, -0.0, 0x1p-1074, -0x1p-1060, 0x1p1023 * 1.5, -inf, inf,
                   std::numeric_limits<double>::quiet_NaN(), 1.0}) {
    for (double a : {0.0, std::fabs(v), 1.0, 0x1p-950, 0x1p950}) {
      cpu::BoundedSum s;
      s.sum = v;
      s.abs = a;
      s.height = 5;
      s.runs = 1;
      sums.push_back(s);
    }
  }
  for (const cpu::Target& target : cpu::RunnableTargets()) {
    const cpu::BoundedTable& table = cpu::BoundedFor(target.bit);
    const size_t count = sums.size();
    std::vector<uint64_t> bits(count, 0), decided(count);
    const size_t left =
        table.round_pairs(sums.data(), count, bits.data(), decided.data());
    EXPECT_EQ(left, static_cast<size_t>(
                        std::count(decided.begin(), decided.end(), 0u)))
        << target.name;
    size_t certain_count = 0;
    for (size_t k = 0; k < count; ++k) {
      uint64_t scalar = 0;
      const bool certain = cpu::RoundIfCertain(sums[k], f, &scalar);
      certain_count += certain ? 1 : 0;
      uint64_t sum_bits = 0;
      std::memcpy(&sum_bits, &sums[k].sum, sizeof(sum_bits));
      const std::string at =
          std::string(target.name) + " sum " + Hex(sum_bits, 8) + " error " +
          std::to_string(sums[k].error) + " abs " + std::to_string(sums[k].abs);
      ASSERT_EQ(decided[k] != 0, certain) << at;
      if (certain) {
        ASSERT_EQ(Hex(bits[k], 8), Hex(scalar, 8)) << at;
      }
    }
    // Both kinds occur: decided sums and undecided ones.
    EXPECT_GT(certain_count, count / 8) << target.name;
    EXPECT_LT(certain_count, count - count / 8) << target.name;
  }
}

// Through the public call, NCHW (runs) and NHWC (rows), on every target
// and 1, 2, 3, 7 threads: channels on and next to midpoints take the
// exact path, the others the bounded one, all with the oracle's bits
// (bfloat16's LostInFloat32 channel: float32 sums, undecided, then float64
// sums that decide it).
// Terms below float32's range, where the kernels' float32 products
// (bfloat16) or magnitudes (float32's wide rows) lose what decides the
// result; only CertainMagnitude's float64 pass gets these right.
// - Rounded: 2^-134 (bfloat16's midpoint between 0 and its least
//   subnormal) - 2^-150 (1 + 2^-7) + 2 * 2^-151 (2 - 2^-7): exactly just
//   above the midpoint (rounds up), but float32 products give 2^-134 -
//   2^-149, below it.
// - SignedZero: 2^-151 - 2^-210 - 2^-151: exactly -2^-210, which rounds
//   to -0; float64 loses the -2^-210 and float32 every magnitude, so the
//   sum and the magnitude are both +0.
Terms Rounded(lrelu_dtype_t dtype) {
  Terms t;
  t.Add(dtype, -0x1p-67, -0x1p-67);
  t.Add(dtype, -0x1p-75 * (1 + 0x1p-7), 0x1p-75);
  for (int i = 0; i < 2; ++i) t.Add(dtype, -0x1p-76 * (2 - 0x1p-7), -0x1p-75);
  return t;
}
Terms SignedZero(lrelu_dtype_t dtype) {
  Terms t;
  t.Add(dtype, -0x1p-75, -0x1p-76);
  t.Add(dtype, -0x1p-105, 0x1p-105);
  t.Add(dtype, -0x1p-75, 0x1p-76);
  return t;
}

TEST(DalphaBound, TinyTermsTakeFloat64) {
  cpu::DefaultFloatEnv env;
  std::mt19937_64 rng(7);
  for (const cpu::Target& target : cpu::RunnableTargets()) {
    // float16 has no such values (its products are at least 2^-48).
    for (lrelu_dtype_t dtype : {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_BFLOAT16}) {
      const std::string what = Name(target.bit, dtype);
      for (const Terms& t : {Rounded(dtype), SignedZero(dtype)}) {
        const uint64_t want = ExactDalpha(dtype, t.x, t.dy, dtype);
        uint64_t bits = 0;
        if (RunDecides(target.bit, dtype, t, &bits)) {
          EXPECT_EQ(Hex(bits, 4), Hex(want, 4)) << what << " run";
        }
        // 300 channels: wide float32 rows; a vector's lane and the
        // last few channels' (float64 terms, float32 magnitudes).
        for (size_t at : {5, 298}) {
          for (bool streamed : {false, true}) {
            uint64_t got = 0;
            if (RowsDecideAmongNormal(target.bit, dtype, t, 300, at, rng,
                                      streamed, &got)) {
              EXPECT_EQ(Hex(got, 4), Hex(want, 4))
                  << what << " rows, channel " << at
                  << (streamed ? " streamed" : "");
            }
          }
        }
      }
    }
  }
}

// float64 dalpha's pair kernels (double-double sums), for float64 x and
// for 32/16-bit x with a float64 alpha.
// - PairTail: 1 + 2^-53 + 2^-80, just above the midpoint between 1 and
//   its float64 successor; plain float64 sums give 1.
// - Residual: (1 + 2^-30)^2 - 2^-29 + 2^-53 (1 - 2^-8) = 1 + 2^-53 +
//   2^-61, above the midpoint, but below it (and rounded down) without
//   the products' TwoProduct residual 2^-60.
// 1 + 2^-53: the midpoint itself, never decided.
Terms PairMidpoint(lrelu_dtype_t dtype) {
  Terms t;
  t.Add(dtype, -1.0, -1.0);
  t.Add(dtype, -0x1p-26, -0x1p-27);
  return t;
}
Terms PairTail(lrelu_dtype_t dtype) {
  Terms t;
  t.Add(dtype, -1.0, -1.0);
  t.Add(dtype, -0x1p-26, -0x1p-27);
  t.Add(dtype, -0x1p-40, -0x1p-40);
  return t;
}
Terms Residual() {
  const lrelu_dtype_t f64 = LRELU_DTYPE_FLOAT64;
  Terms t;
  t.Add(f64, -(1 + 0x1p-30), -(1 + 0x1p-30));
  t.Add(f64, -0x1p-29, 1.0);
  t.Add(f64, -0x1p-53 * (1 - 0x1p-8), -1.0);
  return t;
}

TEST(DalphaBound, PairSumsDecideOnlyTheCorrectlyRoundedSum) {
  cpu::DefaultFloatEnv env;
  std::mt19937_64 rng(9);
  const lrelu_dtype_t f64 = LRELU_DTYPE_FLOAT64;
  for (const cpu::Target& target : cpu::RunnableTargets()) {
    for (lrelu_dtype_t dtype :
         {f64, LRELU_DTYPE_FLOAT32, LRELU_DTYPE_BFLOAT16}) {
      const std::string what = Name(target.bit, dtype) + " (float64 dalpha)";
      if (cpu::BoundedFor(target.bit).run[cpu::BoundedIndex(dtype, f64)] ==
          nullptr) {
        continue;  // no fused multiply-add: the exact paths
      }
      uint64_t bits = 0;
      for (size_t n : {1, 3, 8, 9, 17, 1000, 2048, 5000}) {
        const Terms t = Normal(dtype, n, rng);
        const uint64_t want = ExactDalpha(dtype, t.x, t.dy, f64);
        const bool decided =
            RunDecides(target.bit, dtype, t, &bits, cpu::kBoundedRun, true);
        // float32-valued data can sum to a float64 tie exactly; only zero
        // terms (want +0) go to the exact paths too.
        ASSERT_TRUE(decided || dtype != f64 || want == 0) << what << " n " << n;
        if (decided) {
          ASSERT_EQ(Hex(bits, 8), Hex(want, 8)) << what << " n " << n;
        }
      }
      EXPECT_FALSE(RunDecides(target.bit, dtype, PairMidpoint(dtype), &bits,
                              cpu::kBoundedRun, true))
          << what << " midpoint";
      std::vector<Terms> cases = {PairTail(dtype)};
      if (dtype == f64) cases.push_back(Residual());
      for (const Terms& t : cases) {
        const uint64_t want = ExactDalpha(dtype, t.x, t.dy, f64);
        ASSERT_TRUE(
            RunDecides(target.bit, dtype, t, &bits, cpu::kBoundedRun, true))
            << what;
        EXPECT_EQ(Hex(bits, 8), Hex(want, 8)) << what;
        ASSERT_TRUE(RunDecides(target.bit, dtype, t, &bits, 1, true)) << what;
        EXPECT_EQ(Hex(bits, 8), Hex(want, 8)) << what << " one term a run";
        // The rows kernels: the case in a lane and in the last channels.
        for (size_t count : {16, 37, 600}) {
          std::vector<Terms> channels;
          for (size_t c = 0; c < count; ++c) {
            channels.push_back(Normal(dtype, t.x.size(), rng));
          }
          channels[3] = channels[count - 1] = t;
          std::vector<bool> decided;
          const std::vector<uint64_t> got = RowsDecide(
              target.bit, dtype, channels, t.x.size(), &decided, true);
          for (size_t c : {size_t{3}, count - 1}) {
            ASSERT_TRUE(decided[c]) << what << " rows " << count;
            EXPECT_EQ(Hex(got[c], 8), Hex(want, 8))
                << what << " rows " << count;
          }
        }
      }
      // The runs kernel (many runs a call: four side by side, then one by
      // one), each plane padded with zero terms, planes stored in reverse.
      for (size_t n : {3, 9, 128, 2048}) {
        std::vector<Terms> planes = {
            Normal(dtype, n, rng), PairTail(dtype),
            PairMidpoint(dtype),   dtype == f64 ? Residual() : PairTail(dtype),
            Normal(dtype, n, rng), PairTail(dtype)};
        for (Terms& t : planes) {
          while (t.x.size() < n) t.Add(dtype, 1.0, -3.0);
        }
        std::vector<uint64_t> xb, dyb;
        std::vector<int64_t> offsets(planes.size());
        for (size_t k = planes.size(); k-- > 0;) {
          offsets[k] = static_cast<int64_t>(xb.size());
          xb.insert(xb.end(), planes[k].x.begin(), planes[k].x.end());
          dyb.insert(dyb.end(), planes[k].dy.begin(), planes[k].dy.end());
        }
        const std::vector<unsigned char> x = StoredBits(dtype, xb),
                                         dy = StoredBits(dtype, dyb);
        std::vector<cpu::BoundedSum> sums(planes.size());
        cpu::BoundedFor(target.bit)
            .pair_runs[cpu::BoundedIndex(dtype, f64) - 3](
                x.data(), dy.data(), offsets.data(), offsets.data(),
                planes.size(), n, sums.data());
        for (size_t k = 0; k < planes.size(); ++k) {
          const std::string at = what + " runs n " + std::to_string(n) +
                                 " plane " + std::to_string(k);
          const uint64_t want =
              ExactDalpha(dtype, planes[k].x, planes[k].dy, f64);
          const bool decided =
              cpu::RoundIfCertain(sums[k], reference::FormatOf(f64), &bits);
          if (k == 2) {
            EXPECT_FALSE(decided) << at;  // the midpoint
          } else if (k != 0 && k != 4) {
            ASSERT_TRUE(decided) << at;  // the tails and the residual
          }
          if (decided) {
            EXPECT_EQ(Hex(bits, 8), Hex(want, 8)) << at;
          }
        }
      }
      for (size_t count : {16, 19, 300}) {  // narrow and wide rows
        for (size_t rows : {1, 39, 300}) {
          std::vector<Terms> channels;
          for (size_t c = 0; c < count; ++c) {
            channels.push_back(Normal(dtype, rows, rng));
          }
          // Four rows a step, the last rows (39 = 4 * 9 + 3) one at a time.
          std::vector<bool> decided;
          const std::vector<uint64_t> got =
              RowsDecide(target.bit, dtype, channels, rows, &decided, true);
          const std::string at = what + " channels " + std::to_string(count) +
                                 " rows " + std::to_string(rows);
          for (size_t c = 0; c < count; ++c) {
            const uint64_t want =
                ExactDalpha(dtype, channels[c].x, channels[c].dy, f64);
            ASSERT_TRUE(decided[c] || dtype != f64 ||
                        want == 0)  // all x >= 0: the exact paths
                << at;
            if (decided[c]) {
              ASSERT_EQ(Hex(got[c], 8), Hex(want, 8)) << at;
            }
          }
        }
      }
    }
  }
}

// lrelu_prelu_backward's dalpha (alpha of adtype, shape ashape) on every
// target and 1, 2, 3, 7 threads against want, channel by channel; `what`
// names the case.
void ExpectDalphaEverywhere(const lrelu_tensor_t& dy, const lrelu_tensor_t& x,
                            const lrelu_tensor_t& alpha,
                            const std::vector<uint64_t>& want,
                            const std::string& what) {
  const size_t bytes = want.size() * lrelu_dtype_size(alpha.dtype);
  for (size_t t = 0; t < lrelu_cpu_target_count(); ++t) {
    for (size_t threads : {1, 2, 3, 7}) {
      std::vector<unsigned char> dalpha(bytes);
      lrelu_tensor_t da = alpha;
      da.data = dalpha.data();
      lrelu_options_t o;
      lrelu_options_init(&o);
      o.cpu_target = lrelu_cpu_target_name(t);
      o.threads = threads;
      ASSERT_EQ(lrelu_prelu_backward(&dy, &x, &alpha, nullptr, &da, &o),
                LRELU_STATUS_OK)
          << lrelu_last_error();
      for (size_t c = 0; c < want.size(); ++c) {
        ASSERT_EQ(Hex(reference::LoadBits(alpha.dtype, dalpha.data(), c), 8),
                  Hex(want[c], 8))
            << what << ", " << o.cpu_target << " threads " << threads
            << " channel " << c;
      }
    }
  }
}

TEST(DalphaBound, PublicCallOnBothPaths) {
  std::mt19937_64 rng(8);
  // x's dtype and alpha's (float64: the pair kernels).
  const lrelu_dtype_t f64 = LRELU_DTYPE_FLOAT64;
  const std::pair<lrelu_dtype_t, lrelu_dtype_t> kCases[] = {
      {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT32},
      {LRELU_DTYPE_FLOAT16, LRELU_DTYPE_FLOAT16},
      {LRELU_DTYPE_BFLOAT16, LRELU_DTYPE_BFLOAT16},
      {f64, f64},
      {LRELU_DTYPE_FLOAT32, f64},
      {LRELU_DTYPE_BFLOAT16, f64}};
  for (const auto& [dtype, adtype] : kCases) {
    // The edge channels once (NHWC: few enough undecided channels to be
    // summed on their own) or twice (the exact pass over all).
    for (size_t spread : {1, 2}) {
      // NCHW as [batch, C, 4096 / batch] (batch 1: runs longer than
      // kBoundedRun, in chunks side by side; 4 and 64: the runs kernel,
      // row by row),
      // then NHWC.
      for (size_t batch : {1, 4, 64, 0}) {
        const bool nhwc = batch == 0;
        const size_t channels = 24, per_channel = 4096;
        const size_t b = nhwc ? 1 : batch, run = per_channel / b;
        std::vector<Terms> terms;
        for (size_t c = 0; c < channels; ++c) {
          terms.push_back(Normal(dtype, per_channel, rng));
        }
        const Terms edge[] = {Midpoint(dtype), LostTail(dtype),
                              Cancelled(dtype), LostInFloat32(dtype)};
        for (size_t k = 0; k < 4 * spread; ++k) {
          for (size_t i = 0; i < per_channel; ++i) {
            const bool in = i < edge[k % 4].x.size();
            terms[k * 3].x[i] = in ? edge[k % 4].x[i] : 0;
            terms[k * 3].dy[i] = in ? edge[k % 4].dy[i] : 0;
          }
        }
        std::vector<uint64_t> xb(channels * per_channel), dyb(xb.size());
        for (size_t c = 0; c < channels; ++c) {
          for (size_t i = 0; i < per_channel; ++i) {
            const size_t at = nhwc ? i * channels + c
                                   : (i / run * channels + c) * run + i % run;
            xb[at] = terms[c].x[i];
            dyb[at] = terms[c].dy[i];
          }
        }
        std::vector<unsigned char> x = StoredBits(dtype, xb),
                                   dy = StoredBits(dtype, dyb);
        std::vector<unsigned char> alpha(channels * lrelu_dtype_size(adtype));
        std::vector<int64_t> xshape =
            nhwc ? std::vector<int64_t>{static_cast<int64_t>(per_channel),
                                        static_cast<int64_t>(channels)}
                 : std::vector<int64_t>{static_cast<int64_t>(b),
                                        static_cast<int64_t>(channels),
                                        static_cast<int64_t>(run)};
        std::vector<int64_t> ashape =
            nhwc ? std::vector<int64_t>{static_cast<int64_t>(channels)}
                 : std::vector<int64_t>{static_cast<int64_t>(channels), 1};
        const auto rank = static_cast<int32_t>(xshape.size());
        const lrelu_tensor_t tx{x.data(), dtype, rank, xshape.data(), nullptr};
        const lrelu_tensor_t tdy{dy.data(), dtype, rank, xshape.data(),
                                 nullptr};
        const lrelu_tensor_t ta{alpha.data(), adtype,
                                static_cast<int32_t>(ashape.size()),
                                ashape.data(), nullptr};
        std::vector<uint64_t> want(channels);
        for (size_t c = 0; c < channels; ++c) {
          want[c] = ExactDalpha(dtype, terms[c].x, terms[c].dy, adtype);
        }
        ExpectDalphaEverywhere(
            tdy, tx, ta, want,
            std::string(lrelu_dtype_name(dtype)) + " alpha " +
                lrelu_dtype_name(adtype) + " spread " + std::to_string(spread) +
                (nhwc ? " NHWC " : " NCHW batch ") + std::to_string(b));
      }
    }
  }
}

// t's terms followed by zero terms up to `rows`.
Terms Padded(Terms t, size_t rows) {
  t.x.resize(rows, 0);
  t.dy.resize(rows, 0);
  return t;
}

// Each channel's `rows` terms stored as NHWC rows (row r holds every
// channel's term r) in dtype: *x and *dy.
void StoreRows(lrelu_dtype_t dtype, const std::vector<Terms>& terms,
               size_t rows, std::vector<unsigned char>* x,
               std::vector<unsigned char>* dy) {
  const size_t channels = terms.size();
  std::vector<uint64_t> xb(rows * channels), dyb(xb.size());
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < channels; ++c) {
      xb[r * channels + c] = terms[c].x[r];
      dyb[r * channels + c] = terms[c].dy[r];
    }
  }
  *x = StoredBits(dtype, xb);
  *dy = StoredBits(dtype, dyb);
}

// NHWC calls whose rows take one rows kernel call on one thread (at most
// 256 rows, merged into one stride: prelu_dalpha.cc's OneRowsCall, the
// vector decision straight from the kernel's block): narrow and wide rows,
// one row (no row stride), and edge channels that the bound leaves
// undecided, few (each summed on its own) or many (the exact pass), the
// oracle's bits on every target and thread count.
TEST(DalphaBound, PublicCallOneRowsCall) {
  std::mt19937_64 rng(21);
  const std::pair<lrelu_dtype_t, lrelu_dtype_t> kCases[] = {
      {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT32},
      {LRELU_DTYPE_FLOAT16, LRELU_DTYPE_FLOAT16},
      {LRELU_DTYPE_BFLOAT16, LRELU_DTYPE_BFLOAT16},
      {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT64}};
  for (const auto& [dtype, adtype] : kCases) {
    for (size_t rows : {1, 200, 256}) {
      for (size_t channels : {24, 520}) {
        for (size_t edges : {0, 4, 12}) {
          if (rows == 1 && edges != 0) continue;  // edge terms take rows
          std::vector<Terms> terms;
          for (size_t c = 0; c < channels; ++c) {
            terms.push_back(Normal(dtype, rows, rng));
          }
          const Terms edge[] = {Midpoint(dtype), LostTail(dtype),
                                Cancelled(dtype), LostInFloat32(dtype)};
          for (size_t k = 0; k < edges; ++k) {
            terms[k * 2 + 1] = Padded(edge[k % 4], rows);
          }
          std::vector<unsigned char> x, dy;
          StoreRows(dtype, terms, rows, &x, &dy);
          std::vector<unsigned char> alpha(channels * lrelu_dtype_size(adtype));
          // [1, rows, channels]: the unit axis merges away.
          const std::vector<int64_t> xshape = {1, static_cast<int64_t>(rows),
                                               static_cast<int64_t>(channels)};
          const std::vector<int64_t> ashape = {static_cast<int64_t>(channels)};
          const lrelu_tensor_t tx{x.data(), dtype, 3, xshape.data(), nullptr};
          const lrelu_tensor_t tdy{dy.data(), dtype, 3, xshape.data(), nullptr};
          const lrelu_tensor_t ta{alpha.data(), adtype, 1, ashape.data(),
                                  nullptr};
          std::vector<uint64_t> want(channels);
          for (size_t c = 0; c < channels; ++c) {
            want[c] = ExactDalpha(dtype, terms[c].x, terms[c].dy, adtype);
          }
          ExpectDalphaEverywhere(tdy, tx, ta, want,
                                 std::string(lrelu_dtype_name(dtype)) +
                                     " alpha " + lrelu_dtype_name(adtype) +
                                     " rows " + std::to_string(rows) +
                                     " channels " + std::to_string(channels) +
                                     " edges " + std::to_string(edges));
        }
      }
    }
  }
}

// Planes longer than kBoundedRun go through the runs kernels in chunks
// (four or more a plane, side by side, at most 64 a kernel call; a
// shorter last chunk alone): planes of 2049, 5000, 9000 and 140000 (68
// chunks and a rest) elements, normally distributed or on and near
// midpoints, every target and thread count, the oracle's bits
// (float16 planes of 4 Ki or less and bfloat16 ones: float32 sums, then
// float64 where they do not decide).
TEST(DalphaBound, PublicCallLongPlanes) {
  std::mt19937_64 rng(14);
  for (lrelu_dtype_t dtype : kDTypes) {
    for (size_t plane : {2049, 5000, 9000, 140000}) {
      const size_t channels = 5;
      std::vector<Terms> terms;
      for (size_t c = 0; c < channels; ++c) {
        terms.push_back(Normal(dtype, plane, rng));
      }
      const Terms edge[] = {LostInFloat32(dtype), Midpoint(dtype),
                            LostTail(dtype)};
      for (size_t k = 0; k < 3; ++k) {
        for (size_t i = 0; i < plane; ++i) {
          // At the plane's end: in its last chunk.
          const size_t from = plane - edge[k].x.size();
          const bool in = i >= from;
          terms[k + 1].x[i] = in ? edge[k].x[i - from] : 0;
          terms[k + 1].dy[i] = in ? edge[k].dy[i - from] : 0;
        }
      }
      std::vector<uint64_t> xb, dyb, want;
      for (const Terms& t : terms) {
        xb.insert(xb.end(), t.x.begin(), t.x.end());
        dyb.insert(dyb.end(), t.dy.begin(), t.dy.end());
        want.push_back(ExactDalpha(dtype, t.x, t.dy, dtype));
      }
      std::vector<unsigned char> x = StoredBits(dtype, xb),
                                 dy = StoredBits(dtype, dyb);
      std::vector<unsigned char> alpha(channels * lrelu_dtype_size(dtype));
      const std::vector<int64_t> xshape = {static_cast<int64_t>(channels),
                                           static_cast<int64_t>(plane)};
      const std::vector<int64_t> ashape = {static_cast<int64_t>(channels), 1};
      const lrelu_tensor_t tx{x.data(), dtype, 2, xshape.data(), nullptr};
      const lrelu_tensor_t tdy{dy.data(), dtype, 2, xshape.data(), nullptr};
      const lrelu_tensor_t ta{alpha.data(), dtype, 2, ashape.data(), nullptr};
      ExpectDalphaEverywhere(tdy, tx, ta, want,
                             std::string(lrelu_dtype_name(dtype)) + " plane " +
                                 std::to_string(plane));
    }
  }
}

// One alpha element (shape [1]) over large tensors, summed on many
// threads (its chunks split among the tasks, their sums merged): dense
// x of 300000 elements and a strided one (5 rows of 70001 elements, 99
// apart), normally distributed terms, a midpoint and a lost tail spread
// over the tensor (the exact path after the threads' bound), every target
// and 1, 2, 3, 7 threads, the oracle's bits.
TEST(DalphaBound, PublicCallOneAlphaElement) {
  std::mt19937_64 rng(15);
  for (lrelu_dtype_t dtype : kDTypes) {
    for (bool strided : {false, true}) {
      const int64_t rows = strided ? 5 : 1, length = strided ? 70001 : 300000;
      const int64_t pitch = strided ? length + 99 : length;
      const auto n = static_cast<size_t>(rows * length);
      std::vector<Terms> cases = {Normal(dtype, n, rng)};
      for (const Terms& edge : {Midpoint(dtype), LostTail(dtype)}) {
        Terms t;
        t.x.assign(n, 0);
        t.dy.assign(n, 0);
        for (size_t i = 0; i < edge.x.size(); ++i) {
          t.x[i * (n / edge.x.size())] = edge.x[i];
          t.dy[i * (n / edge.x.size())] = edge.dy[i];
        }
        cases.push_back(t);
      }
      for (size_t k = 0; k < cases.size(); ++k) {
        const Terms& t = cases[k];
        std::vector<uint64_t> xb(static_cast<size_t>(rows * pitch), 0),
            dyb(xb.size(), 0);
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t i = 0; i < length; ++i) {
            xb[static_cast<size_t>(r * pitch + i)] =
                t.x[static_cast<size_t>(r * length + i)];
            dyb[static_cast<size_t>(r * pitch + i)] =
                t.dy[static_cast<size_t>(r * length + i)];
          }
        }
        // The gaps: values the view leaves out (a wrong stride sums them).
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t i = length; i < pitch; ++i) {
            xb[static_cast<size_t>(r * pitch + i)] = BitsOf(dtype, -1.0);
            dyb[static_cast<size_t>(r * pitch + i)] = BitsOf(dtype, 1.0);
          }
        }
        std::vector<unsigned char> x = StoredBits(dtype, xb),
                                   dy = StoredBits(dtype, dyb);
        std::vector<unsigned char> alpha(lrelu_dtype_size(dtype));
        const std::vector<int64_t> xshape = {rows, length};
        const std::vector<int64_t> xstrides = {pitch, 1};
        const std::vector<int64_t> ashape = {1};
        const lrelu_tensor_t tx{x.data(), dtype, 2, xshape.data(),
                                xstrides.data()};
        const lrelu_tensor_t tdy{dy.data(), dtype, 2, xshape.data(),
                                 xstrides.data()};
        const lrelu_tensor_t ta{alpha.data(), dtype, 1, ashape.data(), nullptr};
        ExpectDalphaEverywhere(tdy, tx, ta,
                               {ExactDalpha(dtype, t.x, t.dy, dtype)},
                               std::string(lrelu_dtype_name(dtype)) +
                                   (strided ? " strided" : " dense") +
                                   " case " + std::to_string(k));
      }
    }
  }
}

// A few alpha elements (3 and 5 channels of [2, C, L]) on more threads
// than whole elements split evenly: every element's chunks share the
// tasks (SumFewElements). Normal terms, with a midpoint and a lost tail in
// the second channel; every target and 1, 2, 3, 7 threads; a chunk summed
// into the wrong element or dropped fails it.
TEST(DalphaBound, PublicCallFewAlphaElements) {
  std::mt19937_64 rng(16);
  for (lrelu_dtype_t dtype : kDTypes) {
    for (int64_t channels : {int64_t{3}, int64_t{5}}) {
      const int64_t batch = 2, length = 40001;
      const auto plane = static_cast<size_t>(length);
      const size_t n = static_cast<size_t>(batch * channels) * plane;
      Terms t = Normal(dtype, n, rng);
      for (const Terms& edge : {Midpoint(dtype), LostTail(dtype)}) {
        for (size_t i = 0; i < edge.x.size(); ++i) {  // channel 1, image 1
          const size_t at = (static_cast<size_t>(channels) + 1) * plane +
                            i * (plane / edge.x.size());
          t.x[at] = edge.x[i];
          t.dy[at] = edge.dy[i];
        }
      }
      std::vector<uint64_t> want;
      for (int64_t c = 0; c < channels; ++c) {
        Terms ct;
        for (int64_t b = 0; b < batch; ++b) {
          const size_t first = static_cast<size_t>(b * channels + c) * plane;
          ct.x.insert(ct.x.end(), t.x.begin() + first,
                      t.x.begin() + first + plane);
          ct.dy.insert(ct.dy.end(), t.dy.begin() + first,
                       t.dy.begin() + first + plane);
        }
        want.push_back(ExactDalpha(dtype, ct.x, ct.dy, dtype));
      }
      std::vector<unsigned char> x = StoredBits(dtype, t.x),
                                 dy = StoredBits(dtype, t.dy);
      std::vector<unsigned char> alpha(static_cast<size_t>(channels) *
                                       lrelu_dtype_size(dtype));
      const std::vector<int64_t> xshape = {batch, channels, length};
      const std::vector<int64_t> ashape = {channels, 1};
      const lrelu_tensor_t tx{x.data(), dtype, 3, xshape.data(), nullptr};
      const lrelu_tensor_t tdy{dy.data(), dtype, 3, xshape.data(), nullptr};
      const lrelu_tensor_t ta{alpha.data(), dtype, 2, ashape.data(), nullptr};
      ExpectDalphaEverywhere(tdy, tx, ta, want,
                             std::string(lrelu_dtype_name(dtype)) + " C " +
                                 std::to_string(channels));
    }
  }
}

// bfloat16 NHWC through the public call where its rows are summed in
// float32 (64 channels or more, at most 256 rows, or up to 4096 where x and
// dy fit half the L2: 1000 rows, several rows kernel calls a channel):
// every target and 1, 2, 3, 7 threads give the oracle's bits, with
// channels that the float32 sums leave undecided and a float64 bounded sum
// decides (RowsLostInFloat32, and ordinary ones), and channels on a
// midpoint (the exact path).
TEST(DalphaBound, PublicCallFloat32Rows) {
  std::mt19937_64 rng(13);
  const lrelu_dtype_t dtype = LRELU_DTYPE_BFLOAT16;
  for (const auto& [channels, rows] : {std::pair<size_t, size_t>{64, 200},
                                       {200, 200},
                                       {64, 1000},
                                       {200, 1000}}) {
    std::vector<Terms> terms;
    for (size_t c = 0; c < channels; ++c) {
      terms.push_back(Normal(dtype, rows, rng));
    }
    const Terms edge[] = {RowsLostInFloat32(dtype), Midpoint(dtype),
                          RowsLostInFloat32(dtype), Cancelled(dtype)};
    const size_t at[] = {5, 17, channels - 1, 40};
    for (size_t k = 0; k < 4; ++k) terms[at[k]] = Padded(edge[k], rows);
    std::vector<unsigned char> x, dy;
    StoreRows(dtype, terms, rows, &x, &dy);
    std::vector<unsigned char> alpha(channels * 2);
    const std::vector<int64_t> xshape = {static_cast<int64_t>(rows),
                                         static_cast<int64_t>(channels)};
    const std::vector<int64_t> ashape = {static_cast<int64_t>(channels)};
    const lrelu_tensor_t tx{x.data(), dtype, 2, xshape.data(), nullptr};
    const lrelu_tensor_t tdy{dy.data(), dtype, 2, xshape.data(), nullptr};
    const lrelu_tensor_t ta{alpha.data(), dtype, 1, ashape.data(), nullptr};
    std::vector<uint64_t> want(channels);
    for (size_t c = 0; c < channels; ++c) {
      want[c] = ExactDalpha(dtype, terms[c].x, terms[c].dy, dtype);
    }
    ExpectDalphaEverywhere(tdy, tx, ta, want,
                           std::to_string(channels) + " channels, " +
                               std::to_string(rows) + " rows");
  }
}

}  // namespace
}  // namespace lrelu::testing
