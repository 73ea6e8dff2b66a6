#include "cpu/prelu_dalpha.h"

#include <algorithm>
#include <cstring>

namespace lrelu::cpu {
namespace {

// Storage types: float32, and the 16-bit formats as raw bits.
struct F32 {
  using T = float;
  static float Widen(float v) { return v; }
};
struct BF16 {
  using T = uint16_t;
  static float Widen(uint16_t v);
};
struct F16 {
  using T = uint16_t;
  static float Widen(uint16_t v);
};

inline float Bits32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Exact widening to float32. float16: the magnitude's bits moved into
// float32's fields and scaled by 2^112 (exact, subnormals included, given
// no DAZ); inf and NaN keep an all-ones exponent.
inline float BF16::Widen(uint16_t v) { return Bits32(uint32_t{v} << 16); }
inline float F16::Widen(uint16_t v) {
  const uint32_t magnitude = uint32_t{v & 0x7fffu} << 13;
  const uint32_t sign = uint32_t{v & 0x8000u} << 16;
  float f = Bits32(magnitude) * 0x1p112f;
  if ((v & 0x7c00u) == 0x7c00u) f = Bits32(magnitude | 0x7f800000u);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return Bits32(b | sign);
}

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

}  // namespace

void ProductBins::Clear() {
  std::memset(bin_, 0, sizeof(bin_));
  terms_ = 0;
}

template <typename Format>
void ProductBins::AddRun(const void* xv, int64_t xs, const void* dyv,
                         int64_t dys, int64_t n, reference::ExactSum* sum) {
  const auto* x = static_cast<const typename Format::T*>(xv);
  const auto* dy = static_cast<const typename Format::T*>(dyv);
  uint64_t special = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t bits = ProductBits<Format>(x[i * xs], dy[i * dys]);
    const auto field = static_cast<uint32_t>(bits >> 52) & 0x7ffu;
    const uint64_t m =
        ((bits & 0x000fffffffffffffull) | (uint64_t{1} << 52)) >> 5;
    const uint64_t negative = uint64_t{0} - (bits >> 63);  // all ones or 0
    const uint64_t signed_m = ((m << (field & 3)) ^ negative) - negative;
    bin_[field >> 2] += signed_m;
    special |= static_cast<uint64_t>(field == 0x7ffu);
  }
  terms_ += n;
  if (special != 0) {
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t bits = ProductBits<Format>(x[i * xs], dy[i * dys]);
      if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) {
        double p;
        std::memcpy(&p, &bits, 8);
        sum->AddSpecial(p);
      }
    }
  }
}

void ProductBins::Add(lrelu_dtype_t dtype, const void* x, int64_t xs,
                      const void* dy, int64_t dys, int64_t n,
                      reference::BinnedSum* bins, reference::ExactSum* sum) {
  const int64_t elem = dtype == LRELU_DTYPE_FLOAT32 ? 4 : 2;
  const auto* xb = static_cast<const char*>(x);
  const auto* dyb = static_cast<const char*>(dy);
  while (n > 0) {
    if (terms_ == kMaxTerms) {
      FlushInto(bins);
      if (bins->count() > (uint64_t{1} << 42)) bins->FlushInto(sum);
    }
    const int64_t run = std::min(n, kMaxTerms - terms_);
    switch (dtype) {
      case LRELU_DTYPE_FLOAT16:
        AddRun<F16>(xb, xs, dyb, dys, run, sum);
        break;
      case LRELU_DTYPE_BFLOAT16:
        AddRun<BF16>(xb, xs, dyb, dys, run, sum);
        break;
      default:
        AddRun<F32>(xb, xs, dyb, dys, run, sum);
        break;
    }
    xb += run * xs * elem;
    dyb += run * dys * elem;
    n -= run;
  }
}

void ProductBins::FlushInto(reference::BinnedSum* bins) {
  // Bin j holds multiples of 2^(4 j - 1070); bins 0 and 511 hold no finite
  // nonzero product (see the header). Skip empty groups of 8 quickly.
  for (int g = 0; g < kBins; g += 8) {
    uint64_t any = 0;
    for (int j = g; j < g + 8; ++j) any |= bin_[j];
    if (any == 0) continue;
    for (int j = std::max(g, 1); j < std::min(g + 8, kBins - 1); ++j) {
      if (bin_[j] != 0) {
        bins->AddScaled(static_cast<int64_t>(bin_[j]), 4 * j - 1070);
      }
    }
  }
  Clear();
}

}  // namespace lrelu::cpu
