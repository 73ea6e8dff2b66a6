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
  ExactSum() { Clear(); }
  void Clear();

  // Adds the exact product a * b of two decoded values (IEEE rules for the
  // special ones: NaN or inf * 0 is NaN, inf * finite nonzero is inf).
  void AddProduct(const Decoded& a, const Decoded& b);

  // Adds value * 2^exponent (|value| < 2^63) exactly.
  void AddScaled(int64_t value, int exponent);

  // Adds a product already computed in float64: exact when it came from two
  // float32/float16/bfloat16 values. A NaN or an inf is recorded as such.
  void AddSpecial(double product);

  // Adds what another accumulator holds (for per-task partial sums).
  void Merge(const ExactSum& other);

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
  uint32_t pending_;  // additions since the last Carry()
  bool nan_;
  bool pos_inf_;
  bool neg_inf_;
};

// A front end to ExactSum for many float64 terms: the signed significands
// are summed per binary exponent in 64-bit integers (exact: at most 1023
// terms of < 2^53 per bin before a flush), and only the bins go through the
// wide accumulator. Order-independent like ExactSum itself.
class BinnedSum {
 public:
  explicit BinnedSum(ExactSum* target)
      : count_(0), low_(kBins), high_(-1), target_(target) {
    for (int64_t& b : bin_) b = 0;
  }

  // Adds a finite float64 (the caller sends NaN and inf to AddSpecial).
  void Add(uint64_t bits) {
    const int field = static_cast<int>((bits >> 52) & 0x7ff);
    auto m = static_cast<int64_t>(bits & 0x000fffffffffffffull);
    if (field != 0) m |= int64_t{1} << 52;
    bin_[field] += (bits >> 63) != 0 ? -m : m;
    low_ = field < low_ ? field : low_;
    high_ = field > high_ ? field : high_;
    if (++count_ == kFlushEvery) Flush();
  }

  // Moves what the bins hold into the target (call once at the end).
  void Finish() { Flush(); }

 private:
  static constexpr int kBins = 2048;
  static constexpr int kFlushEvery = 1023;
  void Flush() {
    for (int e = low_; e <= high_; ++e) {
      if (bin_[e] != 0) {
        // A subnormal (field 0) has the exponent of field 1.
        target_->AddScaled(bin_[e], (e == 0 ? 1 : e) - 1075);
        bin_[e] = 0;
      }
    }
    count_ = 0;
    low_ = kBins;
    high_ = -1;
  }

  int64_t bin_[kBins];
  int count_;
  int low_, high_;
  ExactSum* target_;
};

}  // namespace lrelu::reference

#endif  // LRELU_SRC_REFERENCE_EXACT_SUM_H_
