// lrelu: the command-line tool. Every subcommand's options are bound here to
// its arguments (commands.h), the one file that includes CLI11.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "backends.h"
#include "commands.h"
#include "errors.h"
#include "lrelu/lrelu.hpp"

namespace lrelu_cli {
namespace {

// Prints the one line every failure gets; control characters become spaces
// so that no message (e.g. a library one) can spill onto a second line.
void PrintError(const std::string& message) {
  std::string line = message;
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  std::fprintf(stderr, "lrelu: error: %s\n", line.c_str());
}

// The first word before "--" that the parser must have taken for an
// unknown option: a file named like "-x.npy". Negative numbers ("--alpha
// -0.5") and known options ("--alpha=1", "-oy.npy") are not.
std::string UnknownDashWord(const CLI::App& app, int argc, char** argv) {
  const CLI::App* command = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (command == &app) {
      try {
        command = app.get_subcommand(word);
        continue;
      } catch (const CLI::OptionNotFound&) {
        command = &app;
      }
    }
    if (word.size() < 2 || word[0] != '-') continue;
    char* end = nullptr;
    std::strtod(word.c_str(), &end);
    if (*end == '\0') continue;
    const std::string name = word.substr(0, word.find('='));
    const std::string short_name = word.substr(0, 2);
    if (command->get_option_no_throw(name) != nullptr ||
        app.get_option_no_throw(name) != nullptr ||
        (word[1] != '-' && command->get_option_no_throw(short_name))) {
      continue;
    }
    return word;
  }
  return "";
}

void AddApplyCommand(CLI::App& app) {
  auto args = std::make_shared<ApplyArgs>();
  CLI::App* command = app.add_subcommand(
      "apply",
      "Apply LeakyReLU to a .npy file (float16/float32/float64, any byte "
      "order, shape and memory order); the output has the same dtype, "
      "byte order, shape and order");
  command->add_option("input", args->input, "Input .npy file")
      ->required()
      ->type_name("IN.npy");
  const CLI::Option* output =
      command
          ->add_option("-o,--output", args->output,
                       "Output .npy file (replaced atomically)")
          ->type_name("OUT.npy");
  command
      ->add_option("--alpha", args->alpha,
                   "Slope for x < 0; any number strtod reads: 0.2, -0, 1e-3, "
                   "inf, nan, 0x1p-3")
      ->type_name("A")
      ->capture_default_str();
  command
      ->add_option("--alpha-file", args->alpha_file,
                   "PReLU: alpha from a .npy file broadcast to the input "
                   "(ONNX's rule: per channel [C,1,1] for NCHW, [C] for "
                   "NHWC); the input's dtype, or float64. Reads the input "
                   "whole; replaces --alpha")
      ->type_name("A.npy");
  command
      ->add_option("--threads", args->threads,
                   "Threads to use (0 = all hardware threads)")
      ->type_name("N")
      ->capture_default_str();
  command->add_flag("--in-place", args->in_place,
                    "Allow the output to be the input file; without -o, "
                    "replace the input");
  command
      ->add_option("--backend", args->backend,
                   "cpu, or opencl (host data copied to the device and "
                   "back); cuda is refused (it needs device memory)")
      ->check(CLI::IsMember(BackendNames()))
      ->capture_default_str();
  command
      ->add_option("--device", args->device,
                   "Device index of the backend (see lrelu info)")
      ->type_name("N")
      ->capture_default_str();
  command
      ->add_option("--variant", args->variant,
                   "Advanced: force a kernel variant (cpu: reference, "
                   "contiguous, strided; opencl: scalar, vec4)")
      ->type_name("NAME");
  command
      ->add_option("--cpu-target", args->cpu_target,
                   "Advanced: force a SIMD target (see lrelu info)")
      ->type_name("NAME");
  command->footer(
      "IN and OUT are regular files: pipes, devices and /proc files are "
      "refused, and '-' is a file named '-', not stdin or stdout. A file "
      "name that starts with '-' goes after '--', which ends the options: "
      "lrelu apply -o OUT.npy -- -x.npy");
  command->callback([args, output] {
    args->output_given = output->count() > 0;
    RunApply(*args);
  });
}

void AddBenchCommand(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* command = app.add_subcommand(
      "bench",
      "Time the contract's bench.json cases per variant and thread count "
      "against memcpy and a plain copy loop of the same bytes");
  command
      ->add_option("--cases", args->cases_file,
                   "bench.json-format file to run instead of the cases "
                   "compiled into the library")
      ->type_name("FILE");
  command
      ->add_option("--json", args->json_file,
                   "Also write the results as a JSON list of records")
      ->type_name("FILE");
  command
      ->add_option("--filter", args->filter,
                   "Only cases whose id contains this text, e.g. "
                   "'forward/float32/'")
      ->type_name("SUBSTR");
  command
      ->add_option("--max-elements", args->max_elements,
                   "Leave out cases with more elements")
      ->type_name("N")
      ->capture_default_str();
  command
      ->add_option("--threads", args->threads,
                   "Thread counts, comma-separated (0 = all hardware "
                   "threads). Default: all hardware threads")
      ->type_name("LIST");
  command
      ->add_option("--variant", args->variants,
                   "Variants, comma-separated: auto, reference, contiguous, "
                   "strided (cpu); auto, scalar, vec4 (opencl)")
      ->type_name("LIST")
      ->capture_default_str();
  command->add_option("--backend", args->backend, "cpu or opencl")
      ->check(CLI::IsMember({"cpu", "opencl"}))
      ->capture_default_str();
  command
      ->add_option("--cpu-target", args->cpu_target,
                   "SIMD target (see lrelu info); default: the best one")
      ->type_name("NAME");
  command
      ->add_option("--repeat", args->repeat,
                   "Timed samples per measurement (the median is reported)")
      ->type_name("N")
      ->capture_default_str();
  command->callback([args] { RunBench(*args); });
}

// --backend's choices: each backend, or all of them.
std::vector<std::string> BackendNamesAndAll() {
  std::vector<std::string> names = BackendNames();
  names.emplace_back("all");
  return names;
}

void AddTestCommand(CLI::App& app) {
  auto args = std::make_shared<TestArgs>();
  CLI::App* command = app.add_subcommand(
      "test",
      "Run the contracts' correctness cases (LeakyRelu's and PRelu's "
      "test.json) on every variant, "
      "layout (contiguous, strided) and in-place mode of the chosen backends; "
      "prints each failure, then 'N passed, M failed[, K skipped]' counting "
      "cases (failed: on any configuration)");
  command
      ->add_option("--cases", args->cases_file,
                   "test.json-format file to run instead of the cases "
                   "compiled into the library")
      ->type_name("FILE");
  command
      ->add_option("--variant", args->variants,
                   "Only these variants (comma-separated): reference, "
                   "contiguous, strided (cpu); scalar, vec4 (opencl, cuda); "
                   "auto. Default: every variant of each backend")
      ->type_name("LIST");
  command
      ->add_option("--backend", args->backend,
                   "cpu, opencl, cuda, or all (every backend; those with no "
                   "device are reported as skipped)")
      ->check(CLI::IsMember(BackendNamesAndAll()))
      ->capture_default_str();
  command
      ->add_option("--cpu-target", args->cpu_target,
                   "SIMD target for the cpu backend (see lrelu info), or all "
                   "(every runnable one). Default: the one the library picks")
      ->type_name("NAME|all");
  command
      ->add_option("--threads", args->threads,
                   "Threads per call (0 = all hardware threads)")
      ->type_name("N")
      ->capture_default_str();
  command->add_flag("-v,--verbose", args->verbose,
                    "Also print one line per configuration");
  command->callback([args] { RunTest(*args); });
}

void AddDemoCommand(CLI::App& app) {
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

void AddEmitCommand(CLI::App& app) {
  auto args = std::make_shared<EmitArgs>();
  CLI::App* command = app.add_subcommand(
      "emit", "Print kernel source for another runtime (WGSL, OpenCL, CUDA)");
  command->add_option("--target", args->language, "wgsl, opencl or cuda")
      ->required()
      ->check(CLI::IsMember({"wgsl", "opencl", "cuda"}));
  command->add_option("--dtype", args->dtype,
                      "float32 (default), float16, bfloat16, float64 "
                      "(wgsl: float32, float16)");
  command
      ->add_option("--variant", args->variant,
                   "vec4 (default), scalar, or prelu (PReLU forward; "
                   "prelu-vec4: its four-element WGSL template)")
      ->check(CLI::IsMember({"scalar", "vec4", "prelu", "prelu-vec4"}));
  command->add_option("--workgroup-size", args->workgroup_size,
                      "WGSL workgroup size (default 256, at most 256)");
  command
      ->add_option("-o,--output", args->output,
                   "File to write, replaced atomically (default: stdout)")
      ->type_name("FILE");
  command->callback([args] { RunEmit(*args); });
}

void AddInfoCommand(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand(
      "info",
      "Show the library version, contract version, SIMD targets, hardware "
      "threads and backends (with their devices, or why there are none)");
  command->add_flag("--json", *json, "Print as JSON");
  command->callback([json] { RunInfo(*json); });
}

}  // namespace
}  // namespace lrelu_cli

