// The subcommands of the lrelu tool: each one's arguments, as the command
// line gives them, and the function that runs it (cmd_<name>.cc). main.cc
// binds the arguments to options with CLI11; no other file includes CLI11,
// whose header alone costs ~10 s of compile time per file.
// A command reports failure by throwing (CliError, lrelu::Error, ...);
// main() turns that into one line on stderr and the exit code.
#ifndef LRELU_TOOLS_COMMANDS_H_
#define LRELU_TOOLS_COMMANDS_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace lrelu_cli {

// lrelu apply IN.npy -o OUT.npy [--alpha A | --alpha-file A.npy]
//             [--threads N] [--in-place] [--backend cpu|opencl|cuda]
//             [--device N] [--variant NAME] [--cpu-target NAME]
struct ApplyArgs {
  std::string input;
  std::string output;
  bool output_given = false;  // -o was given (to tell "-o ''" from no -o)
  std::string alpha = "0.01";
  std::string alpha_file;  // PReLU: alpha from a .npy file (prelu_file.h)
  std::string threads = "0";
  bool in_place = false;
  std::string variant;
  std::string cpu_target;
  std::string backend = "cpu";
  std::string device = "0";
};
void RunApply(const ApplyArgs& args);

// lrelu bench: the contract's bench.json cases, timed against copies.
// 64 Mi elements keeps the default run near a minute; the contract's
// 256 Mi cases (2 GiB per float64 buffer) need --max-elements.
inline constexpr std::size_t kBenchDefaultMaxElements = std::size_t{64} << 20;
struct BenchArgs {
  std::string cases_file;
  std::string json_file;
  std::string filter;
  std::string max_elements = std::to_string(kBenchDefaultMaxElements);
  std::string threads;  // "": all hardware threads
  std::string variants = "auto";
  std::string backend = "cpu";
  std::string cpu_target;
  std::string repeat = "5";
};
void RunBench(const BenchArgs& args);

// lrelu demo: examples, a self-check of every dtype, throughput vs memcpy.
struct DemoArgs {
  std::string threads = "0";
  bool no_throughput = false;
};
void RunDemo(const DemoArgs& args);

// lrelu emit --target wgsl|cuda|opencl: kernel source for other runtimes.
struct EmitArgs {
  std::string language;  // --target: the emitted kernel language
  std::string dtype = "float32";
  std::string variant = "vec4";
  uint32_t workgroup_size = 0;
  std::string output;
};
void RunEmit(const EmitArgs& args);

// lrelu info [--json]: version, contract, SIMD targets, threads, backends.
void RunInfo(bool json);

// lrelu test: the contract's test.json cases on every variant and target.
struct TestArgs {
  std::string cases_file;
  std::string variants;
  std::string backend = "cpu";
  std::string cpu_target;
  std::string threads = "0";
  bool verbose = false;
};
void RunTest(const TestArgs& args);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_COMMANDS_H_
