// PReLU's dalpha, tried before the exact paths (prelu_dalpha.h): the terms
// x * dy (x < 0) summed in plain float64 with a rigorous bound on the
// error. Where every value within the bound of the computed sum rounds to
// the same value of dalpha's dtype, that value is the correctly rounded
// exact sum, whatever order the additions took (rounding is monotone);
// otherwise (a sum near a rounding boundary, heavy cancellation, inf/NaN
// terms) the caller sums exactly. Two float64 additions per term, against
// the exact levels' three per level and term.
//
// The bound. Each term is exact in float64 (x and dy are 32/16-bit
// values). A sum whose terms each pass through at most h additions is
// within gamma_h * A of the exact sum, A = sum of |term|, gamma_h = h*u /
// (1 - h*u), u = 2^-53 (Higham, Accuracy and Stability of Numerical
// Algorithms, section 4.2; an addition whose result is subnormal is exact,
// so underflow does not weaken it). The kernels sum |term| along the same
// tree, so the computed A is at least (1 - gamma) times the exact one
// (the 16-bit kernels and float32's wide rows sum the magnitudes in
// float32: within 2^-15 of the exact A over a run, which the margin of
// RoundIfCertain takes, or else the run goes again in float64; see
// CertainMagnitude in prelu_dalpha_bound.cc).
// Runs are short (at most kBoundedRun terms, or a few hundred rows) and
// their sums are added without error, so h stays near 100-300 and the bound
// near 2^-45 A (2^-44 A for the 16-bit formats' rows): a float32 dalpha of
// 2^18 normally distributed terms is decided ~99.9 % of the time.
//
// float64 dalpha (any x) takes the pair kernels instead: double-double
// sums per lane (Dot2: TwoProduct, TwoSum and a compensation), within
// about h^2 u^2 A of the exact sum (RoundIfCertain in
// prelu_dalpha_bound.cc), which resolves float64's ulp.
#ifndef LRELU_SRC_CPU_PRELU_DALPHA_BOUND_H_
#define LRELU_SRC_CPU_PRELU_DALPHA_BOUND_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "cpu/prelu_dalpha_ulp.h"  // FormatIndex
#include "reference/exact_sum.h"

namespace lrelu::cpu {

// A float64 sum of terms, run by run, with what its error bound needs.
// The run sums are added without error (TwoSum: `sum + error` is their
// exact total up to the rounding of `error`, below u * A for up to 2^26
// runs), so the bound grows with the height inside a run only.
struct BoundedSum {
  double sum = 0;      // the run sums, rounded
  double error = 0;    // what rounding `sum` lost
  double abs = 0;      // the terms' magnitudes, rounded
  int64_t height = 0;  // additions a term passed through inside its run
  int64_t runs = 0;    // run sums added

