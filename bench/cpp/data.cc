#include "data.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <random>
#include <vector>

#include "reference/dtype_traits.h"

namespace lrelu_bench {
namespace {

using lrelu::reference::DTypeTraits;
using lrelu::reference::Traits;

size_t Size(lrelu_dtype_t dtype) { return Traits(dtype).size; }

uint64_t FromDouble(lrelu_dtype_t dtype, double v) {
  const auto f = static_cast<float>(v);
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32:
      return lrelu::reference::BitCast<uint32_t>(f);
    case LRELU_DTYPE_FLOAT64:
      return lrelu::reference::BitCast<uint64_t>(v);
    case LRELU_DTYPE_FLOAT16:
      return lrelu::reference::FloatToHalf(f);
    case LRELU_DTYPE_BFLOAT16:
      return lrelu::reference::FloatToBFloat16(f);
  }
  return 0;
}

// Sign-magnitude bits to a monotonic integer, so ulps are a subtraction.
int64_t Ordered(const DTypeTraits& t, uint64_t v) {
  const uint64_t mag = v & ~t.SignBit();
  return (v & t.SignBit()) ? -static_cast<int64_t>(mag)
                           : static_cast<int64_t>(mag);
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
  for (const DTypeTraits& t : lrelu::reference::kDTypes) {
    if (name == ShortName(t.tag) || name == t.name) {
      *dtype = t.tag;
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
    lrelu::reference::StoreBits(dtype, x, i, FromDouble(dtype, u(rng)));
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
  // The dtype table's special values, each about as often as in the
  // tests: one element in three is special.
  const std::vector<uint64_t> specials = lrelu::reference::SpecialBits(dtype);
  std::uniform_int_distribution<size_t> pick(0, 3 * specials.size() - 1);
  for (size_t i = 0; i < n; ++i) {
    const size_t k = pick(rng);
    lrelu::reference::StoreBits(
        dtype, x, i,
        k < specials.size() ? specials[k] : FromDouble(dtype, u(rng)));
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
  const DTypeTraits& t = Traits(dtype);
  Diff d;
  d.n = n;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t e = lrelu::reference::LoadBits(dtype, expected, i);
    const uint64_t a = lrelu::reference::LoadBits(dtype, actual, i);
    if (e == a) continue;
    const bool en = t.IsNaN(e), an = t.IsNaN(a);
    if (en && an) {
      ++d.nan_bits;
    } else if (en || an) {
      ++d.nan_lost;
    } else if (((e | a) & ~t.SignBit()) == 0) {
      ++d.zero_sign;
    } else {
      ++d.value;
      const int64_t ulp = Ordered(t, e) - Ordered(t, a);
      const uint64_t mag = static_cast<uint64_t>(ulp < 0 ? -ulp : ulp);
      if (mag > d.max_ulp) d.max_ulp = mag;
    }
  }
  return d;
}

}  // namespace lrelu_bench
