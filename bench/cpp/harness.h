// The timing scheme: every contender is timed in batches paired with the copy
// baseline on the same buffers, alternating which of the two goes first; each
// pair of rounds gives one estimate of the ratio (their geometric mean), and
// a cell is the median estimate. Blocks measured while other processes were
// busy are retried.
#ifndef LRELU_BENCH_HARNESS_H_
#define LRELU_BENCH_HARNESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "contender.h"

namespace lrelu_bench {

struct Settings {
  double batch_s = 2e-3;  // target length of one timed batch
  int rounds_cache = 40;  // rounds for n <= 256 Ki (even)
  int rounds_mid = 22;    // n <= 4 Mi
  int rounds_dram = 12;   // larger
  int warm_passes = 30;   // copies before timing: caches settle slowly
  double warm_s = 0.05;
  double load_limit = 0.15;  // CPUs of other processes' load per block
  int tries = 3;
  double retry_wait_s = 10;
  int RoundsFor(size_t n) const {
    return n <= (size_t{256} << 10) ? rounds_cache
           : n <= (size_t{4} << 20) ? rounds_mid
                                    : rounds_dram;
  }
};

struct Cell {
  bool supported = false;
  std::string why;   // when not supported
  std::string info;  // Contender::Info() after setup
  double ratio = 0;  // median estimate of time / baseline time
  double ratio_q1 = 0, ratio_q3 = 0;
  double median_ns = 0;  // median time per call
  size_t calls_per_batch = 0;
  bool noisy = false;  // interquartile range > 20% of the median
};

struct Block {
  double other_load = 0;  // CPUs, of the attempt kept
  int attempts = 0;
  bool loaded = false;  // still above the limit after every try
  int rounds = 0;
  std::vector<Cell> cells;  // one per contender, in list order
};

// Times every contender in `contenders` that supports p.dtype against
// contenders[baseline]. `known_threads` and `pin_log` are for PinNewThreads.
Block TimeBlock(ContenderList& contenders, size_t baseline, const Buffers& p,
                const Settings& s, std::vector<pid_t>* known_threads,
                std::string* pin_log);

}  // namespace lrelu_bench

#endif  // LRELU_BENCH_HARNESS_H_
