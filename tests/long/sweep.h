// Bit-exact sweeps for the long tests: one chunk of inputs through every
// runnable SIMD target, forward and gradient, against the oracle.
#ifndef LRELU_TESTS_LONG_SWEEP_H_
#define LRELU_TESTS_LONG_SWEEP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lrelu/lrelu.h"

namespace lrelu::long_tests {

// Every runnable target's name (lrelu_cpu_target_name), best first.
std::vector<std::string> RunnableTargets();

// Reusable buffers of one sweeping thread.
struct SweepBuffers {
  std::vector<unsigned char> expected;
  std::vector<unsigned char> actual;
};

// Runs y = LeakyReLU(x) and dx = gradient(dy, x) over n elements of `dtype`
// on each target (one task: the caller parallelises) and compares with
// reference::Apply. Returns "" or the first mismatch.
std::string SweepChunk(lrelu_dtype_t dtype, const void* x, const void* dy,
                       size_t n, double alpha,
                       const std::vector<std::string>& targets,
                       SweepBuffers* buffers);

// LRELU_LONG_QUICK=1 in the environment: sweep a small fraction only (to
// check the tests themselves quickly).
bool QuickMode();

}  // namespace lrelu::long_tests

#endif  // LRELU_TESTS_LONG_SWEEP_H_
