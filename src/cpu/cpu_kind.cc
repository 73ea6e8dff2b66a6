#include "cpu/cpu_kind.h"

namespace lrelu::cpu {

bool IsZen1() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool zen1 = [] {
    __builtin_cpu_init();  // also right from a static constructor
    return __builtin_cpu_is("znver1") != 0;
  }();
  return zen1;
#else
  return false;
#endif
}

bool IsAmd() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool amd = [] {
    __builtin_cpu_init();
    return __builtin_cpu_is("amd") != 0;
  }();
  return amd;
#else
  return false;
#endif
}

}  // namespace lrelu::cpu
