// Timing of one benchmark configuration (case x variant x threads) for
// `lrelu bench`: the kernel's median time, alternated with copies of the
// same bytes on as many threads as the kernel's plan uses.
#ifndef LRELU_TOOLS_BENCH_MEASURE_H_
#define LRELU_TOOLS_BENCH_MEASURE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "lrelu/kernel.hpp"
#include "lrelu/lrelu.hpp"
#include "worker_pool.h"

namespace lrelu_cli {

using lrelu_bench::WorkerPool;

// Three buffers of one size, reused by every case that fits (so that large
// buffers are allocated and their pages touched once, not per case).
class BenchBuffers {
 public:
  // Grows the buffers to at least `bytes` each; throws std::bad_alloc.
  void Reserve(std::size_t bytes);
  unsigned char* get(int i) { return buffers_[i].get(); }

 private:
  struct Free {
    void operator()(unsigned char* p) const;
  };
  std::size_t bytes_ = 0;
  std::unique_ptr<unsigned char, Free> buffers_[3];
};

struct BenchConfig {
  lrelu::Options options;  // backend, variant, threads, cpu_target
  int samples = 7;         // timed samples per method; the median is kept
};

struct BenchResult {
  std::string variant_used;  // what the plan runs ("contiguous", "vec4", ...)
  std::string target_used;   // SIMD target or device of the plan
  std::size_t tasks = 1;     // threads the plan (and the copies) use
  int calls_per_sample = 1;
  double median_ns = 0;        // one call of the kernel
  double gbps = 0;             // bytes_moved / median time
  double memcpy_gbps = 0;      // bytes read + written by memcpy
  double copy_loop_gbps = 0;   // ... by CopyLoop
  double copy_ratio = 0;       // median over samples of gbps / memcpy gbps
  double copy_loop_ratio = 0;  // ... / copy-loop gbps
};

// Fills the buffers for `bench_case`, plans it with `config` and times it.
// Throws lrelu::Error when the library refuses the plan.
BenchResult MeasureCase(const lrelu::BenchCase& bench_case,
                        const BenchConfig& config, BenchBuffers& buffers,
                        WorkerPool& pool);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_BENCH_MEASURE_H_
