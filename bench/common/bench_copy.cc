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
__attribute__((target("avx512f"))) void Avx512Copy(void* dst, const void* src,
                                                   std::size_t bytes) {
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  std::size_t i = 0;
  for (; i + 256 <= bytes; i += 256) {
    __m512i a = _mm512_loadu_si512(s + i);
    __m512i b = _mm512_loadu_si512(s + i + 64);
    __m512i c = _mm512_loadu_si512(s + i + 128);
    __m512i e = _mm512_loadu_si512(s + i + 192);
    _mm512_storeu_si512(d + i, a);
    _mm512_storeu_si512(d + i + 64, b);
    _mm512_storeu_si512(d + i + 128, c);
    _mm512_storeu_si512(d + i + 192, e);
  }
  if (i < bytes) std::memcpy(d + i, s + i, bytes - i);
}

__attribute__((target("avx2"))) void Avx2Copy(void* dst, const void* src,
                                              std::size_t bytes) {
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  std::size_t i = 0;
  for (; i + 128 <= bytes; i += 128) {
    auto ps = reinterpret_cast<const __m256i*>(s + i);
    auto pd = reinterpret_cast<__m256i*>(d + i);
    __m256i a = _mm256_loadu_si256(ps);
    __m256i b = _mm256_loadu_si256(ps + 1);
    __m256i c = _mm256_loadu_si256(ps + 2);
    __m256i e = _mm256_loadu_si256(ps + 3);
    _mm256_storeu_si256(pd, a);
    _mm256_storeu_si256(pd + 1, b);
    _mm256_storeu_si256(pd + 2, c);
    _mm256_storeu_si256(pd + 3, e);
  }
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
  std::size_t i = HeadBytes(dst, bytes);
  std::memcpy(d, s, i);
  for (; i + 256 <= bytes; i += 256) {
    __m512i a = _mm512_loadu_si512(s + i);
    __m512i b = _mm512_loadu_si512(s + i + 64);
    __m512i c = _mm512_loadu_si512(s + i + 128);
    __m512i e = _mm512_loadu_si512(s + i + 192);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i), a);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i + 64), b);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i + 128), c);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i + 192), e);
  }
  _mm_sfence();  // Streaming stores are weakly ordered; publish them.
  if (i < bytes) std::memcpy(d + i, s + i, bytes - i);
}

__attribute__((target("avx2"))) void Avx2NtCopy(void* dst, const void* src,
                                                std::size_t bytes) {
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  std::size_t i = HeadBytes(dst, bytes);
  std::memcpy(d, s, i);
  for (; i + 128 <= bytes; i += 128) {
    auto ps = reinterpret_cast<const __m256i*>(s + i);
    auto pd = reinterpret_cast<__m256i*>(d + i);
    __m256i a = _mm256_loadu_si256(ps);
    __m256i b = _mm256_loadu_si256(ps + 1);
    __m256i c = _mm256_loadu_si256(ps + 2);
    __m256i e = _mm256_loadu_si256(ps + 3);
    _mm256_stream_si256(pd, a);
    _mm256_stream_si256(pd + 1, b);
    _mm256_stream_si256(pd + 2, c);
    _mm256_stream_si256(pd + 3, e);
  }
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

}  // namespace lrelu_bench
