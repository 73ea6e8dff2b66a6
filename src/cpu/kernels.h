// Contiguous SIMD kernels of the CPU backend, one set per Highway target.
// The plain (ISA-free) side of the Highway skeleton: kernels.cc compiles the
// kernels once per target and exports a table of them.
#ifndef LRELU_SRC_CPU_KERNELS_H_
#define LRELU_SRC_CPU_KERNELS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "lrelu/lrelu.h"

namespace lrelu::cpu {

// out[i] = s[i] < 0 ? alpha * v[i] : v[i] for i in [0, n). The forward pass
// is v == s == x; the gradient is v == dy, s == x (or y). out may equal v or
// s exactly. Pointers must be element-aligned (cpu/unaligned.h bounces
// others).
struct KernelArgs {
  const void* v;
  const void* s;
  void* out;
  size_t n;
  float alpha32;  // alpha rounded to float32 once (32- and 16-bit dtypes)
  double alpha;   // alpha as given (float64)
  lrelu_dtype_t dtype;
};

using KernelFn = void (*)(const KernelArgs& args);

// Index of a dtype in the tables below.
inline int DTypeIndex(lrelu_dtype_t dtype) {
  return static_cast<int>(dtype) - 1;
}
constexpr int kNumDTypes = 4;

// The cache line: tile edges (backend.cc) and the streamed kernels'
// prefetch step (kernels-inl.h).
constexpr size_t kLineBytes = 64;

// The kernels of one target, [dtype][stream][finite_alpha]: stream = 1
// writes out with non-temporal stores (for outputs far larger than the
// caches); finite_alpha = 1 may only be used when alpha (as float32 for the
// 32/16-bit dtypes) is finite and nonzero, so no product is NaN.
struct KernelTable {
  KernelFn forward[kNumDTypes][2][2];
  KernelFn backward[kNumDTypes][2][2];
  // float16 may take the round trip (HalfRoundTripPays, and the invalid
  // flag works on this target): PReLU's rows read it too.
  bool half_round_trip;
};

// Whether float16's forward pass for a positive alpha out of place may take
// the round trip through float32 (XNNPACK's schedule, which widens from
// memory; kernels-inl.h) rather than the exact kernel: everywhere F16C
// converts, except on Zen 1 (AMD family 23 below model 0x30), where widening
// from a register is the quicker form and the exact kernel, which widens
// from one, ran 0.92-0.96 of the round trip's time from L1 to 256 Ki
// (bench/kernel_limits) without its two reads of the MXCSR a call.
bool HalfRoundTripPays();

// From how many elements a float16 task takes the round trip when the
// caller's invalid flag is already raised: the flag is cleared for it and
// raised again after, two LDMXCSR. On AMD (Zen 3) the pair cost ~10 ns and
// the exact kernel 1.5-1.6x the round trip's time (1 Ki elements: 101 ns
// against 148; 16 Ki: 1.15 us against 1.83): 64. Elsewhere 64 Ki: on a
// Xeon the pair cost ~100 ns (16 elements took 140 ns instead of 13) and
// the exact kernel was within 4 % of the round trip. Read once.
size_t ClearInvalidFlagFrom();

// A Highway target (one HWY_* bit) compiled in and runnable on this CPU.
struct Target {
  int64_t bit;
  const char* name;
};

// Targets compiled in that this CPU runs, best first. Never empty.
const std::vector<Target>& RunnableTargets();

// Names of every target compiled in, best first, separated by spaces.
const char* CompiledTargetNames();

// The kernels compiled for `target`, which must be in RunnableTargets().
const KernelTable& KernelsFor(int64_t target);

// The slot of `target` (compiled in) in this library's HWY_EXPORT tables,
// found by asking the functions of kernels.cc's table which target each was
// compiled for (every HWY_EXPORT table of one build has the same layout), so
// a call can pick its target without touching Highway's process-wide choice.
size_t DispatchIndex(int64_t target);

// The Table of `target`, filled on first use by its slot of `fill` (the
// HWY_DISPATCH_TABLE of a Table's Fill function). The tables are static per
// Table type, so each Table type has one Fill function.
// After the first fill, a lookup is an acquire load: std::call_once goes
// through libstdc++'s thread-local state every time, which small calls felt.
template <class Table, size_t kSlots>
const Table& FilledTable(int64_t target,
                         void (*const (&fill)[kSlots])(Table*)) {
  static Table tables[kSlots];
  static std::once_flag filled[kSlots];
  static std::atomic<bool> ready[kSlots];
  const size_t index = DispatchIndex(target);
  if (!ready[index].load(std::memory_order_acquire)) {
    std::call_once(filled[index],
                   [&fill, index] { fill[index](&tables[index]); });
    ready[index].store(true, std::memory_order_release);
  }
  return tables[index];
}

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_KERNELS_H_