  // Adds a run's sum and magnitude; its terms passed through at most
  // `run_height` additions.
  void AddRun(double run_sum, double run_abs, int64_t run_height) {
    const double t = sum + run_sum;
    const double back = t - sum;
    error += (sum - (t - back)) + (run_sum - back);
    sum = t;
    abs += run_abs;
    height = std::max(height, run_height);
    runs += 1;
  }
  // Adds a run's double-double sum (run_sum + run_low, float64 dalpha:
  // the pair kernels) and magnitude; each term passed through at most
  // `run_height` steps of its chain.
  void AddPair(double run_sum, double run_low, double run_abs,
               int64_t run_height) {
    AddRun(run_sum, run_abs, run_height);
    error += run_low;
  }
  // Adds another sum's terms (a task's partial sum).
  void Merge(const BoundedSum& o) {
    AddRun(o.sum, o.abs, o.height);
    error += o.error;
    runs += o.runs;
  }
};

// Terms per run kernel call, at most (callers split longer runs).
constexpr int64_t kBoundedRun = 2048;

// Adds the terms of x[i], dy[i] (i < n <= kBoundedRun, contiguous) to *s
// as one run.
using BoundedRunKernel = void (*)(const void* x, const void* dy, size_t n,
                                  BoundedSum* s);
// Adds row r's term of channel c to sums[c] and its magnitude to
// sums[channels + c], for r < rows (rows x_row / dy_row bytes apart, each
// `channels` contiguous elements). A term passes through at most
// RowsHeight(rows) additions. streamed: the caller's rows come from memory,
// not from the L2 (RowsInOrder).
using BoundedRowsKernel = void (*)(const char* x, int64_t x_row, const char* dy,
                                   int64_t dy_row, int64_t rows,
                                   int64_t channels, bool streamed,
                                   double* sums);

// The terms of each of `count` runs of n <= kBoundedRun contiguous
// elements (run k at x + x_offsets[k] and dy + dy_offsets[k], in elements)
// summed as one run each: sums[k] and the magnitudes abs[k]. Returns a
// height that every run's terms stay within: run k is the BoundedSum of
// AddRun(sums[k], abs[k], height). NCHW planes, many alpha elements a
// call, side by side: run by run, the chain of loads, lane sums and
// rounding was the latency of a 512-channel call.
using BoundedRunsKernel = int64_t (*)(const void* x, const void* dy,
                                      const int64_t* x_offsets,
                                      const int64_t* dy_offsets, size_t count,
                                      size_t n, double* sums, double* abs);
// The pair kernels' runs (float64 dalpha) for many alpha elements a call:
// run k added to sums[k] (AddPair), as the run kernel would, one run after
// the other. Their rounding (RoundIfCertain) comes after the call, so that
// a run's scalar join of its lanes (a chain of TwoSums) overlaps the next
// run's loads instead of waiting for its own rounding.
using PairRunsKernel = void (*)(const void* x, const void* dy,
                                const int64_t* x_offsets,
                                const int64_t* dy_offsets, size_t count,
                                size_t n, BoundedSum* sums);
// RoundIfCertain in vectors for count bounded sums given as sums[k] (sum
// + error), abs[k] and a height at least each one's (their runs at most
// 2^26): bits[k], and decided[k] nonzero where the bound decides the sum
// with both ends of its interval in `format`'s normal range (float32,
// float16 or bfloat16); decided[k] = 0 otherwise, and then RoundIfCertain
// itself decides or not (ends at zero, subnormal or beyond the largest
// value, inf and NaN, or an undecided sum). Needs the IEEE default FP
// environment. Returns how many it left undecided (the caller's loop over
// them is skipped where none). The scalar RoundIfCertain takes 20-60
// instructions a sum, as much as a 128-term run's kernel.
using RoundSumsKernel = size_t (*)(const double* sums, const double* abs,
                                   size_t count, int64_t height,
                                   const reference::Format& format,
                                   uint64_t* bits, uint64_t* decided);

// RoundIfCertain for count float64 sums of the pair kernels, in vectors:
// bits[k] where decided[k] is nonzero (then as RoundIfCertain's), other
// bits[k] untouched. Needs the IEEE default FP environment. Returns how
// many it left undecided.
using RoundPairsKernel = size_t (*)(const BoundedSum* s, size_t count,
                                    uint64_t* bits, uint64_t* decided);

// Rows of 1 KiB or more (RowsInOrder, RowsPerRun).
inline bool WideRows(int64_t row_bytes) { return row_bytes >= 1024; }
// Whether the 32/16-bit rows kernels take rows one at a time, in memory
// order, rather than four side by side (one load and store of each
// accumulator per four terms, each row prefetched ahead): wide rows
// streamed from memory only. Four wide rows side by side were 1.05-1.65x
// slower out of cache, and one at a time 1.07-1.19x slower in the L2 (512
// channels, 64 Ki elements, Xeon, A/B: float32 0.84-0.92x the time side by
// side, float16 0.89-0.99x, bfloat16 0.93-0.98x). float64's pair rows go
// four a step everywhere (PairRows).
inline bool RowsInOrder(int64_t row_bytes, bool streamed) {
  return streamed && WideRows(row_bytes);
}
// Whether a task reading `bytes` of x and dy streams them from memory
// rather than its core's L2 (of l2_bytes; 0: unknown, taken as 512 KiB).
inline bool StreamedRows(int64_t bytes, size_t l2_bytes) {
  const size_t resident = l2_bytes != 0 ? l2_bytes : size_t{512} << 10;
  return bytes < 0 || static_cast<size_t>(bytes) > resident;
}
// Rows per rows kernel call (a run of each channel's BoundedSum), and the
// additions a term passes through in a call of `rows` rows of row_bytes
// each, `element` bytes an element, at most: one addition a row into its
// channel's accumulator and one into `sums` (float32's narrow rows below
// AVX-512 go through a tree of two levels per four rows, fewer).
// A task of at most kRowsOneRun rows takes them all in one call, wide or
// narrow: each call's per-channel bookkeeping (AddRowsBlock, a TwoSum and
// five fields a channel) was ~1/8 of a 512-channel NHWC call in cache with
// 64-row calls; out of cache, wide rows were 6-7 % quicker in 64-row calls
// than in 256-row ones. 256 rows keep the float32 magnitudes' additions
// within CertainMagnitude's ~300 and the bound near 2^-44 A.
constexpr int64_t kRowsOneRun = 256;
inline int64_t RowsPerRun(int64_t row_bytes, int64_t task_rows) {
  return WideRows(row_bytes) && task_rows > kRowsOneRun ? 64 : kRowsOneRun;
}
// One height for every target's kernels and row width: on AVX-512
// float32's narrow rows take one addition a row too (kNarrowWiden in
// prelu_dalpha_bound.cc).
inline int64_t RowsHeight(int64_t rows) { return rows + 5; }
// The height that stands for float32 additions whose E (the sum of the
// binades of their results) is given as the magnitude: they err by at most
// u32 E = 2^-24 E, and RoundIfCertain's bound, (height + 2) 2^-52 E, is
// 2^-24 (1 + 2^-10) E at this height. The 2^-10 takes E's own float32
// roundings (relative, within 2^-15; CertainMagnitude in
// prelu_dalpha_bound.cc) and the absolute errors below float32's normal
// range (below 2^-26 of the bound there). 2^29 until 2026-12-06: twice
// the bound needed, twice the sums left undecided.
constexpr int64_t kSums32Height = (int64_t{1} << 28) + (int64_t{1} << 18);
// The height of bfloat16_rows32's sums over `rows` rows: kSums32Height for
// the float32 additions (their E), and twice RowsHeight for the float64
// ones (of partial sums up to 2 E) and the last channels' float64 terms.
inline int64_t Rows32Height(int64_t rows) {
  return kSums32Height + 2 * RowsHeight(rows);
}

// The kernels, [BoundedIndex]: 0-2, float64 sums of float32, float16 and
// bfloat16 x for a dalpha of x's dtype; 3-6, the pair kernels
// (double-double sums) of float32, float16, bfloat16 and float64 x for a
// float64 dalpha, whose rows kernels' sums are (sum, low, abs) per channel:
// sums[c], sums[channels + c], sums[2 channels + c]. NULL where the target
// lacks a fused multiply-add (float64 x).
struct BoundedTable {
  BoundedRunKernel run[7];
  BoundedRowsKernel rows[7];
  BoundedRunsKernel runs[3];  // 0-2 (no pairs): many runs a call
  // float16's and bfloat16's runs (runs[1], runs[2]) with the terms
  // summed in float32, [0] and [1]: exact products, a running bound (abs[k]
  // is E, the binades of the float32 additions' results: GroupRunSums32 in
  // prelu_dalpha_bound.cc) ~2^-23 E, which leaves ~0.5-3 % of normally
  // distributed bfloat16 sums undecided (float16, with 8x narrower
  // intervals, more); the caller sums those again through run[k] before
  // the exact paths. 0.6-0.9x the time in cache. NULL on targets without
  // float32 vectors.
  BoundedRunsKernel runs32[2];
  // bfloat16's rows (rows[2]) summed in float32 the same way, each
  // channel's E in place of its magnitude (Rows32Height); NULL as
  // runs32.
  BoundedRowsKernel bfloat16_rows32;
  RoundSumsKernel round_sums;    // the sums of kernels 0-2
  RoundPairsKernel round_pairs;  // the sums of kernels 3-6
  PairRunsKernel pair_runs[4];   // kernels 3-6; NULL as run[k]
};
// The table's index for x's dtype and dalpha's; -1: no kernels (float64 x
// with a 32/16-bit dalpha).
inline int BoundedIndex(lrelu_dtype_t x, lrelu_dtype_t dalpha) {
  if (dalpha == LRELU_DTYPE_FLOAT64) {
    return x == LRELU_DTYPE_FLOAT64 ? 6 : 3 + FormatIndex(x);
  }
  return x == LRELU_DTYPE_FLOAT64 ? -1 : FormatIndex(x);
}

// Adds a rows kernel's `block` (its `sums` for `count` channels, filled
// from zero, whose terms passed through at most `height` additions:
// RowsHeight or Rows32Height) to totals[c] as one run each, and clears it;
// pair: a pair kernel's.
inline void AddRowsBlock(double* block, size_t count, bool pair, int64_t height,
                         BoundedSum* totals) {
  for (size_t c = 0; c < count; ++c) {
    if (pair) {
      totals[c].AddPair(block[c], block[count + c], block[2 * count + c],
                        height);
    } else {
      totals[c].AddRun(block[c], block[count + c], height);
    }
  }
  std::fill(block, block + (pair ? 3 : 2) * count, 0.0);
}

// RoundSumsKernel's inputs for count bounded sums: sums[k] = s[k].sum +
// s[k].error, abs[k] = s[k].abs (NaN, which decides nothing, past
// RoundIfCertain's limit of runs); returns the largest height.
inline int64_t RoundSumsInputs(const BoundedSum* s, size_t count, double* sums,
                               double* abs) {
  int64_t height = 0;
  for (size_t k = 0; k < count; ++k) {
    sums[k] = s[k].sum + s[k].error;
    abs[k] = s[k].runs <= (int64_t{1} << 26)
                 ? s[k].abs
                 : std::numeric_limits<double>::quiet_NaN();
    height = std::max(height, s[k].height);
  }
  return height;
}

// RoundIfCertain's bound for a float64 sum of the pair kernels, or NaN
// where the sum's magnitude, height or runs leave it undecidable (also a
// NaN sum, and only zero terms: then the exact paths).
//
// In a chain of h Dot2 steps (TwoSum joins included, along a chain or a
// tree of at most h levels whose lows pass through at most h additions),
// sum + low is within gamma_h^2 A of the exact sum (Ogita, Rump and Oishi,
// Theorem 5.3, the final rounding left out); adding the runs' `low`s into
// `error` errs by u |error| per run, with |error| below (h + runs) u A:
// below (runs + 2) (h + runs + 2) u^2 A in all. The computed A is within
// gamma_h of the exact one. A product below 2^-969 may lose its TwoProduct
// residual, 2^-1075 at most a term: below the first part when A >= 2^-900.
// Twice the sum of the two parts takes all of that.
inline double PairBound(const BoundedSum& s) {
  if (!(s.abs >= 0x1p-900 && s.abs <= 0x1p900) ||
      s.height > (int64_t{1} << 20) || s.runs > (int64_t{1} << 26)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const auto h = static_cast<double>(s.height + 2);
  const auto r = static_cast<double>(s.runs + 2);
  return 2 * (h * h + r * (h + r)) * 0x1p-106 * s.abs;
}

// The kernels compiled for `target` (one of RunnableTargets()).
const BoundedTable& BoundedFor(int64_t target);

// The bits of the exact sum of s's terms rounded once to `format`, when
// the bound decides them; false when it does not (then the caller sums
// exactly). float64 takes sums of the pair kernels (a double-double
// bound, ~(h^2) u^2 A), the others those of the float64 kernels. Needs the
// IEEE default FP environment.
bool RoundIfCertain(const BoundedSum& s, const reference::Format& format,
                    uint64_t* bits);

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_PRELU_DALPHA_BOUND_H_
