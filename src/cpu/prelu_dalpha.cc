// ProductBins (cpu/prelu_dalpha.h). The terms of a contiguous run (bin
// index and signed, shifted significand per element) are computed by a
// Highway kernel compiled once per target (foreach_target.h re-includes this
// file); adding them to the bins is a scalar loop, as no target has a
// conflict-free scatter-add. Strided runs go through a scalar loop.
#include "cpu/prelu_dalpha.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/prelu_dalpha.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "cpu/prelu_dalpha-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Terms of elements i .. i + Lanes(d) - 1; ORs the field of inf/NaN
// products into *special.
template <class L, class D>
HWY_INLINE void Step(D d, const typename L::T* x, const typename L::T* dy,
                     uint64_t* value, uint64_t* index,
                     hn::Vec<hn::RebindToUnsigned<D>>* special) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto product = NegativeProduct<L>(d, x, dy);
  const auto bits = hn::BitCast(du, product);
  const auto field = hn::And(hn::ShiftRight<52>(bits), hn::Set(du, 0x7ffu));
  const auto m = hn::ShiftRight<5>(
      hn::Or(hn::And(bits, hn::Set(du, 0x000fffffffffffffull)),
             hn::Set(du, uint64_t{1} << 52)));
  const auto shifted = hn::Shl(m, hn::And(field, hn::Set(du, 3u)));
  const auto negative =
      hn::BitCast(du, hn::ShiftRight<63>(hn::BitCast(di, bits)));
  hn::StoreU(hn::Sub(hn::Xor(shifted, negative), negative), du, value);
  // Slot 0: zero products (bin 0); slots 1..139: bins 181..319; slot 140:
  // inf/NaN (bin 511). See the header.
  hn::StoreU(hn::Sub(hn::Min(hn::Max(hn::ShiftRight<2>(field),
                                     hn::Set(du, uint64_t{kSlotBase})),
                             hn::Set(du, uint64_t{kSlotBase + kSlots - 1})),
                     hn::Set(du, uint64_t{kSlotBase})),
             du, index);
  *special =
      hn::Or(*special, hn::VecFromMask(du, hn::Eq(field, hn::Set(du, 0x7ffu))));
}

template <class L>
bool Terms(const void* xp, const void* dyp, size_t n, uint64_t* value,
           uint64_t* index) {
  const auto* x = static_cast<const typename L::T*>(xp);
  const auto* dy = static_cast<const typename L::T*>(dyp);
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const size_t lanes = hn::Lanes(d);
  auto special = hn::Zero(du);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    Step<L>(d, x + i, dy + i, value + i, index + i, &special);
  }
  const hn::CappedTag<double, 1> d1;
  auto special1 = hn::Zero(hn::RebindToUnsigned<decltype(d1)>());
  for (; i < n; ++i) {
    Step<L>(d1, x + i, dy + i, value + i, index + i, &special1);
  }
  return !hn::AllTrue(du, hn::Eq(special, hn::Zero(du))) ||
         hn::GetLane(special1) != 0;
}

void FillTermsTable(TermsTable* table) {
  table->terms[0] = &Terms<LoadF32>;
  table->terms[1] = &Terms<Load16<true>>;
  table->terms[2] = &Terms<Load16<false>>;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lrelu::cpu {

HWY_EXPORT(FillTermsTable);

const TermsTable& TermsFor(int64_t target) {
  return FilledTable(target, HWY_DISPATCH_TABLE(FillTermsTable));
}

namespace {

// Storage types for the strided scalar loop and the inf/NaN rescan:
// float32, and the 16-bit formats as raw bits.
inline float Bits32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
struct F32 {
  using T = float;
  static float Widen(float v) { return v; }
};
struct BF16 {
  using T = uint16_t;
  static float Widen(uint16_t v) { return Bits32(uint32_t{v} << 16); }
};
// float16: the magnitude's bits moved into float32's fields and scaled by
// 2^112 (exact, subnormals included, given no DAZ); inf and NaN keep an
// all-ones exponent.
struct F16 {
  using T = uint16_t;
  static float Widen(uint16_t v) {
    const uint32_t magnitude = uint32_t{v & 0x7fffu} << 13;
    const uint32_t sign = uint32_t{v & 0x8000u} << 16;
    float f = Bits32(magnitude) * 0x1p112f;
    if ((v & 0x7c00u) == 0x7c00u) f = Bits32(magnitude | 0x7f800000u);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return Bits32(b | sign);
  }
};

// x * dy in float64 where x < 0, else +0 (exact); its bits.
template <typename Format>
inline uint64_t ProductBits(typename Format::T xv, typename Format::T dyv) {
  const float x = Format::Widen(xv);
  const double p =
      static_cast<double>(x) * static_cast<double>(Format::Widen(dyv));
  uint64_t bits;
  std::memcpy(&bits, &p, 8);
  return bits & (uint64_t{0} - static_cast<uint64_t>(x < 0.0f));
}

// Records the inf/NaN products of a run in `sum`.
template <typename Format>
void AddSpecials(const void* xv, int64_t xs, const void* dyv, int64_t dys,
                 int64_t n, reference::ExactSum* sum) {
  const auto* x = static_cast<const typename Format::T*>(xv);
  const auto* dy = static_cast<const typename Format::T*>(dyv);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t bits = ProductBits<Format>(x[i * xs], dy[i * dys]);
    if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) {
      double p;
      std::memcpy(&p, &bits, 8);
      sum->AddSpecial(p);
    }
  }
}

}  // namespace

