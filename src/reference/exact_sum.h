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

}  // namespace lrelu::reference

#endif  // LRELU_SRC_REFERENCE_EXACT_SUM_H_
