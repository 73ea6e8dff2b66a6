#include "cpu/strided.h"

#include <algorithm>
#include <cstring>

#include "cpu/unaligned.h"

namespace lrelu::cpu {
namespace {

// Elements per tile: three tiles of float64 stay within L1.
constexpr int64_t kTile = 512;

template <size_t kSize>
void Gather(const char* from, int64_t stride, char* to, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(to + i * kSize, from + i * stride * int64_t{kSize}, kSize);
  }
}

template <size_t kSize>
void Scatter(const char* from, char* to, int64_t stride, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(to + i * stride * int64_t{kSize}, from + i * kSize, kSize);
  }
}

void GatherAny(size_t size, const char* from, int64_t stride, char* to,
               int64_t count) {
  switch (size) {
    case 2:
      return Gather<2>(from, stride, to, count);
    case 4:
      return Gather<4>(from, stride, to, count);
    default:
      return Gather<8>(from, stride, to, count);
  }
}

void ScatterAny(size_t size, const char* from, char* to, int64_t stride,
                int64_t count) {
  switch (size) {
    case 2:
      return Scatter<2>(from, to, stride, count);
    case 4:
      return Scatter<4>(from, to, stride, count);
    default:
      return Scatter<8>(from, to, stride, count);
  }
}

// One row: `count` elements along the innermost dimension.
void RunRow(const Problem& p, KernelFn kernel, KernelArgs args, const char* v,
            const char* s, char* out, int64_t count) {
  const int inner = p.rank - 1;
  const int64_t sv = p.v_strides[inner];
  const int64_t ss = p.s_strides[inner];
  const int64_t so = p.out_strides[inner];
  const bool forward = p.op == Op::kForward;
  if (sv == 1 && ss == 1 && so == 1) {
    args.v = v;
    args.s = s;
    args.out = out;
    args.n = static_cast<size_t>(count);
    RunContiguous(kernel, args, p.elem_size);
    return;
  }
  const size_t size = p.elem_size;
  alignas(64) char tile_v[kTile * 8];
  alignas(64) char tile_s[kTile * 8];
  alignas(64) char tile_out[kTile * 8];
  for (int64_t i = 0; i < count; i += kTile) {
    const int64_t c = std::min(kTile, count - i);
    const char* row_v = v + i * sv * static_cast<int64_t>(size);
    const char* row_s = s + i * ss * static_cast<int64_t>(size);
    char* row_out = out + i * so * static_cast<int64_t>(size);
    if (sv != 1) {
      GatherAny(size, row_v, sv, tile_v, c);
      row_v = tile_v;
    }
    if (forward) {
      row_s = row_v;
    } else if (ss != 1) {
      GatherAny(size, row_s, ss, tile_s, c);
      row_s = tile_s;
    }
    args.v = row_v;
    args.s = row_s;
    args.out = so == 1 ? row_out : tile_out;
    args.n = static_cast<size_t>(c);
    RunContiguous(kernel, args, size);
    if (so != 1) ScatterAny(size, tile_out, row_out, so, c);
  }
}

}  // namespace

void RunStrided(const Problem& p, KernelFn kernel, const KernelArgs& args,
                int64_t begin, int64_t end) {
  if (begin >= end) return;
  const int inner = p.rank - 1;
  const int64_t size = static_cast<int64_t>(p.elem_size);
  int64_t index[kMaxDims];
  int64_t rest = begin;
  int64_t ov = 0, os = 0, oo = 0;  // element offsets of the current position
  for (int k = inner; k >= 0; --k) {
    index[k] = rest % p.shape[k];
    rest /= p.shape[k];
    ov += index[k] * p.v_strides[k];
    os += index[k] * p.s_strides[k];
    oo += index[k] * p.out_strides[k];
  }
  const char* v = static_cast<const char*>(p.v);
  const char* s = static_cast<const char*>(p.s);
  char* out = static_cast<char*>(p.out);
  for (int64_t pos = begin; pos < end;) {
    const int64_t count = std::min(p.shape[inner] - index[inner], end - pos);
    RunRow(p, kernel, args, v + ov * size, s + os * size, out + oo * size,
           count);
    pos += count;
    index[inner] += count;
    ov += count * p.v_strides[inner];
    os += count * p.s_strides[inner];
    oo += count * p.out_strides[inner];
    // Carry into the outer dimensions.
    for (int k = inner; k > 0 && index[k] == p.shape[k]; --k) {
      ov += p.v_strides[k - 1] - p.shape[k] * p.v_strides[k];
      os += p.s_strides[k - 1] - p.shape[k] * p.s_strides[k];
      oo += p.out_strides[k - 1] - p.shape[k] * p.out_strides[k];
      index[k] = 0;
      ++index[k - 1];
    }
  }
}

}  // namespace lrelu::cpu
