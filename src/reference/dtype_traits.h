// The one table of lrelu's storage types (size, name, tag, infinity and NaN
// bits), the bit tests on them, the special values every check covers, and
// exact conversions between float32 and the 16-bit types. The library, the
// tests, the tools and the benchmarks all read this one header, so that no
// two places can disagree about what a NaN or a float16 is.
#ifndef LRELU_SRC_REFERENCE_DTYPE_TRAITS_H_
#define LRELU_SRC_REFERENCE_DTYPE_TRAITS_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "lrelu/lrelu.h"

namespace lrelu::reference {

struct DTypeTraits {
  lrelu_dtype_t tag;
  const char* name;  // as lrelu_dtype_name() and the contract spell it
  size_t size;       // bytes per element
  int exponent_bits;
  int mantissa_bits;  // stored fraction bits

  constexpr uint64_t SignBit() const { return uint64_t{1} << (8 * size - 1); }
  constexpr uint64_t MantissaMask() const {
    return (uint64_t{1} << mantissa_bits) - 1;
  }
  constexpr uint64_t PositiveInfinity() const {
    return ((uint64_t{1} << exponent_bits) - 1) << mantissa_bits;
  }
  constexpr uint64_t NegativeInfinity() const {
    return SignBit() | PositiveInfinity();
  }
  // The top fraction bit: set in a quiet NaN, clear in a signalling one.
  constexpr uint64_t QuietBit() const {
    return uint64_t{1} << (mantissa_bits - 1);
  }
  // The NaN hardware produces by default (positive, quiet, no payload).
  constexpr uint64_t QuietNaN() const {
    return PositiveInfinity() | QuietBit();
  }

  constexpr bool IsNaN(uint64_t bits) const {
    return (bits & (SignBit() - 1)) > PositiveInfinity();
  }
  constexpr bool IsQuietNaN(uint64_t bits) const {
    return IsNaN(bits) && (bits & QuietBit()) != 0;
  }
  // value < 0: negative finite values and -inf; not -0, not a NaN. This is
  // the test the kernel rule computes on ("s < 0").
  constexpr bool IsNegative(uint64_t bits) const {
    const uint64_t magnitude = bits & (SignBit() - 1);
    return (bits & SignBit()) != 0 && magnitude != 0 &&
           magnitude <= PositiveInfinity();
  }
};

inline constexpr DTypeTraits kDTypes[] = {
    {LRELU_DTYPE_FLOAT32, "float32", 4, 8, 23},
    {LRELU_DTYPE_FLOAT16, "float16", 2, 5, 10},
    {LRELU_DTYPE_BFLOAT16, "bfloat16", 2, 8, 7},
    {LRELU_DTYPE_FLOAT64, "float64", 8, 11, 52},
};

// nullptr for a tag or name that is not one of lrelu_dtype_t.
constexpr const DTypeTraits* FindDType(lrelu_dtype_t tag) {
  for (const DTypeTraits& t : kDTypes) {
    if (t.tag == tag) return &t;
  }
  return nullptr;
}
constexpr const DTypeTraits* FindDType(std::string_view name) {
  for (const DTypeTraits& t : kDTypes) {
    if (name == t.name) return &t;
  }
  return nullptr;
}
// For a dtype already known to be valid.
constexpr const DTypeTraits& Traits(lrelu_dtype_t tag) {
  return *FindDType(tag);
}

// The same tests by tag, for a dtype already known to be valid.
inline bool IsNaNBits(lrelu_dtype_t dtype, uint64_t bits) {
  return Traits(dtype).IsNaN(bits);
}
inline bool IsNegativeBits(lrelu_dtype_t dtype, uint64_t bits) {
  return Traits(dtype).IsNegative(bits);
}

// Element i of a buffer, through the unsigned type of the element's width,
// so the bits land in the element whatever the host's byte order.
inline uint64_t LoadBits(lrelu_dtype_t dtype, const void* base, size_t i) {
  const auto* p = static_cast<const unsigned char*>(base);
  switch (Traits(dtype).size) {
    case 2: {
      uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      return v;
    }
  }
}
inline void StoreBits(lrelu_dtype_t dtype, void* base, size_t i,
                      uint64_t bits) {
  auto* p = static_cast<unsigned char*>(base);
  switch (Traits(dtype).size) {
    case 2: {
      const auto v = static_cast<uint16_t>(bits);
      std::memcpy(p + 2 * i, &v, 2);
      break;
    }
    case 4: {
      const auto v = static_cast<uint32_t>(bits);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    default:
      std::memcpy(p + 8 * i, &bits, 8);
      break;
  }
}

// The special bit patterns every check covers, in the same order for each
// dtype: +-0, +-inf, quiet NaNs of both signs, signalling NaNs (with and
// without payload), a quiet NaN with payload, the smallest subnormals, the
// largest subnormals, the smallest normals, the largest finite values, +-1,
// -3, -0.01, a negative subnormal, -100.
std::vector<uint64_t> SpecialBits(lrelu_dtype_t dtype);

template <typename To, typename From>
To BitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "size mismatch");
  To to;
  std::memcpy(&to, &from, sizeof(to));
  return to;
}

// Exact conversions between float32 and the 16-bit storage types, on bits.
// Widening is exact for every pattern and keeps a NaN's payload bit for bit
// (a signalling NaN stays signalling), so a check that a lane passed through
// untouched can compare through float32. Narrowing rounds to nearest, ties
// to even, keeps subnormals and signed zeros, and turns a NaN into a quiet
// NaN of the same sign with the top payload bits, as hardware does.
uint32_t HalfBitsToFloatBits(uint16_t h);
uint16_t FloatBitsToHalfBits(uint32_t f);
inline uint32_t BFloat16BitsToFloatBits(uint16_t b) {
  return static_cast<uint32_t>(b) << 16;
}
uint16_t FloatBitsToBFloat16Bits(uint32_t f);

// The same on float values, for arithmetic.
inline float HalfToFloat(uint16_t h) {
  return BitCast<float>(HalfBitsToFloatBits(h));
}
inline uint16_t FloatToHalf(float f) {
  return FloatBitsToHalfBits(BitCast<uint32_t>(f));
}
inline float BFloat16ToFloat(uint16_t b) {
  return BitCast<float>(BFloat16BitsToFloatBits(b));
}
inline uint16_t FloatToBFloat16(float f) {
  return FloatBitsToBFloat16Bits(BitCast<uint32_t>(f));
}

}  // namespace lrelu::reference

#endif  // LRELU_SRC_REFERENCE_DTYPE_TRAITS_H_
