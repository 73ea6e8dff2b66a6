// lrelu::Kernel and the ways to get one: compiled in (by contract version
// or pinned manifest digest) or read from a directory.
#include <cctype>
#include <fstream>
#include <mutex>
#include <sstream>
#include <utility>

#include "embedded.h"
#include "kernel_impl.h"
#include "package.h"
#include "prelu_package.h"

namespace lrelu {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(LRELU_STATUS_INVALID_ARGUMENT, message);
}

// The compiled-in packages, "v1/manifest.json", "prelu/v1/test.json" etc.
// grouped by directory.
std::map<std::string, contract::Files> EmbeddedPackages() {
  std::map<std::string, contract::Files> packages;
  for (std::size_t i = 0; i < contract::kEmbeddedFileCount; ++i) {
    const contract::EmbeddedFile& f = contract::kEmbeddedFiles[i];
    const std::string path = f.path;
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos) continue;
    packages[path.substr(0, slash)][path.substr(slash + 1)] =
        std::string(reinterpret_cast<const char*>(f.data), f.size);
  }
  return packages;
}

// Each compiled-in package is verified and parsed once, on first use.
std::vector<std::shared_ptr<const Kernel::Impl>> EmbeddedKernels() {
  static std::mutex mutex;
  static std::vector<std::shared_ptr<const Kernel::Impl>> kernels;
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (!loaded) {
    for (auto& kv : EmbeddedPackages()) {
      kernels.push_back(
          contract::BuildKernel(std::move(kv.second), "embedded:" + kv.first));
    }
    loaded = true;
  }
  return kernels;
}

std::string KnownList() {
  std::string list;
  for (const auto& k : EmbeddedKernels()) {
    list += (list.empty() ? "" : ", ") + k->id + " v" +
            std::to_string(k->contract_version);
  }
  return list.empty() ? "none" : list;
}

void CheckKnownId(std::string_view id) {
  for (const auto& k : EmbeddedKernels()) {
    if (k->id == id) return;
  }
  Fail("unknown kernel '" + std::string(id) +
       "' (this library has: " + KnownList() + ")");
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail("cannot read " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in.good() && !in.eof()) Fail("cannot read " + path);
  return bytes.str();
}

std::string Join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

Kernel::Kernel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

const std::string& Kernel::id() const { return impl_->id; }
int Kernel::contract_version() const { return impl_->contract_version; }
double Kernel::default_alpha() const { return impl_->default_alpha; }
const std::vector<DType>& Kernel::dtypes() const { return impl_->dtypes; }
const std::vector<std::string>& Kernel::input_names() const {
  return impl_->input_names;
}
const std::vector<std::string>& Kernel::output_names() const {
  return impl_->output_names;
}
const std::vector<std::string>& Kernel::attribute_names() const {
  return impl_->attribute_names;
}
const std::vector<TestCase>& Kernel::test_cases() const {
  return impl_->test_cases;
}
const std::vector<BenchCase>& Kernel::bench_cases() const {
  return impl_->bench_cases;
}
const KernelMetadata& Kernel::metadata() const { return impl_->metadata; }
const std::string& Kernel::manifest_sha256() const {
  return impl_->manifest_sha256;
}
const std::map<std::string, std::string>& Kernel::files() const {
  return impl_->files;
}

std::map<std::string, Tensor> Kernel::operator()(
    const std::map<std::string, TensorView>& inputs,
    const std::map<std::string, double>& attributes,
    const Options& options) const {
  const Impl& k = *impl_;
  const bool is_prelu = k.id == contract::kPreluId;
  for (const auto& kv : inputs) {
    if (kv.first != "x" && !(is_prelu && kv.first == "alpha")) {
      Fail("unknown input '" + kv.first + "' for " + k.id +
           " (inputs: " + Join(k.input_names) + ")");
    }
  }
  const auto x = inputs.find("x");
  if (x == inputs.end()) Fail("missing input 'x' for " + k.id);
  std::map<std::string, Tensor> outputs;
  if (is_prelu) {
    const auto alpha = inputs.find("alpha");
    if (alpha == inputs.end()) Fail("missing input 'alpha' for " + k.id);
    if (!attributes.empty()) {
      Fail("unknown attribute '" + attributes.begin()->first + "' for " + k.id +
           " (it has none: alpha is an input)");
    }
    outputs.emplace("y", prelu(x->second, alpha->second, options));
    return outputs;
  }
  double alpha = k.default_alpha;
  for (const auto& kv : attributes) {
    if (kv.first != "alpha") {
      Fail("unknown attribute '" + kv.first + "' for " + k.id +
           " (attributes: " + Join(k.attribute_names) + ")");
    }
    alpha = kv.second;
  }
  outputs.emplace("y", leaky_relu(x->second, alpha, options));
  return outputs;
}

std::vector<KernelRef> available_kernels() {
  std::vector<KernelRef> refs;
  for (const auto& k : EmbeddedKernels()) {
    refs.push_back({k->id, k->contract_version, k->manifest_sha256});
  }
  return refs;
}

Kernel get_kernel(std::string_view id, int contract_version) {
  CheckKnownId(id);
  for (const auto& k : EmbeddedKernels()) {
    if (k->id == id && k->contract_version == contract_version)
      return Kernel(k);
  }
  Fail(std::string(id) + " has no contract version " +
       std::to_string(contract_version) + " (this library has: " + KnownList() +
       ")");
}

Kernel get_kernel_pinned(std::string_view id,
                         std::string_view manifest_sha256) {
  CheckKnownId(id);
  std::string want(manifest_sha256);
  bool hex = want.size() == 64;
  for (char& c : want) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    hex = hex && std::isxdigit(static_cast<unsigned char>(c));
  }
  if (!hex) {
    Fail("a pinned manifest sha256 has 64 hex digits, not '" + want + "'");
  }
  std::string have;
  for (const auto& k : EmbeddedKernels()) {
    if (k->id != id) continue;
    if (k->manifest_sha256 == want) return Kernel(k);
    have +=
        " v" + std::to_string(k->contract_version) + " " + k->manifest_sha256;
  }
  Fail("no " + std::string(id) + " contract with manifest sha256 " + want +
       " in this library (it has:" + have + ")");
}

Kernel load_kernel_from_dir(const std::string& dir) {
  contract::Files files;
  for (const char* name :
       {"manifest.json", "test.json", "bench.json", "metadata.json"}) {
    files[name] = ReadFile(dir + "/" + name);
  }
  // The template files metadata.json lists (their digests are checked).
  for (const std::string& name :
       contract::ListedTemplates(files["metadata.json"], dir)) {
    files[name] = ReadFile(dir + "/" + name);
  }
  return Kernel(contract::BuildKernel(std::move(files), dir));
}

std::vector<TestCase> parse_test_cases(std::string_view test_json) {
  return contract::ParseTestCases(test_json, "test cases");
}

std::vector<BenchCase> parse_bench_cases(std::string_view bench_json,
                                         const std::string& where) {
  return contract::ParseBenchCases(bench_json, where);
}

}  // namespace lrelu
