// The one timing loop of `lrelu bench` and `lrelu demo`: wall-clock seconds
// of a run of calls, the median of samples, and how many calls a sample
// needs. The copies they are compared with are in bench_copy.h.
#ifndef LRELU_TOOLS_BENCH_TIMING_H_
#define LRELU_TOOLS_BENCH_TIMING_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <vector>

namespace lrelu_cli {

// A sample repeats the call until it lasts this long, so that the clock's
// resolution and the call overhead do not dominate small sizes.
constexpr double kMinSampleSeconds = 2e-3;
constexpr int kMaxCallsPerSample = 1 << 20;

// Seconds that `calls` calls of body() take, back to back.
template <typename Body>
double Seconds(int calls, const Body& body) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) body();
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

inline double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_BENCH_TIMING_H_
