#include "cpu/unaligned.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace lrelu::cpu {
namespace {

constexpr size_t kTileBytes = 4096;

// size is a power of two (an element size): a mask, not a division.
bool Aligned(const void* p, size_t size) {
  return (reinterpret_cast<uintptr_t>(p) & (size - 1)) == 0;
}

// Kept out of line: its 12 KiB of tiles (and the stack probes they cost)
// would otherwise be paid by every aligned small call too.
__attribute__((noinline)) void RunMisaligned(KernelFn kernel,
                                             const KernelArgs& args,
                                             size_t elem_size);

}  // namespace

void RunContiguous(KernelFn kernel, const KernelArgs& args, size_t elem_size) {
  if (Aligned(args.v, elem_size) && Aligned(args.s, elem_size) &&
      Aligned(args.out, elem_size)) {
    kernel(args);
    return;
  }
  RunMisaligned(kernel, args, elem_size);
}

namespace {

void RunMisaligned(KernelFn kernel, const KernelArgs& args, size_t elem_size) {
  alignas(64) unsigned char tile_v[kTileBytes];
  alignas(64) unsigned char tile_s[kTileBytes];
  alignas(64) unsigned char tile_out[kTileBytes];
  const size_t per_tile = kTileBytes / elem_size;
  const auto* v = static_cast<const unsigned char*>(args.v);
  const auto* s = static_cast<const unsigned char*>(args.s);
  auto* out = static_cast<unsigned char*>(args.out);
  for (size_t i = 0; i < args.n; i += per_tile) {
    const size_t count = std::min(per_tile, args.n - i);
    const size_t bytes = count * elem_size;
    const size_t offset = i * elem_size;
    std::memcpy(tile_v, v + offset, bytes);
    std::memcpy(tile_s, s + offset, bytes);
    KernelArgs tile = args;
    tile.v = tile_v;
    tile.s = tile_s;
    tile.out = tile_out;
    tile.n = count;
    kernel(tile);
    // memmove: out may be v or s exactly (in place); the tile was read first.
    std::memmove(out + offset, tile_out, bytes);
  }
}

}  // namespace

}  // namespace lrelu::cpu
