#include "bits.h"

#include <cstring>

namespace lrelu::contract {

std::optional<DType> DTypeFromName(std::string_view name) {
  for (DType d :
       {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64}) {
    if (name == dtype_name(d)) return d;
  }
  return std::nullopt;
}

uint64_t ParseBits(std::string_view hex, DType dtype) {
  const std::size_t digits = 2 * dtype_size(dtype);
  if (hex.size() != digits) {
    throw Error(LRELU_STATUS_INVALID_ARGUMENT,
                "bit pattern '" + std::string(hex) + "' of " +
                    dtype_name(dtype) + " needs " + std::to_string(digits) +
                    " hex digits");
  }
  uint64_t bits = 0;
  for (char c : hex) {
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else {
      throw Error(LRELU_STATUS_INVALID_ARGUMENT,
                  "bit pattern '" + std::string(hex) + "' is not hex");
    }
    bits = (bits << 4) | static_cast<uint64_t>(v);
  }
  return bits;
}

std::string FormatBits(uint64_t bits, DType dtype) {
  static const char kDigits[] = "0123456789abcdef";
  const std::size_t digits = 2 * dtype_size(dtype);
  std::string hex(digits, '0');
  for (std::size_t i = 0; i < digits; ++i) {
    hex[digits - 1 - i] = kDigits[(bits >> (4 * i)) & 15];
  }
  return hex;
}

// Through the unsigned type of the element's width, so the bits land in
// the element whatever the host's byte order.
uint64_t LoadBits(const void* base, std::size_t i, DType dtype) {
  const auto* p = static_cast<const unsigned char*>(base);
  switch (dtype_size(dtype)) {
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

void StoreBits(void* base, std::size_t i, uint64_t bits, DType dtype) {
  auto* p = static_cast<unsigned char*>(base);
  switch (dtype_size(dtype)) {
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

bool IsNaNBits(uint64_t bits, DType dtype) {
  int exponent_bits = 8, mantissa_bits = 23;
  switch (dtype) {
    case DType::kFloat16:
      exponent_bits = 5;
      mantissa_bits = 10;
      break;
    case DType::kBFloat16:
      exponent_bits = 8;
      mantissa_bits = 7;
      break;
    case DType::kFloat64:
      exponent_bits = 11;
      mantissa_bits = 52;
      break;
    case DType::kFloat32:
      break;
  }
  const uint64_t exponent_mask = (uint64_t{1} << exponent_bits) - 1;
  const uint64_t mantissa_mask = (uint64_t{1} << mantissa_bits) - 1;
  return ((bits >> mantissa_bits) & exponent_mask) == exponent_mask &&
         (bits & mantissa_mask) != 0;
}

}  // namespace lrelu::contract
