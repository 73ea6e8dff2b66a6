// lrelu demo: the contract's examples, a bit-exact self-check of every
// dtype, and a throughput table against memcpy. Takes a few seconds.
#include <cstdio>
#include <string>

#include "commands.h"
#include "demo_check.h"
#include "demo_examples.h"
#include "demo_throughput.h"
#include "lrelu/lrelu.hpp"
#include "parse_args.h"

namespace lrelu_cli {

void RunDemo(const DemoArgs& args) {
  const std::size_t threads = ParseThreads(args.threads);
  std::printf("lrelu %s, contract v%d, SIMD target %s\n\n",
              lrelu::version().c_str(), lrelu::contract_version(),
              lrelu::cpu_targets().empty() ? "(none)"
                                           : lrelu::cpu_targets()[0].c_str());
  PrintExamples();
  std::fflush(stdout);
  RunSelfCheck(threads);
  std::fflush(stdout);
  if (!args.no_throughput) RunThroughput(threads);
}

}  // namespace lrelu_cli
