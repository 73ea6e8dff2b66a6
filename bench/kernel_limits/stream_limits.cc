// What two threads can stream out of cache for float16 on an AVX-512 CPU,
// next to lrelu's kernel: 64 Mi elements (128 MiB in, 128 MiB out), each
// thread pinned to its own CPU and given half, all on the same buffers,
// rounds interleaved. Rows: a 64-byte non-temporal copy; a hand-written
// float16 loop (widen, multiply, max, narrow, non-temporal store) with and
// without prefetching x ahead, storing 32-byte halves or whole 64-byte
// lines; lrelu_leaky_relu with one thread on each pinned half; and
// lrelu's own two-thread call. Medians (and extremes) over the rounds, as
// the copy's bandwidth over each row's (docs/performance-avx512.md, the
// 64 Mi rows). Not a test: the loops are exact only for alpha in (0, 1]
// and inputs without signalling NaNs.
//
//   stream_limits [rounds=9]
#include <cpuid.h>
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "bench_copy.h"
#include "hwy/aligned_allocator.h"
#include "loops_avx512.h"
#include "lrelu/lrelu.h"
#include "worker_pool.h"

namespace {

#define LRELU_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512vl,f16c"), noinline))

using Loop = void (*)(const uint16_t* x, uint16_t* y, size_t n);

// The harness's own non-temporal copy (bench_copy.h), the pages' baseline.
void NonTemporalCopy(const uint16_t* x, uint16_t* y, size_t n) {
  lrelu_bench::NtCopyFunction()(y, x, n * sizeof(uint16_t));
}

// 16 float16 values widened, times alpha, max, narrowed in a register (not
// into memory).
__attribute__((target("avx512f,avx512bw,avx512vl,f16c"),
               always_inline)) inline __m256i
Narrowed(const uint16_t* p, __m512 alpha) {
  const __m512 f =
      _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(p)));
  __m256i h = _mm512_cvtps_ph(_mm512_max_ps(_mm512_mul_ps(f, alpha), f),
                              _MM_FROUND_TO_NEAREST_INT);
  asm("" : "+v"(h));
  return h;
}

// kAhead: bytes of x prefetched ahead (0: none). kLines: 64-byte stores
// (two narrowed vectors joined) instead of 32-byte halves.
template <size_t kAhead, bool kLines>
LRELU_AVX512 void Float16(const uint16_t* x, uint16_t* y, size_t n) {
  const __m512 alpha = _mm512_set1_ps(0.01f);
  for (size_t i = 0; i < n; i += 64) {
    if (kAhead != 0 && i + kAhead / 2 + 64 <= n) {
      _mm_prefetch(reinterpret_cast<const char*>(x + i + kAhead / 2),
                   _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(x + i + kAhead / 2 + 32),
                   _MM_HINT_T0);
    }
    for (size_t k = 0; k < 64; k += 32) {
      const __m256i h0 = Narrowed(x + i + k, alpha);
      const __m256i h1 = Narrowed(x + i + k + 16, alpha);
      if (kLines) {
        _mm512_stream_si512(
            reinterpret_cast<__m512i*>(y + i + k),
            _mm512_inserti64x4(_mm512_castsi256_si512(h0), h1, 1));
      } else {
        _mm256_stream_si256(reinterpret_cast<__m256i*>(y + i + k), h0);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(y + i + k + 16), h1);
      }
    }
  }
  _mm_sfence();
}

lrelu_tensor_t Half(const uint16_t* p, const int64_t* shape) {
  return {const_cast<uint16_t*>(p), LRELU_DTYPE_FLOAT16, 1, shape, nullptr};
}

// lrelu on one thread: what its kernel streams on a pinned CPU.
void LreluOneThread(const uint16_t* x, uint16_t* y, size_t n) {
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.threads = 1;
  const int64_t shape[1] = {static_cast<int64_t>(n)};
  const lrelu_tensor_t tx = Half(x, shape);
  const lrelu_tensor_t ty = Half(y, shape);
  if (lrelu_leaky_relu(&tx, 0.01, &ty, &o) != LRELU_STATUS_OK) {
    std::abort();
  }
}

void Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

