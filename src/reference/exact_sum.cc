#include "reference/exact_sum.h"

#include <algorithm>
#include <cstring>

namespace lrelu::reference {
namespace {

int BitLength(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

// A magnitude rounded once, to nearest with ties to even, to `f`, with
// `negative`'s sign: its leading one is bit `high`, bit i is worth
// 2^(i + e0), and `bits` reads it: Window(i), bits [i, i + 64) for i >= 0;
// Bit(i); AnyBelow(i), any bit at a position below i (all zero past the
// magnitude). Beyond the range it is +-inf, below half the smallest
// subnormal +-0. Returns the raw bits (ExactSum::Round's rule, shared by
// BinnedSum::RoundIfNarrow).
template <class Bits>
uint64_t RoundMagnitude(const Format& f, bool negative, int high, int e0,
                        const Bits& bits) {
  const int fraction_bits = f.precision - 1;
  const int exponent_bits = f.width - f.precision;
  const uint64_t all_ones_exponent = ((uint64_t{1} << exponent_bits) - 1)
                                     << fraction_bits;
  const uint64_t sign = negative ? uint64_t{1} << (f.width - 1) : 0;
  const int emin = 1 - f.emax;
  int exponent = high + e0;  // value in [2^exponent, 2^(exponent + 1))
  if (exponent > f.emax) return sign | all_ones_exponent;
  // Quantum of the result: last significand bit, or the subnormal one.
  int quantum = exponent - fraction_bits;
  if (quantum < emin - fraction_bits) quantum = emin - fraction_bits;
  const int low = quantum - e0;  // position of the last kept bit
  // Bits low .. high: at most the format's precision (< 64); none when the
  // magnitude is below the quantum; all of them, exactly, when low <= 0.
  uint64_t m;
  bool half = false, sticky = false;
  if (low <= 0) {
    m = bits.Window(0) << -low;
  } else {
    m = high < low ? 0
                   : bits.Window(low) & ((uint64_t{1} << (high - low + 1)) - 1);
    half = bits.Bit(low - 1) != 0;
    sticky = bits.AnyBelow(low - 1);
  }
  if (half && (sticky || (m & 1) != 0)) ++m;
  if (m == (uint64_t{1} << f.precision)) {
    m >>= 1;
    ++quantum;
  }
  if (m < (uint64_t{1} << fraction_bits)) return sign | m;  // subnormal
  exponent = quantum + fraction_bits;
  if (exponent > f.emax) return sign | all_ones_exponent;
  const auto field = static_cast<uint64_t>(exponent + f.emax);
  return sign | (field << fraction_bits) |
         (m & ((uint64_t{1} << fraction_bits) - 1));
}

}  // namespace

Format FormatOf(lrelu_dtype_t dtype) {
  switch (dtype) {
    case LRELU_DTYPE_FLOAT16:
      return {16, 11, 15};
    case LRELU_DTYPE_BFLOAT16:
      return {16, 8, 127};
    case LRELU_DTYPE_FLOAT64:
      return {64, 53, 1023};
    case LRELU_DTYPE_FLOAT32:
    default:
      return {32, 24, 127};
  }
}

Decoded Decode(const Format& f, uint64_t bits) {
  const int fraction_bits = f.precision - 1;
  const int exponent_bits = f.width - f.precision;
  const uint64_t fraction = bits & ((uint64_t{1} << fraction_bits) - 1);
  const int field = static_cast<int>((bits >> fraction_bits) &
                                     ((uint64_t{1} << exponent_bits) - 1));
  Decoded d;
  d.negative = ((bits >> (f.width - 1)) & 1) != 0;
  d.significand = 0;
  d.exponent = 0;
  if (field == (1 << exponent_bits) - 1) {
    d.kind = fraction == 0 ? Decoded::kInf : Decoded::kNaN;
  } else if (field == 0) {
    d.kind = fraction == 0 ? Decoded::kZero : Decoded::kFinite;
    d.significand = fraction;
    d.exponent = 1 - f.emax - fraction_bits;
  } else {
    d.kind = Decoded::kFinite;
    d.significand = fraction | (uint64_t{1} << fraction_bits);
    d.exponent = field - f.emax - fraction_bits;
  }
  return d;
}

double ToDouble(const Format& f, uint64_t bits) {
  uint64_t out;
  if (f.width == 64) {
    out = bits;
  } else {
    const Decoded d = Decode(f, bits);
    const uint64_t sign = d.negative ? uint64_t{1} << 63 : 0;
    if (d.kind == Decoded::kZero) {
      out = sign;
    } else if (d.kind == Decoded::kInf) {
      out = sign | 0x7ff0000000000000ull;
    } else if (d.kind == Decoded::kNaN) {
      // Keep the payload's top bits, as a widening conversion does.
      const int fraction_bits = f.precision - 1;
      const uint64_t fraction = bits & ((uint64_t{1} << fraction_bits) - 1);
      out = sign | 0x7ff0000000000000ull | 0x0008000000000000ull |
            (fraction << (52 - fraction_bits));
    } else {
      // Every float32/float16/bfloat16 value is a normal float64.
      const int shift = 53 - BitLength(d.significand);
      const uint64_t m = d.significand << shift;
      const int64_t e = d.exponent - shift + 52 + 1023;
      out =
          sign | (static_cast<uint64_t>(e) << 52) | (m & 0x000fffffffffffffull);
    }
  }
  double v;
  std::memcpy(&v, &out, sizeof(v));
  return v;
}

ExactSum::ExactSum() {
  std::memset(limb_, 0, sizeof(limb_));
  lo_ = kLimbs;
  hi_ = 0;
  pending_ = 0;
  nan_ = pos_inf_ = neg_inf_ = false;
}

void ExactSum::Clear() {
  // Limbs outside [lo_, hi_] are zero already.
  if (lo_ <= hi_) {
    std::memset(limb_ + lo_, 0,
                static_cast<size_t>(hi_ - lo_ + 1) * sizeof(limb_[0]));
  }
  lo_ = kLimbs;
  hi_ = 0;
  pending_ = 0;
  nan_ = pos_inf_ = neg_inf_ = false;
}

void ExactSum::AddProduct(const Decoded& a, const Decoded& b) {
  if (a.kind == Decoded::kNaN || b.kind == Decoded::kNaN) {
    nan_ = true;
    return;
  }
  const bool negative = a.negative != b.negative;
  if (a.kind == Decoded::kInf || b.kind == Decoded::kInf) {
    if (a.kind == Decoded::kZero || b.kind == Decoded::kZero) {
      nan_ = true;
    } else if (negative) {
      neg_inf_ = true;
    } else {
      pos_inf_ = true;
    }
    return;
  }
  if (a.kind == Decoded::kZero || b.kind == Decoded::kZero) return;
  const unsigned __int128 m =
      static_cast<unsigned __int128>(a.significand) * b.significand;
  AddMagnitude(negative, m, a.exponent + b.exponent);
}

void ExactSum::AddScaled128(__int128 value, int exponent) {
  if (value == 0) return;
  const bool negative = value < 0;
  auto magnitude = static_cast<unsigned __int128>(value);
  if (negative) magnitude = 0 - magnitude;
  AddMagnitude(negative, magnitude, exponent);
}

void ExactSum::AddSpecial(double product) {
  if (product != product) {
    nan_ = true;
  } else if (product > 0) {
    pos_inf_ = true;
  } else {
    neg_inf_ = true;
  }
}

void ExactSum::AddMagnitude(bool negative, unsigned __int128 magnitude,
                            int exponent) {
  if (pending_ == kCarryEvery) Carry();
  ++pending_;
  const int position = exponent + kBias;  // >= 0 for float64 products
  const int digit = position / 32;
  const int shift = position % 32;
  // A 128-bit magnitude spans at most digits digit .. digit + 4.
  lo_ = std::min(lo_, digit);
  hi_ = std::max(hi_, std::min(digit + 4, kLimbs - 1));
  for (int k = 0; magnitude != 0; ++k) {
    const uint64_t chunk = static_cast<uint64_t>(magnitude) & 0xffffffffu;
    magnitude >>= 32;
    const uint64_t shifted = chunk << shift;  // < 2^63
    const auto low = static_cast<int64_t>(shifted & 0xffffffffu);
    const auto high = static_cast<int64_t>(shifted >> 32);
    if (negative) {
      limb_[digit + k] -= low;
      limb_[digit + k + 1] -= high;
    } else {
      limb_[digit + k] += low;
      limb_[digit + k + 1] += high;
    }
  }
}

void ExactSum::Carry() {
  // The carry out of hi_ goes one limb up (the top limb keeps the sign).
  const int top = std::min(hi_ + 1, kLimbs - 1);
  for (int i = lo_; i < top; ++i) {
    const int64_t carry = limb_[i] >> 32;  // floor division by 2^32
    limb_[i] -= carry * (int64_t{1} << 32);
    limb_[i + 1] += carry;
  }
  hi_ = top;
  pending_ = 0;
}

void ExactSum::Merge(const ExactSum& other) {
  ExactSum o = other;
  o.Carry();
  Carry();
  lo_ = std::min(lo_, o.lo_);
  hi_ = std::max(hi_, o.hi_);
  for (int i = lo_; i <= hi_; ++i) limb_[i] += o.limb_[i];
  pending_ = 2;
  nan_ = nan_ || o.nan_;
  pos_inf_ = pos_inf_ || o.pos_inf_;
  neg_inf_ = neg_inf_ || o.neg_inf_;
}

uint64_t ExactSum::Round(const Format& f) const {
  const int fraction_bits = f.precision - 1;
  const int exponent_bits = f.width - f.precision;
  const uint64_t all_ones_exponent = ((uint64_t{1} << exponent_bits) - 1)
                                     << fraction_bits;
  const uint64_t sign_bit = uint64_t{1} << (f.width - 1);
  if (nan_ || (pos_inf_ && neg_inf_)) {
    return all_ones_exponent | (uint64_t{1} << (fraction_bits - 1));
  }
  if (pos_inf_) return all_ones_exponent;
  if (neg_inf_) return sign_bit | all_ones_exponent;

  if (lo_ > hi_) return 0;  // nothing added: +0
  // The limbs in use (the others are zero), carried into digits in a local
  // copy: no 1 KiB copy of the whole sum per rounding.
  const int lo = lo_;
  const int last = std::min(hi_ + 1, kLimbs - 1);  // takes the carry out
  int64_t d[kLimbs];
  std::memcpy(d + lo, limb_ + lo,
              static_cast<size_t>(last - lo + 1) * sizeof(d[0]));
  const auto carry = [&d, lo, last] {
    for (int i = lo; i < last; ++i) {
      const int64_t c = d[i] >> 32;  // floor division by 2^32
      d[i] -= c * (int64_t{1} << 32);
      d[i + 1] += c;
    }
  };
  carry();
  const bool negative = d[last] < 0;
  if (negative) {
    for (int i = lo; i <= last; ++i) d[i] = -d[i];
    carry();
  }
  // Now every limb is a digit in [0, 2^32).
  int top = last;
  while (top >= lo && d[top] == 0) --top;
  if (top < lo) return 0;  // exact zero: +0
  // 32-bit digits d[lo..top]; bit i is worth 2^(i - kBias).
  struct Digits {
    const int64_t* d;
    int lo, top;
    uint64_t Digit(int k) const {
      return k >= lo && k <= top ? static_cast<uint64_t>(d[k]) : 0;
    }
    uint64_t Window(int i) const {
      const int k = i / 32, shift = i % 32;
      const uint64_t low = Digit(k) | Digit(k + 1) << 32;
      return shift == 0 ? low : low >> shift | Digit(k + 2) << (64 - shift);
    }
    uint64_t Bit(int i) const { return (Digit(i / 32) >> (i % 32)) & 1; }
    bool AnyBelow(int i) const {
      for (int k = lo; k < i / 32; ++k) {
        if (Digit(k) != 0) return true;
      }
      return (Digit(i / 32) & ((uint64_t{1} << (i % 32)) - 1)) != 0;
    }
  };
  const Digits digits{d, lo, top};
  const int high = top * 32 + BitLength(digits.Digit(top)) - 1;
  return RoundMagnitude(f, negative, high, -kBias, digits);
}

namespace {

// A signed 256-bit integer, two's complement, least significant limb first.
using Wide = uint64_t[4];

// w += v * 2^shift (shift a multiple of 32, below 128; |v| < 2^127).
void AddShifted(Wide w, __int128 v, int shift) {
  const auto u = static_cast<unsigned __int128>(v);
  const uint64_t ext = v < 0 ? ~uint64_t{0} : 0;
  uint64_t t[4] = {static_cast<uint64_t>(u), static_cast<uint64_t>(u >> 64),
                   ext, ext};
  const int limbs = shift / 64, bits = shift % 64;
  uint64_t s[4];
  for (int i = 3; i >= 0; --i) {
    const int j = i - limbs;
    uint64_t x = 0;
    if (j >= 0) {
      x = t[j] << bits;
      if (bits != 0) x |= j > 0 ? t[j - 1] >> (64 - bits) : 0;
    }
    s[i] = x;
  }
  unsigned __int128 carry = 0;
  for (int i = 0; i < 4; ++i) {
    carry += static_cast<unsigned __int128>(w[i]) + s[i];
    w[i] = static_cast<uint64_t>(carry);
    carry >>= 64;
  }
}

// Reads a magnitude in w for RoundMagnitude (zeros past bit 255).
struct WideBits {
  const uint64_t* w;
  uint64_t Limb(int k) const { return k < 4 ? w[k] : 0; }
  uint64_t Window(int i) const {
    const int k = i / 64, s = i % 64;
    return s == 0 ? Limb(k) : Limb(k) >> s | Limb(k + 1) << (64 - s);
  }
  uint64_t Bit(int i) const { return (Limb(i / 64) >> (i % 64)) & 1; }
  bool AnyBelow(int i) const {
    for (int k = 0; k < i / 64 && k < 4; ++k) {
      if (w[k] != 0) return true;
    }
    return (Limb(i / 64) & ((uint64_t{1} << (i % 64)) - 1)) != 0;
  }
};

}  // namespace

bool BinnedSum::RoundIfNarrow(const Format& f, uint64_t* bits) {
  if (lo_ > hi_) {  // nothing added: +0
    count_ = 0;
    *bits = 0;
    return true;
  }
  if (hi_ - lo_ > 2) return false;
  // The sum's magnitude in w, bit 0 worth 2^e0 (bin i holds multiples of
  // 2^(32 i - 1075)): in 128 bits when it fits (the common case), else in
  // 256 (|sum| < 2^193).
  __int128 v = 0;
  bool fits = true;
  for (int i = hi_; i >= lo_ && fits; --i) {  // v = v * 2^32 + bin i
    __int128 shifted;
    fits = !__builtin_mul_overflow(v, __int128{1} << 32, &shifted) &&
           !__builtin_add_overflow(shifted, bin_[i], &v);
  }
  Wide w = {0, 0, 0, 0};
  bool negative;
  if (fits) {
    negative = v < 0;
    const unsigned __int128 m = negative ? -static_cast<unsigned __int128>(v)
                                         : static_cast<unsigned __int128>(v);
    w[0] = static_cast<uint64_t>(m);
    w[1] = static_cast<uint64_t>(m >> 64);
  } else {
    for (int i = lo_; i <= hi_; ++i) AddShifted(w, bin_[i], 32 * (i - lo_));
    negative = (w[3] >> 63) != 0;  // the top bit is the sign
    if (negative) {
      unsigned __int128 carry = 1;
      for (int i = 0; i < 4; ++i) {
        carry += ~w[i];
        w[i] = static_cast<uint64_t>(carry);
        carry >>= 64;
      }
    }
  }
  const int e0 = 32 * lo_ - 1075;
  for (int i = lo_; i <= hi_; ++i) bin_[i] = 0;
  lo_ = kBins;
  hi_ = -1;
  count_ = 0;
  int top = -1;  // the leading one
  for (int k = 3; k >= 0 && top < 0; --k) {
    if (w[k] != 0) top = 64 * k + 63 - __builtin_clzll(w[k]);
  }
  if (top < 0) {  // an exact zero: +0
    *bits = 0;
    return true;
  }
  *bits = RoundMagnitude(f, negative, top, e0, WideBits{w});
  return true;
}

}  // namespace lrelu::reference
