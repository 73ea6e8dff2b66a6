#include "cpu/stream_bytes.h"

#include <unistd.h>

#include <algorithm>

namespace lrelu::cpu {

CacheFacts ThisCpu() {
  CacheFacts facts;
#if defined(__x86_64__) || defined(__i386__)
  // Also right when the first call comes from a static constructor.
  __builtin_cpu_init();
  facts.intel_avx512 =
      __builtin_cpu_is("intel") && __builtin_cpu_supports("avx512f");
  facts.amd_avx512 =
      __builtin_cpu_is("amd") && __builtin_cpu_supports("avx512f");
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);  // glibc: from CPUID
  facts.l2_bytes = l2 > 0 ? static_cast<size_t>(l2) : 0;
#endif
#ifdef _SC_LEVEL3_CACHE_SIZE
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  facts.l3_bytes = l3 > 0 ? static_cast<size_t>(l3) : 0;
#endif
  return facts;
}

size_t StreamBytesFor(const CacheFacts& facts) {
  constexpr size_t kDefaultBytes = size_t{8} << 20;
  if (facts.amd_avx512 && facts.l3_bytes != 0) {
    return std::clamp(facts.l3_bytes / 2, kDefaultBytes, 2 * kDefaultBytes);
  }
  if (!facts.intel_avx512 || facts.l2_bytes == 0) return kDefaultBytes;
  return std::clamp(facts.l2_bytes, kMinStreamBytes, kDefaultBytes);
}

size_t StreamBytes() {
  static const size_t bytes = StreamBytesFor(ThisCpu());
  return bytes;
}

}  // namespace lrelu::cpu
