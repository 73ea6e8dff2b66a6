// Every float32 bit pattern (2^32) through every runnable SIMD target,
// forward and gradient, with two alphas, bit-exact against the oracle; and a
// sample of 10^9 random float64 values the same way. Label `long`: minutes,
// not for every CI run (scripts/run-long-tests.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sweep.h"

namespace lrelu::long_tests {
namespace {

constexpr size_t kChunk = size_t{1} << 20;
// The default and a negative slope larger than 1 (sign flips, overflow to
// infinity, no underflow to -0).
constexpr double kAlphas[] = {0.01, -1.5};

// Runs chunk(c) for c in [0, chunks) on two threads; stops at the first
// failure and returns it.
template <typename F>
std::string Parallel(uint64_t chunks, F chunk) {
  std::atomic<uint64_t> next{0};
  std::mutex mutex;
  std::string failure;
  auto work = [&] {
    SweepBuffers buffers;
    while (true) {
      const uint64_t c = next++;
      if (c >= chunks) return;
      std::string problem = chunk(c, &buffers);
      std::lock_guard<std::mutex> lock(mutex);
      if (!problem.empty() && failure.empty()) failure = problem;
      if (!failure.empty()) return;
    }
  };
  std::thread helper(work);
  work();
  helper.join();
  return failure;
}

uint64_t Mix(uint64_t z) {  // splitmix64's finaliser: a cheap random stream
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

TEST(LongSweep, EveryFloat32BitPatternOnEveryTarget) {
  const auto targets = RunnableTargets();
  const uint64_t total = uint64_t{1} << 32;
  const uint64_t chunks = total / kChunk;
  // Quick mode: every 256th chunk.
  const uint64_t step = QuickMode() ? 256 : 1;
  const auto start = std::chrono::steady_clock::now();
  const std::string failure =
      Parallel(chunks / step, [&](uint64_t c, SweepBuffers* b) {
        const uint64_t first = c * step * kChunk;
        std::vector<uint32_t> x(kChunk), dy(kChunk);
        for (size_t i = 0; i < kChunk; ++i) {
          x[i] = static_cast<uint32_t>(first + i);
          // Every x meets an unrelated dy (an odd multiplier is a bijection).
          dy[i] = static_cast<uint32_t>((first + i) * 0x9e3779b1u);
        }
        for (const double alpha : kAlphas) {
          const std::string problem =
              SweepChunk(LRELU_DTYPE_FLOAT32, x.data(), dy.data(), kChunk,
                         alpha, targets, b);
          if (!problem.empty()) {
            return "chunk at " + std::to_string(first) + ", alpha " +
                   std::to_string(alpha) + ": " + problem;
          }
        }
        return std::string();
      });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::string names;
  for (const auto& t : targets) names += " " + t;
  std::printf(
      "float32: %llu patterns x %zu targets (%s) x 2 alphas x 2 ops "
      "in %.1f s\n",
      static_cast<unsigned long long>(total / step), targets.size(),
      names.c_str(), seconds);
  EXPECT_EQ(failure, "");
}

TEST(LongSweep, ABillionRandomFloat64OnEveryTarget) {
  const auto targets = RunnableTargets();
  const uint64_t total = QuickMode() ? uint64_t{1} << 22 : 1000000000ull;
  const uint64_t chunks = (total + kChunk - 1) / kChunk;
  const auto start = std::chrono::steady_clock::now();
  const std::string failure =
      Parallel(chunks, [&](uint64_t c, SweepBuffers* b) {
        std::vector<uint64_t> x(kChunk), dy(kChunk);
        for (size_t i = 0; i < kChunk; ++i) {
          const uint64_t r = Mix(c * kChunk + i);
          const uint64_t r2 = Mix(r);
          // Three in four: any bit pattern (all exponents, NaNs, infinities,
          // subnormals); one in four: magnitudes near 1, where most data is.
          x[i] = (r & 3) != 0 ? r2
                              : (r2 & 0x800fffffffffffffull) |
                                    (uint64_t{1020 + (r >> 2) % 8} << 52);
          dy[i] = Mix(r2);
        }
        const double alpha = kAlphas[c % 2];
        const std::string problem =
            SweepChunk(LRELU_DTYPE_FLOAT64, x.data(), dy.data(), kChunk, alpha,
                       targets, b);
        return problem.empty() ? problem
                               : "chunk " + std::to_string(c) + ": " + problem;
      });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("float64: %llu random values x %zu targets x 2 ops in %.1f s\n",
              static_cast<unsigned long long>(chunks * kChunk), targets.size(),
              seconds);
  EXPECT_EQ(failure, "");
}

}  // namespace
}  // namespace lrelu::long_tests