ProductBins::ProductBins(int64_t target)
    : terms_fn_(&TermsFor(target)), ulp_fn_(&UlpFor(target)) {
  Clear();
}

void ProductBins::Clear() {
  std::memset(bin_, 0, sizeof(bin_));
  terms_ = 0;
}

template <typename Format>
bool ProductBins::AddStrided(const void* xv, int64_t xs, const void* dyv,
                             int64_t dys, int64_t n) {
  const auto* x = static_cast<const typename Format::T*>(xv);
  const auto* dy = static_cast<const typename Format::T*>(dyv);
  uint64_t special = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t bits = ProductBits<Format>(x[i * xs], dy[i * dys]);
    const auto field = static_cast<uint32_t>(bits >> 52) & 0x7ffu;
    const uint64_t m =
        ((bits & 0x000fffffffffffffull) | (uint64_t{1} << 52)) >> 5;
    const uint64_t negative = uint64_t{0} - (bits >> 63);  // all ones or 0
    const uint32_t slot = std::min(std::max(field >> 2, uint32_t{kSlotBase}),
                                   uint32_t{kSlotBase + kSlots - 1}) -
                          kSlotBase;
    bin_[0][slot] += ((m << (field & 3)) ^ negative) - negative;
    special |= static_cast<uint64_t>(field == 0x7ffu);
  }
  return special != 0;
}

void ProductBins::Add(lrelu_dtype_t dtype, const void* x, int64_t xs,
                      const void* dy, int64_t dys, int64_t n,
                      reference::BinnedSum* bins, reference::ExactSum* sum) {
  const int format = FormatIndex(dtype);
  const auto* xb = static_cast<const char*>(x);
  const auto* dyb = static_cast<const char*>(dy);
  if (xs != 1 || dys != 1) {
    AddToSlots(format, xb, xs, dyb, dys, n, bins, sum);
    return;
  }
  const int64_t elem = dtype == LRELU_DTYPE_FLOAT32 ? 4 : 2;
  const int precision = reference::FormatOf(dtype).precision;
  while (n > 0) {
    if (bins->count() > (uint64_t{1} << 42)) bins->FlushInto(sum);
    const int64_t run = std::min(n, kMaxRun);
    if (format == 1) {  // float16: the fixed grid
      int64_t units[2];
      if (ulp_fn_->half_run(xb, dyb, static_cast<size_t>(run), units)) {
        if (units[0] != 0) bins->AddScaled(units[0], kHalfBottom);
        if (units[1] != 0) bins->AddScaled(units[1], kHalfTop);
      } else {
        AddToSlots(format, xb, 1, dyb, 1, run, bins, sum);
      }
    } else if (format == 2 && AddToWindow(xb, dyb, run, bins)) {
      // bfloat16 on its windowed grid.
    } else if (!AddToLevels(format, precision, xb, dyb, run, bins)) {
      AddToSlots(format, xb, 1, dyb, 1, run, bins, sum);
    }
    xb += run * elem;
    dyb += run * elem;
    n -= run;
  }
}

