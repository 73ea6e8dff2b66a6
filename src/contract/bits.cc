#include "bits.h"

#include "reference/dtype_traits.h"

namespace lrelu::contract {

namespace {

lrelu_dtype_t Tag(DType dtype) { return static_cast<lrelu_dtype_t>(dtype); }

}  // namespace

std::optional<DType> DTypeFromName(std::string_view name) {
  const reference::DTypeTraits* t = reference::FindDType(name);
  if (t == nullptr) return std::nullopt;
  return static_cast<DType>(t->tag);
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

// Element access and NaN tests are the dtype table's (reference/), so the
// runner and the oracle cannot disagree about a storage type.
uint64_t LoadBits(const void* base, std::size_t i, DType dtype) {
  return reference::LoadBits(Tag(dtype), base, i);
}

void StoreBits(void* base, std::size_t i, uint64_t bits, DType dtype) {
  reference::StoreBits(Tag(dtype), base, i, bits);
}

bool IsNaNBits(uint64_t bits, DType dtype) {
  return reference::IsNaNBits(Tag(dtype), bits);
}

}  // namespace lrelu::contract
