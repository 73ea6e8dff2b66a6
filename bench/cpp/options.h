// Command line of the peers harness.
#ifndef LRELU_BENCH_OPTIONS_H_
#define LRELU_BENCH_OPTIONS_H_

#include <string>
#include <vector>

#include "harness.h"
#include "lrelu/lrelu.h"

namespace lrelu_bench {

struct Options {
  std::vector<size_t> sizes;
  std::vector<lrelu_dtype_t> dtypes;
  std::vector<int> threads;        // which thread counts to keep (1, 2)
  std::vector<std::string> peers;  // impl names to keep; empty = all
  std::string out = "out/bench/cpp.json";
  bool correctness = true;
  bool strict = false;  // exit 3 if an lrelu entry point is not bit-exact
  Settings settings;
};

// Parses argv; prints usage and returns false on --help or an error.
bool ParseOptions(int argc, char** argv, Options* options);

}  // namespace lrelu_bench

#endif  // LRELU_BENCH_OPTIONS_H_
