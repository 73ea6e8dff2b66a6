// An exact accumulator for sums of products of two floating-point numbers:
// PReLU's dalpha = sum of (x < 0 ? x * dy : 0), rounded once to alpha's
// dtype. The sum is kept as one fixed-point integer wide enough for every
// product of two float64 values (2^-2148 to 2^2048) plus 64 bits of growth,
// so the result does not depend on the order of the additions: every
// backend, thread count and chunking gives the same bits.
//
// Integer arithmetic only (no FP instructions), so the caller's FTZ/DAZ or
// rounding mode cannot change anything.
#ifndef LRELU_SRC_REFERENCE_EXACT_SUM_H_
#define LRELU_SRC_REFERENCE_EXACT_SUM_H_

#include <cstddef>
#include <cstdint>

#include "lrelu/lrelu.h"

namespace lrelu::reference {

// A binary floating-point format: storage width, precision (significand bits
// with the hidden one) and largest exponent (= the bias).
struct Format {
  int width;
  int precision;
  int emax;
};

// The format of a dtype (float32, float16, bfloat16, float64).
Format FormatOf(lrelu_dtype_t dtype);

// One decoded value: value = (negative ? -1 : 1) * significand * 2^exponent.
struct Decoded {
  enum Kind { kZero, kFinite, kInf, kNaN } kind;
  bool negative;
  uint64_t significand;
  int exponent;
};

Decoded Decode(const Format& format, uint64_t bits);

// The value of `bits` in `format` as a float64 (exact for every format here),
// built from integers.
double ToDouble(const Format& format, uint64_t bits);

class ExactSum {
 public:
  ExactSum();
  // Back to zero; touches only the limbs in use (cheap to reuse one sum).
  void Clear();

  // Adds the exact product a * b of two decoded values (IEEE rules for the
  // special ones: NaN or inf * 0 is NaN, inf * finite nonzero is inf).
  void AddProduct(const Decoded& a, const Decoded& b);

  // Adds value * 2^exponent exactly (value * 2^exponent must be a multiple
  // of 2^-2148 and below 2^2100 in magnitude).
  void AddScaled128(__int128 value, int exponent);

  // Adds a product already computed in float64: exact when it came from two
  // float32/float16/bfloat16 values. A NaN or an inf is recorded as such.
  void AddSpecial(double product);

  // Adds what another accumulator holds (for per-task partial sums).
  void Merge(const ExactSum& other);

  // True when nothing was added since the last Clear() (no specials).
  bool empty() const { return lo_ > hi_ && !nan_ && !pos_inf_ && !neg_inf_; }

  // The exact sum rounded once, to nearest with ties to even, to `format`:
  // beyond the format's range it is +-inf; a NaN term, or infs of both
  // signs, give the quiet NaN (sign 0, top fraction bit); infs of one sign
  // give that inf; an exact zero is +0. Returns the raw bits.
  uint64_t Round(const Format& format) const;

 private:
  // 32-bit digits held in 64-bit limbs, so additions need no carry until
  // kCarryEvery of them have been made.
  static constexpr int kBias = 2148;  // bit 0 is 2^-2148
  static constexpr int kLimbs = 136;  // 4352 bits: 2^-2148 .. 2^2204
  static constexpr uint32_t kCarryEvery = uint32_t{1} << 29;

  void AddMagnitude(bool negative, unsigned __int128 magnitude, int exponent);
  void Carry();

  int64_t limb_[kLimbs];
  // Limbs outside [lo_, hi_] are zero, so carries, merges and rounding
  // touch only the few limbs a sum of similar terms uses. limb_[hi_] is
  // the signed top after Carry(); the others are digits in [0, 2^32).
  int lo_;
  int hi_;
  uint32_t pending_;  // additions since the last Carry()
  bool nan_;
  bool pos_inf_;
  bool neg_inf_;
};

// A small front end to ExactSum for many float64 terms: each term's
// signed significand (< 2^53), shifted by its exponent's low 5 bits, is
// added to a 128-bit bin for the exponent's high bits, exactly (room for
// 2^43 terms); only the 64 bins go through the wide accumulator, at the
// end. 1 KiB, order-independent like ExactSum itself.
class BinnedSum {
 public:
  BinnedSum() : lo_(kBins), hi_(-1), count_(0) {
    for (__int128& b : bin_) b = 0;
  }

  // Adds a finite float64 given as bits (NaN and inf go to AddSpecial).
  void Add(uint64_t bits) {
    int field = static_cast<int>((bits >> 52) & 0x7ff);
    auto m = static_cast<int64_t>(bits & 0x000fffffffffffffull);
    if (field != 0) {
      m |= int64_t{1} << 52;
    } else {
      field = 1;  // subnormal: the exponent of field 1
    }
    const __int128 shifted = static_cast<__int128>(m) << (field & 31);
    Touch(field >> 5) += (bits >> 63) != 0 ? -shifted : shifted;
    ++count_;
  }

  // Adds value * 2^exponent exactly: exponent >= -1075, |value| < 2^62
  // (a block of terms already summed, e.g. cpu/prelu_dalpha.h's bins).
  // Counts as 2^9 terms towards count().
  void AddScaled(int64_t value, int exponent) {
    const int position = exponent + 1075;
    // A multiply, not a shift: value may be negative (a left shift of a
    // negative value is undefined in C++17); |value| < 2^63, so the product
    // stays below 2^94.
    Touch(position >> 5) +=
        static_cast<__int128>(value) * (__int128{1} << (position & 31));
    count_ += 512;
  }

  // Adds another BinnedSum's bins (per-task partial sums).
  void Merge(const BinnedSum& other) {
    for (int i = other.lo_; i <= other.hi_; ++i) Touch(i) += other.bin_[i];
    count_ += other.count_;
  }

  // Moves what the bins hold into `sum` and clears them.
  void FlushInto(ExactSum* sum) {
    for (int i = lo_; i <= hi_; ++i) {
      if (bin_[i] != 0) {
        // Bin i holds multiples of 2^(32 i - 1075).
        sum->AddScaled128(bin_[i], 32 * i - 1075);
        bin_[i] = 0;
      }
    }
    lo_ = kBins;
    hi_ = -1;
    count_ = 0;
  }

  // Terms added since the last flush; flush before 2^43.
  uint64_t count() const { return count_; }

  // What FlushInto an empty ExactSum and its Round(format) would give, when
  // the bins in use are at most three neighbours (terms of similar size,
  // dalpha's common case): sets *bits, clears the bins and returns true.
  // Otherwise returns false and changes nothing. The wide accumulator's
  // flush, rounding and clearing cost ~600 instructions a sum; this ~100.
  bool RoundIfNarrow(const Format& format, uint64_t* bits);

 private:
  static constexpr int kBins = 64;
  // Bin i, widening the window [lo_, hi_] of bins that may be nonzero (the
  // others are zero), so a flush of a few bins does not scan all 64.
  __int128& Touch(int i) {
    lo_ = i < lo_ ? i : lo_;
    hi_ = i > hi_ ? i : hi_;
    return bin_[i];
  }

  __int128 bin_[kBins];
  int lo_, hi_;
  uint64_t count_;
};

}  // namespace lrelu::reference

#endif  // LRELU_SRC_REFERENCE_EXACT_SUM_H_
