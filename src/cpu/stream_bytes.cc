#include "cpu/stream_bytes.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "cpu/cpu_kind.h"

namespace lrelu::cpu {
namespace {

// The L3 that cpu0 shares with its neighbours, as Linux reads it from
// CPUID's cache leaves (sysfs); 0 when not found. glibc's sysconf can give
// a whole socket's instead: 64 MiB on a Zen 1 EPYC whose core complex, the
// cache its threads actually share, has 8 MiB.
size_t SysfsL3Bytes() {
  const std::string base = "/sys/devices/system/cpu/cpu0/cache/index";
  for (int i = 0; i < 8; ++i) {
    std::ifstream level(base + std::to_string(i) + "/level");
    int value = 0;
    if (!(level >> value)) return 0;
    if (value != 3) continue;
    std::ifstream size(base + std::to_string(i) + "/size");
    size_t amount = 0;
    char unit = 0;
    if (!(size >> amount)) return 0;
    size >> unit;
    if (unit == 'K') return amount << 10;
    if (unit == 'M') return amount << 20;
    return 0;
  }
  return 0;
}

}  // namespace

CacheFacts ThisCpu() {
  CacheFacts facts;
#if defined(__x86_64__) || defined(__i386__)
  // Also right when the first call comes from a static constructor.
  __builtin_cpu_init();
  facts.intel_avx512 =
      __builtin_cpu_is("intel") && __builtin_cpu_supports("avx512f");
  facts.amd = IsAmd();
  facts.amd_avx512 = facts.amd && __builtin_cpu_supports("avx512f");
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);  // glibc: from CPUID
  facts.l2_bytes = l2 > 0 ? static_cast<size_t>(l2) : 0;
#endif
  facts.l3_bytes = SysfsL3Bytes();
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (facts.l3_bytes == 0) {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    facts.l3_bytes = l3 > 0 ? static_cast<size_t>(l3) : 0;
  }
#endif
  return facts;
}

size_t StreamBytesFor(const CacheFacts& facts, size_t tasks) {
  constexpr size_t kDefaultBytes = size_t{8} << 20;
  tasks = std::max<size_t>(tasks, 1);
  if (facts.amd_avx512 && facts.l3_bytes != 0) {
    return tasks *
           std::clamp(facts.l3_bytes / 2, kDefaultBytes, 2 * kDefaultBytes);
  }
  // A small L3 that the threads share: the call's inputs and outputs fill
  // it at half its size in outputs, on any number of threads.
  if (facts.amd && facts.l3_bytes != 0 && facts.l3_bytes < 2 * kDefaultBytes) {
    return std::max(facts.l3_bytes / 2, kMinStreamBytes);
  }
  if (!facts.intel_avx512 || facts.l2_bytes == 0) return tasks * kDefaultBytes;
  return tasks * std::clamp(facts.l2_bytes, kMinStreamBytes, kDefaultBytes);
}

namespace {
const CacheFacts& Facts() {
  static const CacheFacts facts = ThisCpu();
  return facts;
}
}  // namespace

size_t StreamBytes(size_t tasks) { return StreamBytesFor(Facts(), tasks); }

size_t L2Bytes() { return Facts().l2_bytes; }

}  // namespace lrelu::cpu
