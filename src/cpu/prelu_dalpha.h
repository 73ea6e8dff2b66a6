// PReLU's dalpha for float32/float16/bfloat16 x and dy: the exact sum of
// x * dy over the elements where x < 0 (docs/prelu.md), fed to the wide
// accumulator (reference/exact_sum.h) in bulk.
//
// Each product of two 32/16-bit values is exact in float64 and has at most
// 48 significant bits, so its float64 significand has 5 trailing zeros:
// (significand >> 5) << (exponent & 3) is below 2^51 and is added, without
// branches, to a 64-bit bin for exponent >> 2. Finite nonzero products lie
// in 2^-298 .. 2^256 (bins 181 .. 319), so only those bins are kept, as
// slots 1 .. 139; zero products (x >= 0, or x or dy zero) go to slot 0 and
// inf/NaN ones to slot 140, both dropped (a run with an inf or NaN product
// is rescanned for those). 2^11 terms cannot overflow a slot; the slots
// then go into a BinnedSum (and that, at the end, into the ExactSum). The
// terms of a contiguous run come from a Highway kernel (one per target);
// adding them to the slots is scalar (no target has a conflict-free
// scatter-add). Integer sums only, so exact and independent of order,
// chunking, thread count and SIMD target.
//
// Contiguous runs try the float64 accumulators of prelu_dalpha_ulp.h first
// (several times quicker: no scatter; float16 on its fixed grid, bfloat16
// on its windowed one where the data allow); a run
// whose terms do not fit a grid of kMaxLevels levels, or that has an
// inf/NaN product, takes the slots.
//
// Every dalpha kernel (here, prelu_dalpha_ulp.h, prelu_dalpha_bound.h)
// reads x and dy as arrays of their type: the caller passes them
// element-aligned (api/prelu.cc copies data at other addresses first).
#ifndef LRELU_SRC_CPU_PRELU_DALPHA_H_
#define LRELU_SRC_CPU_PRELU_DALPHA_H_

#include <cstdint>
#include <vector>

#include "cpu/kernels.h"
#include "cpu/prelu_dalpha_ulp.h"
#include "lrelu/lrelu.h"
#include "reference/exact_sum.h"

namespace lrelu::cpu {

// Fills value[i] (the signed, shifted significand) and index[i] (the bin)
// of x[i] * dy[i] for i < n, contiguous; true when a product is inf/NaN.
using TermsKernel = bool (*)(const void* x, const void* dy, size_t n,
                             uint64_t* value, uint64_t* index);

// The kernels emit a slot, not the bin: bins 0 .. 180 can only hold zero
// products (slot 0), bins 181 .. 319 the finite nonzero ones (slots
// 1 .. 139), and bins from 320 only inf/NaN (slot 140).
constexpr int kSlotBase = 180;
constexpr int kSlots = 141;
// Terms per bin between flushes (each below 2^51: the sum stays < 2^62).
constexpr int64_t kMaxTerms = int64_t{1} << 11;
// Terms per kernel call.
constexpr int64_t kBlock = 256;

// Moves slots 1 .. kSlots - 2 of `banks` consecutive sets of kSlots (added
// up; together at most kMaxTerms terms) into `bins`, and clears every slot.
void FlushSlots(uint64_t* slots, int banks, reference::BinnedSum* bins);

// [0 = float32, 1 = float16, 2 = bfloat16].
struct TermsTable {
  TermsKernel terms[3];
};

// The kernels compiled for `target` (one of RunnableTargets()).
const TermsTable& TermsFor(int64_t target);

class ProductBins {
 public:
  // Contiguous runs use `target`'s kernel (every target gives the same
  // sums: integer arithmetic on exact products).
  explicit ProductBins(int64_t target);

  // Adds x[i * xs] * dy[i * dys] for i < n where x[i * xs] < 0 (strides in
  // elements; dtype float32, float16 or bfloat16). Moves the bins into
  // `bins` whenever they are close to full (and `bins` into `sum` when it
  // is), and records inf/NaN products in `sum` directly. Needs the IEEE
  // default FP environment (no DAZ).
  void Add(lrelu_dtype_t dtype, const void* x, int64_t xs, const void* dy,
           int64_t dys, int64_t n, reference::BinnedSum* bins,
           reference::ExactSum* sum);

  // Moves what the bins and accumulators hold into `bins` and clears them;
  // the caller flushes `bins` into an ExactSum before its count() reaches
  // 2^43.
  void FlushInto(reference::BinnedSum* bins);

