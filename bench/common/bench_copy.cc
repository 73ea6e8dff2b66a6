#include "bench_copy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LRELU_BENCH_X86 1
#endif

namespace lrelu_bench {
namespace {

#ifdef LRELU_BENCH_X86
// The stores of the two loops: plain (storeu) or non-temporal (stream).
__attribute__((target("avx512f"))) inline void Store512(__m512i* p, __m512i v) {
  _mm512_storeu_si512(p, v);
}
__attribute__((target("avx512f"))) inline void Stream512(__m512i* p,
                                                         __m512i v) {
  _mm512_stream_si512(p, v);
}
__attribute__((target("avx2"))) inline void Store256(__m256i* p, __m256i v) {
  _mm256_storeu_si256(p, v);
}
__attribute__((target("avx2"))) inline void Stream256(__m256i* p, __m256i v) {
  _mm256_stream_si256(p, v);
}

// 4 vectors a step from byte i while a whole step fits; returns where it
// stopped. Store is inlined (a template argument), so each copy below is
// the loop it was written as.
template <void (*Store)(__m512i*, __m512i)>
__attribute__((target("avx512f"))) std::size_t Avx512Loop(char* d,
                                                          const char* s,
                                                          std::size_t i,
                                                          std::size_t bytes) {
  for (; i + 256 <= bytes; i += 256) {
    __m512i a = _mm512_loadu_si512(s + i);
    __m512i b = _mm512_loadu_si512(s + i + 64);
    __m512i c = _mm512_loadu_si512(s + i + 128);
    __m512i e = _mm512_loadu_si512(s + i + 192);
    Store(reinterpret_cast<__m512i*>(d + i), a);
    Store(reinterpret_cast<__m512i*>(d + i + 64), b);
    Store(reinterpret_cast<__m512i*>(d + i + 128), c);
    Store(reinterpret_cast<__m512i*>(d + i + 192), e);
  }
  return i;
}

template <void (*Store)(__m256i*, __m256i)>
__attribute__((target("avx2"))) std::size_t Avx2Loop(char* d, const char* s,
                                                     std::size_t i,
                                                     std::size_t bytes) {
  for (; i + 128 <= bytes; i += 128) {
    auto ps = reinterpret_cast<const __m256i*>(s + i);
    auto pd = reinterpret_cast<__m256i*>(d + i);
    __m256i a = _mm256_loadu_si256(ps);
    __m256i b = _mm256_loadu_si256(ps + 1);
    __m256i c = _mm256_loadu_si256(ps + 2);
    __m256i e = _mm256_loadu_si256(ps + 3);
    Store(pd, a);
    Store(pd + 1, b);
    Store(pd + 2, c);
    Store(pd + 3, e);
  }
  return i;
}

__attribute__((target("avx512f"))) void Avx512Copy(void* dst, const void* src,
                                                   std::size_t bytes) {
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  const std::size_t i = Avx512Loop<Store512>(d, s, 0, bytes);
  if (i < bytes) std::memcpy(d + i, s + i, bytes - i);
}

__attribute__((target("avx2"))) void Avx2Copy(void* dst, const void* src,
                                              std::size_t bytes) {
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  const std::size_t i = Avx2Loop<Store256>(d, s, 0, bytes);
  if (i < bytes) std::memcpy(d + i, s + i, bytes - i);
}

// Bytes before the first 64-byte boundary of dst, copied with memcpy, so that
// the streaming stores are aligned (a requirement of the instruction).
std::size_t HeadBytes(const void* dst, std::size_t bytes) {
  const std::size_t misalign = reinterpret_cast<uintptr_t>(dst) % 64;
  const std::size_t head = misalign ? 64 - misalign : 0;
  return head < bytes ? head : bytes;
}

__attribute__((target("avx512f"))) void Avx512NtCopy(void* dst, const void* src,
                                                     std::size_t bytes) {
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  const std::size_t head = HeadBytes(dst, bytes);
  std::memcpy(d, s, head);
  const std::size_t i = Avx512Loop<Stream512>(d, s, head, bytes);
  _mm_sfence();  // Streaming stores are weakly ordered; publish them.
  if (i < bytes) std::memcpy(d + i, s + i, bytes - i);
}

__attribute__((target("avx2"))) void Avx2NtCopy(void* dst, const void* src,
                                                std::size_t bytes) {
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  const std::size_t head = HeadBytes(dst, bytes);
  std::memcpy(d, s, head);
  const std::size_t i = Avx2Loop<Stream256>(d, s, head, bytes);
  _mm_sfence();
  if (i < bytes) std::memcpy(d + i, s + i, bytes - i);
}

bool HasAvx512() { return __builtin_cpu_supports("avx512f"); }
bool HasAvx2() { return __builtin_cpu_supports("avx2"); }
#else
bool HasAvx512() { return false; }
#endif

}  // namespace

void MemcpyCopy(void* dst, const void* src, std::size_t bytes) {
  std::memcpy(dst, src, bytes);
}

void CopyLoop(void* dst, const void* src, std::size_t bytes) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  std::size_t i = 0;
  for (; i + 64 <= bytes; i += 64) {
    __builtin_memcpy(d + i, s + i, 64);
    // Hides the loop's shape from the optimiser, which would otherwise
    // recognise a copy and call memcpy: the very thing this is compared to.
    asm volatile("" : "+r"(i));
  }
  for (; i < bytes; ++i) {
    d[i] = s[i];
    asm volatile("" : "+r"(i));
  }
}

CopyFunction SimdCopyFunction() {
#ifdef LRELU_BENCH_X86
  if (HasAvx512()) return &Avx512Copy;
  if (HasAvx2()) return &Avx2Copy;
#endif
  return nullptr;
}

const char* SimdCopyName() {
  return HasAvx512() ? "AVX-512 loadu/storeu loop" : "AVX2 loadu/storeu loop";
}

CopyFunction NtCopyFunction() {
#ifdef LRELU_BENCH_X86
  if (HasAvx512()) return &Avx512NtCopy;
  if (HasAvx2()) return &Avx2NtCopy;
#endif
  return nullptr;
}

const char* NtCopyName() {
  return HasAvx512() ? "AVX-512 non-temporal-store loop"
                     : "AVX2 non-temporal-store loop";
}

void CopyTaskRange(std::size_t task, std::size_t tasks, std::size_t bytes,
                   std::size_t* begin, std::size_t* end) {
  const std::size_t blocks = (bytes + 63) / 64;
  const std::size_t per_task = (blocks + tasks - 1) / tasks * 64;
  *begin = std::min(bytes, task * per_task);
  *end = std::min(bytes, *begin + per_task);
}

void ReadXAndDy(const void* x, const void* dy, std::size_t bytes) {
  std::uint64_t acc[8] = {};
  const std::size_t words = bytes / 8;
  const auto* xw = static_cast<const std::uint64_t*>(x);
  const auto* dyw = static_cast<const std::uint64_t*>(dy);
  for (std::size_t i = 0; i + 8 <= words; i += 8) {
    for (int k = 0; k < 8; ++k) acc[k] += xw[i + k] ^ dyw[i + k];
  }
  std::uint64_t sum = 0;
  for (std::uint64_t a : acc) sum += a;
  volatile std::uint64_t sink = sum;
  (void)sink;
}

}  // namespace lrelu_bench
