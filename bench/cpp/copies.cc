// The copy baselines every LeakyReLU is measured against: glibc memcpy, a
// plain SIMD load/store loop of the widest vectors this CPU has, and the same
// loop with non-temporal stores (the out-of-place limit once the output no
// longer fits in cache: no read-for-ownership of the output lines).
#include <immintrin.h>
#include <pthreadpool.h>

#include <cstdint>
#include <cstring>

#include "contender.h"

namespace lrelu_bench {
namespace {

using CopyFn = void (*)(void* dst, const void* src, size_t bytes);

void MemcpyCopy(void* dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}

__attribute__((target("avx512f"))) void Avx512Copy(void* dst, const void* src,
                                                   size_t bytes) {
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  size_t i = 0;
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
                                              size_t bytes) {
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  size_t i = 0;
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
size_t HeadBytes(const void* dst, size_t bytes) {
  const size_t misalign = reinterpret_cast<uintptr_t>(dst) % 64;
  const size_t head = misalign ? 64 - misalign : 0;
  return head < bytes ? head : bytes;
}

__attribute__((target("avx512f"))) void Avx512NtCopy(void* dst, const void* src,
                                                     size_t bytes) {
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  size_t i = HeadBytes(dst, bytes);
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
                                                size_t bytes) {
  auto d = static_cast<char*>(dst);
  auto s = static_cast<const char*>(src);
  size_t i = HeadBytes(dst, bytes);
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

// One pool of two threads for every 2-thread copy: the same kind of pool
// (pthreadpool) that lrelu and XNNPACK use, so its hand-off cost is typical.
pthreadpool_t CopyPool() {
  static pthreadpool_t pool = pthreadpool_create(2);
  return pool;
}

class Copy final : public Contender {
 public:
  Copy(const char* name, CopyFn fn, int threads)
      : Contender("copy", name, threads, false, true), fn_(fn) {}
  bool Supports(lrelu_dtype_t) const override { return true; }
  bool Setup(const Buffers& p, std::string*) override {
    dst_ = static_cast<char*>(p.y);
    src_ = static_cast<const char*>(p.x);
    bytes_ = p.n * lrelu_dtype_size(p.dtype);
    // Two halves split at a cache line, so the threads never share one.
    split_ = (bytes_ / 2 + 63) / 64 * 64;
    if (split_ > bytes_) split_ = bytes_;
    if (threads() > 1) CopyPool();
    return true;
  }
  void Run(size_t) override {
    if (threads() == 1) {
      fn_(dst_, src_, bytes_);
      return;
    }
    pthreadpool_parallelize_1d(
        CopyPool(),
        [](void* self, size_t task) {
          auto c = static_cast<Copy*>(self);
          const size_t begin = task ? c->split_ : 0;
          const size_t end = task ? c->bytes_ : c->split_;
          c->fn_(c->dst_ + begin, c->src_ + begin, end - begin);
        },
        this, 2, 0);
  }

 private:
  CopyFn fn_;
  char* dst_ = nullptr;
  const char* src_ = nullptr;
  size_t bytes_ = 0, split_ = 0;
};

}  // namespace

const char* SimdCopyName() {
  return HasAvx512() ? "AVX-512 loadu/storeu loop" : "AVX2 loadu/storeu loop";
}
const char* NtCopyName() {
  return HasAvx512() ? "AVX-512 non-temporal-store loop"
                     : "AVX2 non-temporal-store loop";
}

void AddCopyVariants(ContenderList* out) {
  const bool wide = HasAvx512();
  for (int threads : {1, 2}) {
    out->push_back(std::make_unique<Copy>("memcpy", &MemcpyCopy, threads));
    out->push_back(std::make_unique<Copy>(
        SimdCopyName(), wide ? &Avx512Copy : &Avx2Copy, threads));
    out->push_back(std::make_unique<Copy>(
        NtCopyName(), wide ? &Avx512NtCopy : &Avx2NtCopy, threads));
  }
}

}  // namespace lrelu_bench