bool ProductBins::AddToLevels(int format, int precision, const char* x,
                              const char* dy, int64_t n,
                              reference::BinnedSum* bins) {
  const RunUlpKernel* run = ulp_fn_->run[format];
  const ExtentKernel extent = ulp_fn_->extent[format];
  const auto count = static_cast<size_t>(n);
  const auto measure = [&] {
    UlpStats e;
    extent(x, dy, count, &e);
    return e;
  };
  int64_t units[kMaxLevels];
  const Fitted f = grid_.Fit(
      precision,
      [&](const UlpGrid& grid) {
        UlpStats stats;
        run[grid.levels - 1](x, dy, count, grid.lo, units, &stats);
        return stats;
      },
      measure);
  if (!f.fits) return false;
  if (f.grid.levels == 0) return true;
  for (int j = 0; j < f.grid.levels; ++j) {
    if (units[j] != 0) bins->AddScaled(units[j], LevelExponent(f.grid, j));
  }
  grid_.Take(f.grid);
  const UlpGrid narrower = grid_.Narrower(precision, measure);
  if (narrower.levels > 0) grid_.Take(narrower);
  return true;
}

bool ProductBins::AddToWindow(const char* x, const char* dy, int64_t n,
                              reference::BinnedSum* bins) {
  const auto count = static_cast<size_t>(n);
  int64_t units[2];
  const bool fits = window_.Fit(
      [&](const BFloat16Window& w) {
        return ulp_fn_->window_run(x, dy, count, w, units);
      },
      [&](int* x_field, int* dy_field) {
        ulp_fn_->fields(x, dy, count, x_field, dy_field);
      });
  if (!fits) return false;
  const int b = window_.window().bottom();
  if (units[0] != 0) bins->AddScaled(units[0], b);
  if (units[1] != 0) bins->AddScaled(units[1], b + kWindowLevelGap);
  return true;
}

void ProductBins::AddToSlots(int format, const char* xb, int64_t xs,
                             const char* dyb, int64_t dys, int64_t n,
                             reference::BinnedSum* bins,
                             reference::ExactSum* sum) {
  const int64_t elem = format == 0 ? 4 : 2;
  while (n > 0) {
    if (terms_ == kMaxTerms) {
      FlushSlots(&bin_[0][0], kBanks, bins);
      terms_ = 0;
      if (bins->count() > (uint64_t{1} << 42)) bins->FlushInto(sum);
    }
    const int64_t run = std::min({n, kMaxTerms - terms_, kBlock});
    bool special;
    if (xs == 1 && dys == 1) {
      special = terms_fn_->terms[format](xb, dyb, static_cast<size_t>(run),
                                         value_, index_);
      int64_t i = 0;
      for (; i + kBanks <= run; i += kBanks) {
        for (int b = 0; b < kBanks; ++b) {
          bin_[b][index_[i + b]] += value_[i + b];
        }
      }
      for (; i < run; ++i) bin_[0][index_[i]] += value_[i];
    } else {
      special = format == 1   ? AddStrided<F16>(xb, xs, dyb, dys, run)
                : format == 2 ? AddStrided<BF16>(xb, xs, dyb, dys, run)
                              : AddStrided<F32>(xb, xs, dyb, dys, run);
    }
    if (special) {
      if (format == 1) AddSpecials<F16>(xb, xs, dyb, dys, run, sum);
      if (format == 2) AddSpecials<BF16>(xb, xs, dyb, dys, run, sum);
      if (format == 0) AddSpecials<F32>(xb, xs, dyb, dys, run, sum);
    }
    terms_ += run;
    xb += run * xs * elem;
    dyb += run * dys * elem;
    n -= run;
  }
}

void ProductBins::FlushInto(reference::BinnedSum* bins) {
  if (terms_ > 0) FlushSlots(&bin_[0][0], kBanks, bins);
  terms_ = 0;
}

void FlushSlots(uint64_t* slots, int banks, reference::BinnedSum* bins) {
  // Slot s holds multiples of 2^(4 (s + kSlotBase) - 1070); slots 0 (zero
  // products) and kSlots - 1 (inf/NaN) are dropped. The sets together hold
  // at most kMaxTerms terms, so a slot's sum over them stays below 2^62 as
  // one set's would: wrapping adds of two's complement values, exact.
  // Cleared slot by slot with ordinary stores, not a memset: the next run's
  // adds read these slots, and loads cannot take their value from a string
  // store still in flight (a stall per slot touched).
  for (int s = 0; s < kSlots; ++s) {
    uint64_t sum = 0;
    for (int b = 0; b < banks; ++b) {
      sum += slots[b * kSlots + s];
      slots[b * kSlots + s] = 0;
    }
    if (sum != 0 && s != 0 && s != kSlots - 1) {
      bins->AddScaled(static_cast<int64_t>(sum), 4 * (s + kSlotBase) - 1070);
    }
  }
}

