// The copy baselines every lrelu timing is compared with, defined once for
// `lrelu bench`, `lrelu demo`, lrelu_bench_peers and lrelu_gbench: glibc's
// memcpy, a plain copy loop, a SIMD load/store loop of the widest vectors
// this CPU has, and the same loop with non-temporal stores (the out-of-place
// limit once the output no longer fits in cache: no read-for-ownership of
// the output lines). How a copy is split over threads is here too; the
// threads themselves are the caller's (worker_pool.h, or pthreadpool in
// bench/cpp).
#ifndef LRELU_BENCH_COMMON_BENCH_COPY_H_
#define LRELU_BENCH_COMMON_BENCH_COPY_H_

#include <cstddef>

namespace lrelu_bench {

using CopyFunction = void (*)(void* dst, const void* src, std::size_t bytes);

// glibc's memcpy, as a CopyFunction (the first baseline).
void MemcpyCopy(void* dst, const void* src, std::size_t bytes);

// A plain copy loop over 64-byte blocks that the compiler turns into
// vector loads and stores. It is the second baseline because glibc's
// memcpy picks `rep movsb` for large sizes, which some virtual machines run
// far below the memory's speed; a kernel beating "memcpy" there says little.
void CopyLoop(void* dst, const void* src, std::size_t bytes);

// The loadu/storeu loop of 4 vectors per step, AVX-512 where the CPU has
// it, else AVX2; nullptr on a CPU without AVX2 (or not x86). The choice is
// made here once, so a timed call pays no dispatch.
CopyFunction SimdCopyFunction();
const char* SimdCopyName();

// The same loop with non-temporal (streaming) stores, after a memcpy of the
// bytes before dst's first 64-byte boundary; nullptr as SimdCopyFunction.
CopyFunction NtCopyFunction();
const char* NtCopyName();

// The baseline of PReLU's dalpha (lrelu_prelu_bench, lrelu_dalpha_limits):
// x and dy, `bytes` each, read once as 64-bit words (XORed pairwise and
// summed, so the reads are not optimized away).
void ReadXAndDy(const void* x, const void* dy, std::size_t bytes);

// Bytes [*begin, *end) that task `task` of `tasks` copies: whole 64-byte
// blocks, ceil(blocks / tasks) per task, so no two tasks share a cache line.
void CopyTaskRange(std::size_t task, std::size_t tasks, std::size_t bytes,
                   std::size_t* begin, std::size_t* end);

}  // namespace lrelu_bench

#endif  // LRELU_BENCH_COMMON_BENCH_COPY_H_
