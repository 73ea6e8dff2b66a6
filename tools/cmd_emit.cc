// lrelu emit --target wgsl|opencl|cuda --dtype D --variant scalar|vec4|prelu
//            [--workgroup-size N] [-o FILE]
// Prints the kernel source lrelu_kernel_source renders (docs/gpu.md).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "atomic_output.h"
#include "commands.h"
#include "errors.h"
#include "lrelu/lrelu.hpp"
#include "reference/dtype_traits.h"

namespace lrelu_cli {
namespace {

struct EmitArgs {
  std::string language;  // --target: the emitted kernel language
  std::string dtype = "float32";
  std::string variant = "vec4";
  uint32_t workgroup_size = 0;
  std::string output;
};

lrelu::DType ParseDType(const std::string& name) {
  const lrelu::reference::DTypeTraits* t = lrelu::reference::FindDType(name);
  if (t != nullptr) return static_cast<lrelu::DType>(t->tag);
  throw UsageError("--dtype " + name +
                   ": use float32, float16, bfloat16 or float64");
}

void RunEmit(const EmitArgs& args) {
  const std::string source = lrelu::kernel_source(
      args.language, ParseDType(args.dtype), args.variant, args.workgroup_size);
  if (args.output.empty() || args.output == "-") {
    std::cout << source;
    return;
  }
  // Like apply's output: the file appears whole or not at all.
  InstallSignalCleanup();
  AtomicOutput output(ResolveOutput(args.output));
  output.Write(source.data(), source.size());
  output.Commit();
}

}  // namespace

void RegisterEmitCommand(CLI::App& app) {
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
                   "vec4 (default), scalar, or prelu (PReLU forward)")
      ->check(CLI::IsMember({"scalar", "vec4", "prelu"}));
  command->add_option("--workgroup-size", args->workgroup_size,
                      "WGSL workgroup size (default 256, at most 256)");
  command
      ->add_option("-o,--output", args->output,
                   "File to write, replaced atomically (default: stdout)")
      ->type_name("FILE");
  command->callback([args] { RunEmit(*args); });
}

}  // namespace lrelu_cli
