// Contract v1 forbids flush-to-zero whatever the caller's floating-point
// environment: a caller (or a framework such as XNNPACK's pthreadpool) may
// have set FTZ/DAZ or another rounding mode in MXCSR. Each task runs with
// the IEEE default and puts the caller's setting back.
#ifndef LRELU_SRC_CPU_FLOAT_ENV_H_
#define LRELU_SRC_CPU_FLOAT_ENV_H_

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace lrelu::cpu {

class DefaultFloatEnv {
 public:
#if defined(__x86_64__) || defined(__i386__)
  DefaultFloatEnv() : saved_(_mm_getcsr()) {
    // Exceptions masked, round to nearest, no FTZ/DAZ; keep the status flags.
    const unsigned wanted = 0x1f80u | (saved_ & 0x3fu);
    changed_ = wanted != saved_;
    if (changed_) _mm_setcsr(wanted);
  }
  ~DefaultFloatEnv() {
    if (changed_) _mm_setcsr(saved_);
  }

 private:
  unsigned saved_;
  bool changed_;
#else
  DefaultFloatEnv() = default;
#endif
  DefaultFloatEnv(const DefaultFloatEnv&) = delete;
  DefaultFloatEnv& operator=(const DefaultFloatEnv&) = delete;
};

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_FLOAT_ENV_H_
