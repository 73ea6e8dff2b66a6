// lrelu demo: the contract's examples, a bit-exact self-check of every
// dtype, and a throughput table against memcpy. Takes a few seconds.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "demo_check.h"
#include "demo_examples.h"
#include "demo_throughput.h"
#include "lrelu/lrelu.hpp"
#include "parse_args.h"

namespace lrelu_cli {
namespace {

struct DemoArgs {
  std::string threads = "0";
  bool no_throughput = false;
};

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

}  // namespace

void RegisterDemoCommand(CLI::App& app) {
  auto args = std::make_shared<DemoArgs>();
  CLI::App* command = app.add_subcommand(
      "demo",
      "Show examples, check every dtype bit for bit against a scalar "
      "reference, and measure throughput against memcpy");
  command
      ->add_option("--threads", args->threads,
                   "Threads for the check and the many-thread column "
                   "(0 = all hardware threads)")
      ->type_name("N")
      ->capture_default_str();
  command->add_flag("--no-throughput", args->no_throughput,
                    "Skip the throughput table");
  command->callback([args] { RunDemo(*args); });
}

}  // namespace lrelu_cli
