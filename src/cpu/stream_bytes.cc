#include "cpu/stream_bytes.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace lrelu::cpu {
namespace {

constexpr size_t kDefaultBytes = size_t{8} << 20;
constexpr size_t kMinBytes = size_t{512} << 10;

#if defined(__x86_64__) || defined(__i386__)
// One core's L2 from CPUID leaf 4 (Intel's deterministic cache
// parameters): ways * partitions * line size * sets.
size_t IntelL2Bytes() {
  for (unsigned sub = 0; sub < 16; ++sub) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid_count(4, sub, &a, &b, &c, &d) == 0) return 0;
    const unsigned type = a & 31u;  // 0: no more caches
    if (type == 0) return 0;
    const unsigned level = (a >> 5) & 7u;
    if (level == 2 && type != 2) {  // data or unified, not instruction
      const size_t ways = ((b >> 22) & 0x3ffu) + 1;
      const size_t partitions = ((b >> 12) & 0x3ffu) + 1;
      const size_t line = (b & 0xfffu) + 1;
      const size_t sets = size_t{c} + 1;
      return ways * partitions * line * sets;
    }
  }
  return 0;
}
#endif

}  // namespace

CacheFacts ThisCpu() {
  CacheFacts facts;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return facts;
  char vendor[12];
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  if (std::memcmp(vendor, "GenuineIntel", 12) != 0 || a < 7) return facts;
  unsigned a7 = 0, b7 = 0, c7 = 0, d7 = 0;
  __get_cpuid_count(7, 0, &a7, &b7, &c7, &d7);
  facts.intel_avx512 = ((b7 >> 16) & 1u) != 0;
  facts.l2_bytes = a >= 4 ? IntelL2Bytes() : 0;
#endif
  return facts;
}

size_t StreamBytesFor(const CacheFacts& facts) {
  if (!facts.intel_avx512 || facts.l2_bytes == 0) return kDefaultBytes;
  return std::clamp(facts.l2_bytes, kMinBytes, kDefaultBytes);
}

size_t StreamBytes() {
  static const size_t bytes = StreamBytesFor(ThisCpu());
  return bytes;
}

}  // namespace lrelu::cpu
