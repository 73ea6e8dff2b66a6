// MXCSR's invalid-operation flag, which tells the float16 round trip
// (widen with F16C, multiply, narrow) that a signalling NaN went through
// it: F16C's widening quiets the NaN and raises the flag. Plain x86; the
// callers compile it where F16C converts.
#ifndef LRELU_SRC_CPU_INVALID_FLAG_H_
#define LRELU_SRC_CPU_INVALID_FLAG_H_

#include <cstddef>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#include <xmmintrin.h>

namespace lrelu::cpu {

// The flag (IE) in MXCSR.
constexpr unsigned kInvalidFlag = 1u;

// Clears the flag; returns whether it was set.
inline bool TakeInvalidFlag() {
  const unsigned csr = _mm_getcsr();
  if ((csr & kInvalidFlag) == 0) return false;
  _mm_setcsr(csr & ~kInvalidFlag);
  return true;
}

inline bool InvalidFlagRaised() { return (_mm_getcsr() & kInvalidFlag) != 0; }

// Raises the flag with a comparison rather than a write to MXCSR: (V)COMISS
// signals invalid for any NaN operand, and sets no other flag here. A
// write (LDMXCSR, after reading the register) cost ~4 ns per call on AMD
// Zen 3. Exceptions must be masked, as in every task (float_env.h).
inline void RaiseInvalidFlag() {
  __m128 a = _mm_castsi128_ps(_mm_cvtsi32_si128(0x7fc00000));
  __m128 b = a;
  // Two values the compiler cannot see (GCC folds a NaN compared with
  // itself), and a result it must keep: the comparison is made.
  asm volatile("" : "+x"(a));
  asm volatile("" : "+x"(b));
  const int equal = _mm_comieq_ss(a, b);
  asm volatile("" : : "r"(equal));
}

// Runs round_trip() over n elements, and exact() after it where a
// signalling NaN raised the flag (round_trip must leave the input
// untouched). When the caller's flag is already raised (any earlier invalid
// operation in the thread leaves it so: a NaN compared, inf - inf, a
// float-to-integer conversion out of range), round_trip could not tell:
// from clear_flag_from elements (ClearInvalidFlagFrom, kernels.h) the flag
// is cleared for it and raised again after; below, exact() runs alone.
// The flag ends as the caller left it, or raised by signalling NaNs.
template <class RoundTrip, class Exact>
void RoundTripOrExact(size_t n, size_t clear_flag_from,
                      const RoundTrip& round_trip, const Exact& exact) {
  const unsigned csr = _mm_getcsr();
  const bool caller_flag = (csr & kInvalidFlag) != 0;
  if (caller_flag && n < clear_flag_from) {
    exact();
    return;
  }
  if (caller_flag) _mm_setcsr(csr & ~kInvalidFlag);
  // No conversion may move above the clearing (each reads memory first),
  // and every one is before the flag is read below: the results are
  // stored, and the compiler may not move stores past these barriers.
  asm volatile("" ::: "memory");
  round_trip();
  asm volatile("" ::: "memory");
  if (InvalidFlagRaised()) {
    exact();
  } else if (caller_flag) {
    RaiseInvalidFlag();
  }
}

}  // namespace lrelu::cpu

#endif  // x86

#endif  // LRELU_SRC_CPU_INVALID_FLAG_H_
