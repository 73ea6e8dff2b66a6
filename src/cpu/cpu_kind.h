// Which microarchitecture runs, where a tuning choice depends on it (and
// not only on the instruction set Highway dispatches on).
#ifndef LRELU_SRC_CPU_CPU_KIND_H_
#define LRELU_SRC_CPU_CPU_KIND_H_

namespace lrelu::cpu {

// AMD Zen 1 or Zen+ (family 23 below model 0x30: GCC's "znver1"), whose
// vector units are 128 bits wide: 256-bit operations take two, so the
// 16-bit kernels cost three to four times the copy's time per byte in
// cache (bench/report/limits-amd-zen1.md). Read once.
bool IsZen1();

// An AMD CPU (where LDMXCSR is cheap: kernels.h, ClearInvalidFlagFrom).
// Read once.
bool IsAmd();

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_CPU_KIND_H_