void ChannelBins::Reset(int64_t target, int64_t channels) {
  terms_fn_ = &TermsFor(target);
  const UlpTable* ulp = &UlpFor(target);
  // A kept object keeps its grid for the next call on the same channels.
  if (ulp != ulp_fn_ || channels != channels_) grid_.Forget();
  ulp_fn_ = ulp;
  channels_ = channels;
  rows_ = 0;
  level_rows_ = 0;
  const auto size = static_cast<size_t>(channels * kSlots);
  if (slots_.size() < size) slots_.resize(size, 0);
  const auto levels = static_cast<size_t>(channels * kMaxLevels);
  if (acc_.size() < levels) {
    acc_.resize(levels);
    units_.resize(levels);
    trial_.resize(levels);
  }
  std::fill_n(units_.begin(), levels, 0);
}

void ChannelBins::AddRows(lrelu_dtype_t dtype, const char* x, int64_t x_row,
                          const char* dy, int64_t dy_row, int64_t rows,
                          reference::BinnedSum* bins,
                          reference::ExactSum* sums) {
  const int format = FormatIndex(dtype);
  const int precision = reference::FormatOf(dtype).precision;
  while (rows > 0) {
    const int64_t n = std::min(rows, kMaxRun);
    if (level_rows_ + n > kMaxLevelRows) FlushLevels(bins, sums);
    const bool added =
        format == 1 ? AddHalfRows(x, x_row, dy, dy_row, n, bins, sums)
                    : (format == 2 &&
                       AddWindowRows(x, x_row, dy, dy_row, n, bins, sums)) ||
                          AddToLevels(format, precision, x, x_row, dy, dy_row,
                                      n, bins, sums);
    if (!added) {
      for (int64_t i = 0; i < n; ++i) {
        AddRow(dtype, x + i * x_row, dy + i * dy_row, bins, sums);
      }
    }
    x += n * x_row;
    dy += n * dy_row;
    rows -= n;
  }
}

bool ChannelBins::AddToLevels(int format, int precision, const char* x,
                              int64_t x_row, const char* dy, int64_t dy_row,
                              int64_t rows, reference::BinnedSum* bins,
                              reference::ExactSum* sums) {
  const RowsUlpKernel* kernel = ulp_fn_->rows[format];
  const ExtentKernel extent = ulp_fn_->extent[format];
  const int64_t c = channels_;
  const auto measure = [&] {
    UlpStats e;
    for (int64_t r = 0; r < rows; ++r) {
      extent(x + r * x_row, dy + r * dy_row, static_cast<size_t>(c), &e);
    }
    return e;
  };
  const Fitted f = grid_.Fit(
      precision,
      [&](const UlpGrid& grid) {
        std::fill_n(trial_.begin(), c * grid.levels, 0);
        UlpStats stats;
        kernel[grid.levels - 1](x, x_row, dy, dy_row, rows, c, grid.lo,
                                acc_.data(), trial_.data(), &stats);
        return stats;
      },
      measure);
  if (!f.fits) return false;
  if (f.grid.levels == 0) return true;
  // units_ hold integers of one grid's levels: flushed before another's.
  if (!(f.grid == grid_.grid())) {
    FlushLevels(bins, sums);
    grid_.Take(f.grid);
  }
  for (int64_t i = 0; i < c * f.grid.levels; ++i) units_[i] += trial_[i];
  level_rows_ += rows;
  const UlpGrid narrower = grid_.Narrower(precision, measure);
  if (narrower.levels > 0) {
    FlushLevels(bins, sums);
    grid_.Take(narrower);
  }
  return true;
}

bool ChannelBins::AddHalfRows(const char* x, int64_t x_row, const char* dy,
                              int64_t dy_row, int64_t rows,
                              reference::BinnedSum* bins,
                              reference::ExactSum* sums) {
  const int64_t c = channels_;
  if (!ulp_fn_->half_rows(x, x_row, dy, dy_row, rows, c, acc_.data(),
                          trial_.data())) {
    return false;
  }
  AddFixedLevels(kHalfBottom, kHalfTop, bins, sums);
  return true;
}

