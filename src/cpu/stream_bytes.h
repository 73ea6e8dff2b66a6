// Where out-of-place outputs start to go around the caches (non-temporal
// stores): they would not stay cached anyway, and skipping the
// read-for-ownership of each output line saves a third of the memory
// traffic. The threshold is the call's output in bytes (PReLU's rows count
// as one task) and depends on which cache still pays for keeping an output,
// and on how many tasks the call has where that cache is private:
//   - AMD EPYC (AVX2, 32 MiB L3 per core complex): the L3. A call on two
//     threads with 8-16 MiB of output still fits it, inputs and output:
//     4 Mi float16 elements on 2 threads took 300 us with regular stores
//     against 350-440 us streamed.
//   - Intel Xeon with AVX-512 (2 MiB L2 per core, a mesh L3 whose bandwidth
//     per core is about the memory's): only the L2. Streaming from the L2's
//     size per task took float32 at 1 Mi elements from 1.02-1.07 to
//     0.74-0.85 of memcpy's time on one thread and from 0.54-0.62 to
//     0.37-0.45 on two, float16 and bfloat16 at 1 Mi on one thread from
//     1.07-1.14 to 0.79-0.93, and at 4 Mi on two from 0.55-0.64 to
//     0.40-0.58 (interleaved runs); at 256 Ki (inside the L2) regular
//     stores stay quicker, for the copy as well.
//   - AMD EPYC with AVX-512 (Zen 5 measured: 1 MiB L2 per core, 32 MiB
//     L3): half the L3 per task. On one thread, 8 MiB of output took
//     153-160 us for float16 (4 Mi elements) with regular stores against
//     210-258 us streamed, and float32 at 2 Mi 182-211 us against
//     227-234 us; at 16 MiB and more streaming won (float16 8 Mi: 560-596
//     us against 621-654 us; float32 6 Mi: 0.98-1.04 ms against
//     1.17-1.41 ms); two threads with 8 MiB each (float32 4 Mi) took
//     324-437 us regular against 452-487 us streamed (A/B runs through
//     the C ABI, medians of 81 calls).
//   - AMD EPYC without AVX-512 whose L3 is under 16 MiB (Zen 1 measured:
//     8 MiB L3 shared by the core complex, 512 KiB L2 per core): half the
//     L3 for the whole call, however many threads share it, since inputs
//     and outputs then fill the L3. One thread: float32 at 1 Mi elements
//     (4 MiB out) took 204-218 us streamed against 511-683 us with regular
//     stores, at 1.5 Mi 358-506 us against 1.15-1.17 ms; float16 and
//     bfloat16 at 2 Mi 612-677 us against 744-809 us; at 2 MiB of output
//     regular stores were as quick (float32) or 5-9 % quicker (float16).
//     Two threads with 4 MiB in all: float32 1 Mi 209 us against 293-388
//     us, float16 2 Mi 409 against 381-502 us, bfloat16 344 against
//     413-524 us; 8 MiB in all: float16 4 Mi 777-805 us against 1.32 ms
//     (`lrelu_small_call`, medians of 21-31 calls).
// Other CPUs keep the first rule. Bits never depend on it, only speed.
#ifndef LRELU_SRC_CPU_STREAM_BYTES_H_
#define LRELU_SRC_CPU_STREAM_BYTES_H_

#include <cstddef>

namespace lrelu::cpu {

// What the threshold is chosen from.
struct CacheFacts {
  bool intel_avx512 = false;  // GenuineIntel with AVX-512 F
  size_t l2_bytes = 0;        // one core's L2 (0: unknown)
  bool amd_avx512 = false;    // AuthenticAMD with AVX-512 F
  size_t l3_bytes = 0;        // the L3 (0: unknown)
  bool amd = false;           // AuthenticAMD, with or without AVX-512
};

// The facts of the CPU this runs on (the compiler's CPU checks, the L3
// that cpu0 shares as Linux's sysfs reports it, glibc's cache sizes; none
// where they are missing).
CacheFacts ThisCpu();

// The least StreamBytesFor() gives: calls below it never stream.
constexpr size_t kMinStreamBytes = size_t{512} << 10;

// Output bytes from which a call of `tasks` tasks (at least 1) streams, on
// a CPU with `facts`: per task, the L2's size (between kMinStreamBytes and
// 8 MiB) on Intel CPUs with AVX-512 and half the L3 (between 8 and 16 MiB)
// on AMD CPUs with AVX-512; in all, half the L3 (at least kMinStreamBytes)
// on other AMD CPUs with an L3 under 16 MiB; 8 MiB per task elsewhere.
size_t StreamBytesFor(const CacheFacts& facts, size_t tasks);

// StreamBytesFor(ThisCpu(), tasks), the CPU's facts read once.
size_t StreamBytes(size_t tasks);

// ThisCpu().l2_bytes, read once (0: unknown).
size_t L2Bytes();

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_STREAM_BYTES_H_
