// lrelu emit --target wgsl|opencl|cuda --dtype D
//            --variant scalar|vec4|prelu|prelu-vec4 [--workgroup-size N]
//            [-o FILE]
// Prints the kernel source lrelu_kernel_source renders (docs/gpu.md).
#include <cstdio>
#include <iostream>
#include <string>

#include "atomic_output.h"
#include "commands.h"
#include "errors.h"
#include "lrelu/lrelu.hpp"
#include "reference/dtype_traits.h"

namespace lrelu_cli {
namespace {

lrelu::DType ParseDType(const std::string& name) {
  const lrelu::reference::DTypeTraits* t = lrelu::reference::FindDType(name);
  if (t != nullptr) return static_cast<lrelu::DType>(t->tag);
  throw UsageError("--dtype " + name +
                   ": use float32, float16, bfloat16 or float64");
}

}  // namespace

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

}  // namespace lrelu_cli
