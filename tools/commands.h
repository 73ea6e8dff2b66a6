// The subcommands of the lrelu tool. Each lives in its own cmd_<name>.cc and
// adds itself to the app with one Register<Name>Command call in main.cc.
// A command reports failure by throwing (CliError, lrelu::Error, ...);
// main() turns that into one line on stderr and the exit code.
#ifndef LRELU_TOOLS_COMMANDS_H_
#define LRELU_TOOLS_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace lrelu_cli {

// lrelu apply IN.npy -o OUT.npy [--alpha A] [--threads N] [--in-place]
//             [--backend cpu|opencl|cuda] [--device N]
void RegisterApplyCommand(CLI::App& app);
// lrelu bench: the contract's bench.json cases, timed against copies.
void RegisterBenchCommand(CLI::App& app);
// lrelu demo: examples, a self-check of every dtype, throughput vs memcpy.
void RegisterDemoCommand(CLI::App& app);
// lrelu emit --target wgsl|cuda|opencl: kernel source for other runtimes.
void RegisterEmitCommand(CLI::App& app);
// lrelu info [--json]: version, contract, SIMD targets, threads, backends.
void RegisterInfoCommand(CLI::App& app);
// lrelu test: the contract's test.json cases on every variant and target.
void RegisterTestCommand(CLI::App& app);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_COMMANDS_H_
