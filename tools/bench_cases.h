// The benchmark cases `lrelu bench` runs: the contract's bench.json as
// compiled into the library, or a file in the same format.
#ifndef LRELU_TOOLS_BENCH_CASES_H_
#define LRELU_TOOLS_BENCH_CASES_H_

#include <string>
#include <vector>

#include "lrelu/kernel.hpp"

namespace lrelu_cli {

// path "": the embedded contract's cases. Otherwise reads a bench.json
// document ({"cases": [...]}, fields as in docs/contract.md); throws
// CliError naming the file and the case when it is not usable.
std::vector<lrelu::BenchCase> LoadBenchCases(const std::string& path);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_BENCH_CASES_H_