void ChannelBins::AddFixedLevels(int bottom, int top,
                                 reference::BinnedSum* bins,
                                 reference::ExactSum* sums) {
  const int64_t c = channels_;
  for (int64_t i = 0; i < c; ++i) {
    if (trial_[i] != 0) bins[i].AddScaled(trial_[i], bottom);
    if (trial_[c + i] != 0) bins[i].AddScaled(trial_[c + i], top);
    if (bins[i].count() > (uint64_t{1} << 42)) bins[i].FlushInto(&sums[i]);
  }
}

bool ChannelBins::AddWindowRows(const char* x, int64_t x_row, const char* dy,
                                int64_t dy_row, int64_t rows,
                                reference::BinnedSum* bins,
                                reference::ExactSum* sums) {
  const int64_t c = channels_;
  const bool fits = window_.Fit(
      [&](const BFloat16Window& w) {
        return ulp_fn_->window_rows(x, x_row, dy, dy_row, rows, c, w,
                                    acc_.data(), trial_.data());
      },
      [&](int* x_field, int* dy_field) {
        for (int64_t r = 0; r < rows; ++r) {
          int xf, df;
          ulp_fn_->fields(x + r * x_row, dy + r * dy_row,
                          static_cast<size_t>(c), &xf, &df);
          *x_field = std::max(*x_field, xf);
          *dy_field = std::max(*dy_field, df);
        }
      });
  if (!fits) return false;
  const int b = window_.window().bottom();
  AddFixedLevels(b, b + kWindowLevelGap, bins, sums);
  return true;
}

void ChannelBins::FlushLevels(reference::BinnedSum* bins,
                              reference::ExactSum* sums) {
  if (level_rows_ > 0) {
    for (int64_t c = 0; c < channels_; ++c) {
      for (int j = 0; j < grid_.grid().levels; ++j) {
        int64_t& units = units_[j * channels_ + c];
        if (units != 0) {
          bins[c].AddScaled(units, LevelExponent(grid_.grid(), j));
        }
        units = 0;
      }
      if (bins[c].count() > (uint64_t{1} << 42)) bins[c].FlushInto(&sums[c]);
    }
  }
  level_rows_ = 0;
}

void ChannelBins::AddRow(lrelu_dtype_t dtype, const void* x, const void* dy,
                         reference::BinnedSum* bins,
                         reference::ExactSum* sums) {
  if (rows_ == kMaxTerms) Flush(bins, sums);
  const int format = FormatIndex(dtype);
  const int64_t elem = dtype == LRELU_DTYPE_FLOAT32 ? 4 : 2;
  const auto* xb = static_cast<const char*>(x);
  const auto* dyb = static_cast<const char*>(dy);
  uint64_t* slots = slots_.data();
  for (int64_t c0 = 0; c0 < channels_; c0 += kBlock) {
    const int64_t n = std::min(kBlock, channels_ - c0);
    const bool special =
        terms_fn_->terms[format](xb + c0 * elem, dyb + c0 * elem,
                                 static_cast<size_t>(n), value_, index_);
    uint64_t* base = slots + c0 * kSlots;
    for (int64_t i = 0; i < n; ++i) {
      base[i * kSlots + static_cast<int64_t>(index_[i])] += value_[i];
    }
    if (special) {  // per channel: each element is its own channel's run
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = c0 + i;
        const char* xp = xb + c * elem;
        const char* dyp = dyb + c * elem;
        if (format == 1) AddSpecials<F16>(xp, 1, dyp, 1, 1, &sums[c]);
        if (format == 2) AddSpecials<BF16>(xp, 1, dyp, 1, 1, &sums[c]);
        if (format == 0) AddSpecials<F32>(xp, 1, dyp, 1, 1, &sums[c]);
      }
    }
  }
  ++rows_;
}

void ChannelBins::Flush(reference::BinnedSum* bins, reference::ExactSum* sums) {
  FlushLevels(bins, sums);
  if (rows_ == 0) return;  // the slots are all zero
  for (int64_t c = 0; c < channels_; ++c) {
    FlushSlots(slots_.data() + c * kSlots, 1, &bins[c]);
    if (bins[c].count() > (uint64_t{1} << 42)) bins[c].FlushInto(&sums[c]);
  }
  rows_ = 0;
}

}  // namespace lrelu::cpu
#endif  // HWY_ONCE
