#include "prelu_package.h"

#include <utility>
#include <vector>

#include "package_json.h"

namespace lrelu::contract {
namespace {

// ONNX's unidirectional rule: alpha's shape, aligned to the right of x's,
// has each extent equal to x's or 1.
bool Broadcasts(const std::vector<int64_t>& alpha,
                const std::vector<int64_t>& x) {
  if (alpha.size() > x.size()) return false;
  const std::size_t lead = x.size() - alpha.size();
  for (std::size_t k = 0; k < alpha.size(); ++k) {
    if (alpha[k] != 1 && alpha[k] != x[lead + k]) return false;
  }
  return true;
}

std::vector<std::string> Keys(const json& tensors) {
  std::vector<std::string> keys;
  for (const auto& kv : tensors.items()) keys.push_back(kv.key());
  return keys;
}

TestCase ParsePreluCase(const json& j, const std::string& where_doc) {
  TestCase c;
  c.kernel_id = kPreluId;
  c.id = j.at("id").get<std::string>();
  const std::string where = where_doc + ": case '" + c.id + "'";
  c.category = "prelu";
  c.op = j.at("op").get<std::string>();
  if (c.op != "forward" && c.op != "backward") {
    Fail(where + ": op must be 'forward' or 'backward'");
  }
  c.dtype = ParseDType(j.at("dtype"), where);
  c.alpha_dtype = ParseDType(j.at("alpha_dtype"), where);
  if (c.alpha_dtype != c.dtype && c.alpha_dtype != DType::kFloat64) {
    Fail(where + ": alpha_dtype must be dtype or float64");
  }
  int64_t numel = 0, alpha_numel = 0;
  c.shape = ParseShape(j.at("shape"), &numel, where);
  c.alpha_shape = ParseShape(j.at("alpha_shape"), &alpha_numel, where);
  if (!Broadcasts(c.alpha_shape, c.shape)) {
    Fail(where + ": alpha_shape does not broadcast to shape");
  }
  const bool forward = c.op == "forward";
  const json& inputs = j.at("inputs");
  CheckNames(Keys(inputs),
             forward ? std::vector<std::string>{"x", "alpha"}
                     : std::vector<std::string>{"dy", "x", "alpha"},
             where + ": inputs");
  const json& expected = j.at("expected");
  CheckNames(Keys(expected),
             forward ? std::vector<std::string>{"y"}
                     : std::vector<std::string>{"dx", "dalpha"},
             where + ": expected");
  for (const auto& kv : inputs.items()) {
    c.inputs[kv.key()] =
        ParseTensor(kv.value(), c.dtype_of(kv.key()),
                    c.is_alpha_tensor(kv.key()) ? alpha_numel : numel,
                    where + ": input " + kv.key());
  }
  for (const auto& kv : expected.items()) {
    c.expected[kv.key()] =
        ParseTensor(kv.value(), c.dtype_of(kv.key()),
                    c.is_alpha_tensor(kv.key()) ? alpha_numel : numel,
                    where + ": expected " + kv.key());
  }
  ParseAnyNan(j, "any_nan", numel, alpha_numel, where, &c);
  return c;
}

}  // namespace

std::vector<TestCase> PreluCasesFromJson(const json& doc,
                                         const std::string& where) {
  return ParseCasesOf(doc, where, ParsePreluCase);
}

std::shared_ptr<const Kernel::Impl> BuildPreluKernel(
    Files files, const std::string& origin) {
  auto impl = NewKernelImpl(origin);
  ReadMetadata(files, impl.get(), [&](const json& metadata) {
    impl->metadata.generator = metadata.at("generator").get<std::string>();
    // One variant family: lrelu_prelu picks its own row kernels.
    impl->metadata.variants = {"prelu"};
  });

  const std::string where_manifest = origin + "/manifest.json";
  ReadManifest(files, impl.get(), [&](const json& manifest) {
    for (const json& t : manifest.at("types").at("T")) {
      impl->dtypes.push_back(ParseDType(t, where_manifest));
    }
  });
  if (impl->id != kPreluId || impl->contract_version != 1) {
    Fail(where_manifest + ": this library implements " + std::string(kPreluId) +
         " v1 only");
  }
  if (impl->input_names != std::vector<std::string>{"x", "alpha"} ||
      impl->output_names != std::vector<std::string>{"y"}) {
    Fail(where_manifest + ": PRelu takes inputs x, alpha and gives output y");
  }

  impl->test_cases =
      PreluCasesFromJson(ReadCasesDocument(files, "test.json", "id", *impl),
                         origin + "/test.json");
  // bench.json's cases (layout, channels, elements) are bench/prelu's; the
  // header is checked, bench_cases() stays empty.
  ReadCasesDocument(files, "bench.json", "id", *impl);
  KeepFiles(std::move(files), impl.get());
  return impl;
}

}  // namespace lrelu::contract
