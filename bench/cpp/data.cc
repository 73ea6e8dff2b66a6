#include "data.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <random>

namespace lrelu_bench {
namespace {

size_t Size(lrelu_dtype_t dtype) { return lrelu_dtype_size(dtype); }

uint64_t Bits(lrelu_dtype_t dtype, const void* p, size_t i) {
  uint64_t v = 0;
  std::memcpy(&v, static_cast<const char*>(p) + i * Size(dtype), Size(dtype));
  return v;
}

void SetBits(lrelu_dtype_t dtype, void* p, size_t i, uint64_t v) {
  std::memcpy(static_cast<char*>(p) + i * Size(dtype), &v, Size(dtype));
}

// Round-to-nearest-even narrowing of a float32 to the upper 16 bits.
uint16_t ToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

uint64_t FromDouble(lrelu_dtype_t dtype, double v) {
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32: {
      const float f = static_cast<float>(v);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      return u;
    }
    case LRELU_DTYPE_FLOAT64: {
      uint64_t u;
      std::memcpy(&u, &v, 8);
      return u;
    }
    case LRELU_DTYPE_FLOAT16: {
      const _Float16 h = static_cast<_Float16>(static_cast<float>(v));
      uint16_t u;
      std::memcpy(&u, &h, 2);
      return u;
    }
    case LRELU_DTYPE_BFLOAT16:
      return ToBf16(static_cast<float>(v));
  }
  return 0;
}

struct Layout {
  int bits;       // total
  uint64_t sign;  // sign bit
  uint64_t exp;   // exponent field mask
  uint64_t frac;  // fraction mask
};

Layout LayoutOf(lrelu_dtype_t dtype) {
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32:
      return {32, 1ull << 31, 0x7f800000ull, 0x7fffffull};
    case LRELU_DTYPE_FLOAT64:
      return {64, 1ull << 63, 0x7ff0000000000000ull, (1ull << 52) - 1};
    case LRELU_DTYPE_FLOAT16:
      return {16, 0x8000, 0x7c00, 0x3ff};
    case LRELU_DTYPE_BFLOAT16:
      return {16, 0x8000, 0x7f80, 0x7f};
  }
  return {};
}

bool IsNan(const Layout& l, uint64_t v) {
  return (v & l.exp) == l.exp && (v & l.frac) != 0;
}

// Sign-magnitude bits to a monotonic integer, so ulps are a subtraction.
int64_t Ordered(const Layout& l, uint64_t v) {
  const uint64_t mag = v & ~l.sign;
  return (v & l.sign) ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
}

}  // namespace

Buffer::Buffer(size_t bytes) : bytes_(bytes) {
  const size_t rounded = (bytes + 63) / 64 * 64;
  data_ = std::aligned_alloc(64, rounded ? rounded : 64);
  if (!data_) throw std::bad_alloc();
  std::memset(data_, 0, rounded);
}

Buffer::~Buffer() { std::free(data_); }

const char* ShortName(lrelu_dtype_t dtype) {
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32:
      return "f32";
    case LRELU_DTYPE_FLOAT16:
      return "f16";
    case LRELU_DTYPE_BFLOAT16:
      return "bf16";
    case LRELU_DTYPE_FLOAT64:
      return "f64";
  }
  return "?";
}

bool ParseDtype(const std::string& name, lrelu_dtype_t* dtype) {
  for (lrelu_dtype_t d : {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16,
                          LRELU_DTYPE_BFLOAT16, LRELU_DTYPE_FLOAT64}) {
    if (name == ShortName(d) || name == lrelu_dtype_name(d)) {
      *dtype = d;
      return true;
    }
  }
  return false;
}

void FillUniform(lrelu_dtype_t dtype, void* x, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // Large buffers repeat a random block: generating 64 Mi values one by one
  // would take longer than timing them, and the values only set the branch
  // mix, which a 64 Ki-element period keeps random enough.
  const size_t period = 1 << 16;
  for (size_t i = 0; i < n && i < period; ++i) {
    SetBits(dtype, x, i, FromDouble(dtype, u(rng)));
  }
  const size_t block = period * Size(dtype);
  auto bytes = static_cast<char*>(x);
  for (size_t done = block; done < n * Size(dtype); done += block) {
    const size_t left = n * Size(dtype) - done;
    std::memcpy(bytes + done, bytes, left < block ? left : block);
  }
}

void FillWithSpecials(lrelu_dtype_t dtype, void* x, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  const Layout l = LayoutOf(dtype);
  const uint64_t quiet = l.exp | ((l.frac + 1) >> 1);  // top fraction bit
  const uint64_t specials[] = {
      0,                            // +0
      l.sign,                       // -0
      l.exp,                        // +inf
      l.sign | l.exp,               // -inf
      quiet,                        // +qNaN
      l.sign | quiet,               // -qNaN
      l.exp | ((l.frac + 1) >> 2),  // sNaN
      l.frac,                       // largest +subnormal
      l.sign | l.frac,              // largest -subnormal
      l.sign | 1,                   // smallest -subnormal
  };
  std::uniform_int_distribution<size_t> pick(0, 3 * std::size(specials) - 1);
  for (size_t i = 0; i < n; ++i) {
    const size_t k = pick(rng);
    SetBits(dtype, x, i,
            k < std::size(specials) ? specials[k] : FromDouble(dtype, u(rng)));
  }
}

std::string Diff::ToString() const {
  if (exact()) return "bit-exact";
  std::string s = std::to_string(value) + " value diffs (max " +
                  std::to_string(max_ulp) + " ulp), " +
                  std::to_string(nan_bits) + " NaN-bit diffs, " +
                  std::to_string(zero_sign) + " zero-sign diffs";
  if (nan_lost) s += ", " + std::to_string(nan_lost) + " NaN lost or made";
  return s + " of " + std::to_string(n);
}

Diff Compare(lrelu_dtype_t dtype, const void* expected, const void* actual,
             size_t n) {
  const Layout l = LayoutOf(dtype);
  Diff d;
  d.n = n;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t e = Bits(dtype, expected, i), a = Bits(dtype, actual, i);
    if (e == a) continue;
    const bool en = IsNan(l, e), an = IsNan(l, a);
    if (en && an) {
      ++d.nan_bits;
    } else if (en || an) {
      ++d.nan_lost;
    } else if (((e | a) & ~l.sign) == 0) {
      ++d.zero_sign;
    } else {
      ++d.value;
      const int64_t ulp = Ordered(l, e) - Ordered(l, a);
      const uint64_t mag = static_cast<uint64_t>(ulp < 0 ? -ulp : ulp);
      if (mag > d.max_ulp) d.max_ulp = mag;
    }
  }
  return d;
}

}  // namespace lrelu_bench
