// The one timing loop of `lrelu bench`, `lrelu demo` and lrelu_bench_peers:
// wall-clock seconds of a run of calls, how many calls a sample needs, and
// the median (quantiles) of samples. The copies they are compared with are
// in bench_copy.h.
#ifndef LRELU_BENCH_COMMON_BENCH_TIMING_H_
#define LRELU_BENCH_COMMON_BENCH_TIMING_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace lrelu_bench {

// A sample repeats the call until it lasts this long, so that the clock's
// resolution and the call overhead do not dominate small sizes.
constexpr double kMinSampleSeconds = 2e-3;
constexpr int kMaxCallsPerSample = 1 << 20;

// Seconds that `calls` calls of body() take, back to back.
template <typename Body>
double Seconds(std::size_t calls, Body&& body) {
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < calls; ++i) body();
  const std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count();
}

// Calls per sample for a call that took `once_seconds` alone.
inline int CallsPerSample(double once_seconds) {
  const double once = std::max(once_seconds, 1e-9);
  return static_cast<int>(std::min<double>(
      kMaxCallsPerSample, std::max(1.0, std::ceil(kMinSampleSeconds / once))));
}

// The q-quantile of `values` (not empty), interpolating between neighbours.
inline double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] +
         (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

inline double Median(std::vector<double> values) {
  return Quantile(std::move(values), 0.5);
}

}  // namespace lrelu_bench

#endif  // LRELU_BENCH_COMMON_BENCH_TIMING_H_