int main(int argc, char** argv) {
  CLI::App app{
      "lrelu: LeakyReLU, y = x < 0 ? alpha * x : x, bit-exact (contract v" +
          std::to_string(LRELU_CONTRACT_VERSION) + ")",
      "lrelu"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version",
                       "lrelu " + lrelu::version() + " (contract v" +
                           std::to_string(lrelu::contract_version()) + ")");

  lrelu_cli::AddApplyCommand(app);
  lrelu_cli::AddBenchCommand(app);
  lrelu_cli::AddDemoCommand(app);
  lrelu_cli::AddEmitCommand(app);
  lrelu_cli::AddInfoCommand(app);
  lrelu_cli::AddTestCommand(app);

  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) std::cout << app.help();
    return lrelu_cli::kExitOk;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const std::string dash_word = lrelu_cli::UnknownDashWord(app, argc, argv);
    lrelu_cli::PrintError(
        std::string(e.what()) +
        (dash_word.empty()
             ? ""
             : " (" + lrelu_cli::Quote(dash_word) +
                   " is not an option; a file name that starts with "
                   "'-' goes after '--', which ends the options: "
                   "lrelu apply -o OUT.npy -- " +
                   dash_word + ")"));
    return lrelu_cli::kExitUsage;
  } catch (const lrelu_cli::ReportedFailure& e) {
    return e.exit_code();  // the command printed its own report
  } catch (const lrelu_cli::CliError& e) {
    lrelu_cli::PrintError(e.what());
    return e.exit_code();
  } catch (const lrelu::Error& e) {
    lrelu_cli::PrintError(std::string("library: ") + e.what());
    return lrelu_cli::kExitFailure;
  } catch (const std::bad_alloc&) {
    lrelu_cli::PrintError("out of memory");
    return lrelu_cli::kExitFailure;
  } catch (const std::exception& e) {
    lrelu_cli::PrintError(e.what());
    return lrelu_cli::kExitFailure;
  }
}