 private:
  void Clear();
  // The slots' path for any run.
  void AddToSlots(int format, const char* x, int64_t xs, const char* dy,
                  int64_t dys, int64_t n, reference::BinnedSum* bins,
                  reference::ExactSum* sum);
  // The levels' path for a contiguous run of at most kMaxRun terms; false
  // (nothing added) when the terms do not fit.
  bool AddToLevels(int format, int precision, const char* x, const char* dy,
                   int64_t n, reference::BinnedSum* bins);
  // bfloat16's windowed grid (prelu_dalpha_ulp.h) for a contiguous run of
  // at most kMaxRun terms, the windows kept from run to run and chosen
  // again on a misfit; false (nothing added) when no window fits.
  bool AddToWindow(const char* x, const char* dy, int64_t n,
                   reference::BinnedSum* bins);
  // The scalar form of the kernel, for strided runs; true on inf/NaN.
  template <typename Format>
  bool AddStrided(const void* x, int64_t xs, const void* dy, int64_t dys,
                  int64_t n);

  // Consecutive terms go to kBanks sets of slots in turn: terms of similar
  // magnitude share a slot, and one set would make every add wait for the
  // previous one's store.
  static constexpr int kBanks = 4;
  const TermsTable* terms_fn_;
  uint64_t bin_[kBanks][kSlots];  // two's complement; exact below 2^63
  int64_t terms_;                 // added since the last flush
  uint64_t value_[kBlock];
  uint64_t index_[kBlock];
  // The levels' kernels and grid (kept across flushes).
  const UlpTable* ulp_fn_;
  GridChoice grid_;
  // bfloat16's windows.
  WindowChoice window_;
};

// One ProductBins-like set of slots per channel, for rows whose elements
// are the channels (NHWC: alpha along x's contiguous last axis): each row
// runs through the kernel in memory order and each term goes to its
// channel's slots, so no strided reads. channels * 1.1 KiB.
class ChannelBins {
 public:
  ChannelBins() = default;
  ChannelBins(int64_t target, int64_t channels) { Reset(target, channels); }

  // Ready for `channels` channels with `target`'s kernel. The slots must be
  // all zero, as they are after Flush() (so an object can be kept and
  // reused between calls without clearing).
  void Reset(int64_t target, int64_t channels);

  // Adds x[c] * dy[c] where x[c] < 0 to channel c, for c < channels (x, dy
  // contiguous). bins[c] / sums[c]: channel c's (flushes, inf/NaN).
  void AddRow(lrelu_dtype_t dtype, const void* x, const void* dy,
              reference::BinnedSum* bins, reference::ExactSum* sums);

  // AddRow for `rows` rows, x_row and dy_row bytes apart: through the
  // per-channel float64 accumulators when the terms fit their grid, else
  // row by row through the slots.
  void AddRows(lrelu_dtype_t dtype, const char* x, int64_t x_row,
               const char* dy, int64_t dy_row, int64_t rows,
               reference::BinnedSum* bins, reference::ExactSum* sums);

  // Moves every channel's slots and accumulators into bins[c] (and those
  // into sums[c] when close to full).
  void Flush(reference::BinnedSum* bins, reference::ExactSum* sums);

 private:
  bool AddToLevels(int format, int precision, const char* x, int64_t x_row,
                   const char* dy, int64_t dy_row, int64_t rows,
                   reference::BinnedSum* bins, reference::ExactSum* sums);
  void FlushLevels(reference::BinnedSum* bins, reference::ExactSum* sums);
  // float16's fixed grid (prelu_dalpha_ulp.h) for `rows` rows; false
  // (nothing added) when a term is inf or NaN.
  bool AddHalfRows(const char* x, int64_t x_row, const char* dy, int64_t dy_row,
                   int64_t rows, reference::BinnedSum* bins,
                   reference::ExactSum* sums);
  // Adds trial_'s two fixed levels, units of 2^bottom at [c] and of 2^top
  // at [channels + c], to each channel's bins.
  void AddFixedLevels(int bottom, int top, reference::BinnedSum* bins,
                      reference::ExactSum* sums);
  // bfloat16's windowed grid for `rows` rows; false (nothing added) when
  // no window fits.
  bool AddWindowRows(const char* x, int64_t x_row, const char* dy,
                     int64_t dy_row, int64_t rows, reference::BinnedSum* bins,
                     reference::ExactSum* sums);

  const TermsTable* terms_fn_ = nullptr;
  int64_t channels_ = 0;
  int64_t rows_ = 0;             // since the last flush
  std::vector<uint64_t> slots_;  // [channel][kSlots]
  uint64_t value_[kBlock];
  uint64_t index_[kBlock];
  // The accumulators, [level][channel], as ProductBins's.
  // The levels, as ProductBins's; units_[level][channel] holds the
  // integers of level_rows_ rows on grid_ (flushed before 2^14 rows:
  // each adds below 2^47 per level), trial_ a call's own, acc_ the
  // kernel's accumulators.
  static constexpr int64_t kMaxLevelRows = int64_t{1} << 14;
  const UlpTable* ulp_fn_ = nullptr;
  GridChoice grid_;
  int64_t level_rows_ = 0;
  std::vector<double> acc_;
  std::vector<int64_t> units_, trial_;
  WindowChoice window_;  // bfloat16's
};

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_PRELU_DALPHA_H_
