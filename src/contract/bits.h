// Element bit patterns of the storage types: hex text <-> bits, reading and
// writing one element of a buffer, and NaN tests, for the case runner.
#ifndef LRELU_SRC_CONTRACT_BITS_H_
#define LRELU_SRC_CONTRACT_BITS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lrelu/lrelu.hpp"

namespace lrelu::contract {

// "float16" -> DType::kFloat16; nullopt for any other name.
std::optional<DType> DTypeFromName(std::string_view name);

// Parses exactly 2 * dtype_size(dtype) hex digits; throws lrelu::Error.
uint64_t ParseBits(std::string_view hex, DType dtype);
// Zero-padded lowercase hex, 2 * dtype_size(dtype) digits.
std::string FormatBits(uint64_t bits, DType dtype);

// Element i of a buffer of `dtype` elements.
uint64_t LoadBits(const void* base, std::size_t i, DType dtype);
void StoreBits(void* base, std::size_t i, uint64_t bits, DType dtype);

bool IsNaNBits(uint64_t bits, DType dtype);

}  // namespace lrelu::contract

#endif  // LRELU_SRC_CONTRACT_BITS_H_
