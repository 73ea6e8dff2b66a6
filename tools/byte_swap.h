// Reversing the byte order of elements, for .npy data whose byte order is
// not the machine's: the library computes on native values only.
#ifndef LRELU_TOOLS_BYTE_SWAP_H_
#define LRELU_TOOLS_BYTE_SWAP_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace lrelu_cli {

constexpr bool kNativeBigEndian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

// Swaps the bytes of each of the `count` elements of `item_size` (2, 4 or
// 8) bytes at `data`, which may be unaligned.
inline void SwapBytes(void* data, std::size_t count, std::size_t item_size) {
  auto* p = static_cast<unsigned char*>(data);
  for (std::size_t i = 0; i < count; ++i, p += item_size) {
    if (item_size == 2) {
      uint16_t v;
      std::memcpy(&v, p, 2);
      v = __builtin_bswap16(v);
      std::memcpy(p, &v, 2);
    } else if (item_size == 4) {
      uint32_t v;
      std::memcpy(&v, p, 4);
      v = __builtin_bswap32(v);
      std::memcpy(p, &v, 4);
    } else {
      uint64_t v;
      std::memcpy(&v, p, 8);
      v = __builtin_bswap64(v);
      std::memcpy(p, &v, 8);
    }
  }
}

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_BYTE_SWAP_H_