// CPUID leaf 1, ECX bit 29 (clang 14's __builtin_cpu_supports does not
// know "f16c").
bool HasF16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && ((ecx >> 29) & 1u) != 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (!lrelu::bench::HasAvx512() || !HasF16c()) {
    std::printf("stream_limits: needs AVX-512 F/BW/VL and F16C\n");
    return 0;
  }
  if (std::thread::hardware_concurrency() < 2) {
    std::printf("stream_limits: needs two CPUs\n");
    return 0;
  }
  const int rounds =
      argc > 1
          ? std::max(1, static_cast<int>(std::strtol(argv[1], nullptr, 10)))
          : 9;
  const size_t n = size_t{64} << 20;
  auto x = hwy::AllocateAligned<uint16_t>(n);
  auto y = hwy::AllocateAligned<uint16_t>(n);
  for (size_t i = 0; i < n; ++i) {  // finite values, both signs
    x[i] = static_cast<uint16_t>((((i * 2654435761u) >> 16) & 0x7bff) |
                                 ((i & 1) << 15));
  }
  std::memset(y.get(), 0, n * sizeof(uint16_t));

  // lrelu's pool, started before this thread is pinned: its workers take
  // the affinity of the thread that starts them.
  lrelu_options_t two;
  lrelu_options_init(&two);
  two.threads = 2;
  const int64_t shape[1] = {static_cast<int64_t>(n)};
  const lrelu_tensor_t tx = Half(x.get(), shape);
  const lrelu_tensor_t ty = Half(y.get(), shape);
  if (lrelu_leaky_relu(&tx, 0.01, &ty, &two) != LRELU_STATUS_OK) {
    return 1;
  }

  struct Row {
    const char* name;
    Loop loop;  // null: lrelu's own two-thread call
  };
  const Row rows[] = {
      {"non-temporal copy (64-byte stores)", NonTemporalCopy},
      {"float16 loop, 32-byte stores, no prefetch", Float16<0, false>},
      {"float16 loop, 32-byte stores, prefetch 2 KiB", Float16<2048, false>},
      {"float16 loop, 64-byte stores, prefetch 2 KiB", Float16<2048, true>},
      {"float16 loop, 64-byte stores, prefetch 4 KiB", Float16<4096, true>},
      {"lrelu, one thread on each pinned half", LreluOneThread},
      {"lrelu, its own two threads", nullptr},
  };
  constexpr size_t kRows = sizeof(rows) / sizeof(rows[0]);

  // Half each on the caller and one worker (which sleeps between rounds, so
  // it takes no CPU from lrelu's pool), pinned to CPUs 0 and 1.
  lrelu_bench::WorkerPool pool(1);
  pool.Run(2, [](size_t i) { Pin(static_cast<int>(i)); });

  std::vector<std::vector<double>> ms(kRows);
  for (int r = 0; r < rounds; ++r) {
    for (size_t k = 0; k < kRows; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      if (rows[k].loop != nullptr) {
        pool.Run(2, [&](size_t i) {
          rows[k].loop(x.get() + i * n / 2, y.get() + i * n / 2, n / 2);
        });
      } else if (lrelu_leaky_relu(&tx, 0.01, &ty, &two) != LRELU_STATUS_OK) {
        return 1;
      }
      const auto t1 = std::chrono::steady_clock::now();
      ms[k].push_back(
          std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
  }

  std::vector<double> median(kRows);
  for (size_t k = 0; k < kRows; ++k) {
    std::sort(ms[k].begin(), ms[k].end());
    median[k] = ms[k][ms[k].size() / 2];
  }
  std::printf(
      "64 Mi float16, 2 threads, %d rounds; bandwidth counts read + "
      "write\n",
      rounds);
  std::printf("%-48s %9s %9s %9s %8s %s\n", "row", "median ms", "min", "max",
              "GB/s", "copy's time / row's");
  for (size_t k = 0; k < kRows; ++k) {
    std::printf("%-48s %9.2f %9.2f %9.2f %8.1f %.3f\n", rows[k].name, median[k],
                ms[k].front(), ms[k].back(),
                4.0 * static_cast<double>(n) / median[k] / 1e6,
                median[0] / median[k]);
  }
  return 0;
}
