// The operator contract packages (contract/v1 for ai.onnx.LeakyRelu and
// contract/prelu/v1 for ai.onnx.PRelu: manifest, test cases, bench cases,
// metadata) as library objects of liblrelu_contract, a library built on
// liblrelu's public API only, in the style of
// @huggingface/kernels: load a kernel by id and contract version (or pinned
// by the sha256 of its manifest), call it as kernel({x}) -> {y}, and run its
// correctness cases against any variant.
//
// The package files are compiled into the library, so an installed library
// needs no data files; load_kernel_from_dir reads a package from disk and
// refuses it when a file does not match the sha256 in its metadata.json.
//
// Every function here throws lrelu::Error (lrelu.hpp) on failure, with
// status LRELU_STATUS_INVALID_ARGUMENT for a bad request or package.
#ifndef LRELU_KERNEL_HPP_
#define LRELU_KERNEL_HPP_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lrelu/contract_export.h"
#include "lrelu/lrelu.hpp"

namespace lrelu {

// One correctness case of test.json (docs/contract.md, "test.json"; the
// PRelu package's format in docs/prelu.md).
struct TestCase {
  std::string id;        // stable, e.g. "forward/float16/special/alpha=0.01"
  std::string category;  // "seed", "special", "rounding", "gradient", ...
  std::string op;        // "forward" or "backward"
  // The operator the case is for: "ai.onnx.LeakyRelu" (alpha a scalar
  // attribute) or "ai.onnx.PRelu" (alpha an input tensor "alpha", and for
  // backward a second output "dalpha", both of alpha_dtype and alpha_shape).
  std::string kernel_id = "ai.onnx.LeakyRelu";
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;           // empty: rank 0, one element
  DType alpha_dtype = DType::kFloat32;  // PRelu only
  std::vector<int64_t> alpha_shape;     // PRelu only; broadcasts to shape
  std::optional<double> alpha;  // nullopt: no alpha given (default 0.01)
  GradSource grad_source = GradSource::kFromX;  // backward only
  // Bit patterns of the storage type, flat in C order, widened to 64 bits.
  // forward: inputs {x}, expected {y}; backward: inputs {dy, x} or {dy, y}
  // (by grad_source), expected {dx}. PRelu: inputs {x, alpha} / {dy, x,
  // alpha}, expected {y} / {dx, dalpha}.
  std::map<std::string, std::vector<uint64_t>> inputs;
  std::map<std::string, std::vector<uint64_t>> expected;
  // Per output, flat indices where any NaN passes: the product made a NaN.
  std::map<std::string, std::vector<int64_t>> anynan;
  // Non-empty when the call must fail: "invalid_alpha" (the only one in v1)
  // means LRELU_STATUS_INVALID_ALPHA.
  std::string expected_error;

  // Elements per tensor (1 for rank 0, 0 for an empty tensor).
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  // Shape and dtype of the named tensor: alpha_* for PRelu's "alpha" and
  // "dalpha", shape and dtype for every other.
  bool is_alpha_tensor(const std::string& name) const {
    return name == "alpha" || name == "dalpha";
  }
  const std::vector<int64_t>& shape_of(const std::string& name) const {
    return is_alpha_tensor(name) ? alpha_shape : shape;
  }
  DType dtype_of(const std::string& name) const {
    return is_alpha_tensor(name) ? alpha_dtype : dtype;
  }
};

// One benchmark case of bench.json.
struct BenchCase {
  std::string id;        // e.g. "forward/float32/n=1Mi/in-place"
  std::string category;  // "1d" or "network"
  std::string op;        // "forward" or "backward"
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  bool in_place = false;  // forward y = x; backward dx = dy
  double alpha = kDefaultAlpha;
  GradSource grad_source = GradSource::kFromX;
  int64_t elements = 0;
  int64_t bytes_moved = 0;  // every input read once, every output written once
};

// metadata.json, plus where the package came from and what built it.
struct KernelMetadata {
  std::string id;
  int contract_version = 0;
  std::map<std::string, std::string> sha256;  // file name -> hex digest
  std::vector<std::string> variants;          // "reference", "contiguous", ...
  std::string selection_rule;
  std::string generator;  // "contract/generate.py"
  std::string
      source_revision;  // git revision of the library build, or "unknown"
  std::string build;    // compiler, build type and system of the library
  std::string origin;   // "embedded", or the directory it was loaded from
};

// A loaded, verified contract package. Cheap to copy (shared, immutable).
class LRELU_CONTRACT_API Kernel {
 public:
  struct Impl;  // internal
  explicit Kernel(std::shared_ptr<const Impl> impl);

  const std::string& id() const;  // "ai.onnx.LeakyRelu"
  int contract_version() const;
  double default_alpha() const;                         // 0.01
  const std::vector<DType>& dtypes() const;             // the type constraint T
  const std::vector<std::string>& input_names() const;  // {"x"}
  const std::vector<std::string>& output_names() const;     // {"y"}
  const std::vector<std::string>& attribute_names() const;  // {"alpha"}
  const std::vector<TestCase>& test_cases() const;
  const std::vector<BenchCase>& bench_cases() const;
  const KernelMetadata& metadata() const;
  const std::string& manifest_sha256() const;
  // The package's files by name ("manifest.json", "test.json", ...), exactly
  // the bytes that were verified; write them out to export the package.
  const std::map<std::string, std::string>& files() const;

  // kernel({{"x", x}}, {{"alpha", 0.2}}) -> {{"y", y}}: y is allocated with
  // x's shape and dtype. Unknown attributes, missing or unknown inputs are
  // errors; alpha defaults to default_alpha().
  std::map<std::string, Tensor> operator()(
      const std::map<std::string, TensorView>& inputs,
      const std::map<std::string, double>& attributes = {},
      const Options& options = Options()) const;

 private:
  std::shared_ptr<const Impl> impl_;
};

// A package compiled into this library.
struct KernelRef {
  std::string id;
  int contract_version = 0;
  std::string manifest_sha256;
};
LRELU_CONTRACT_API std::vector<KernelRef> available_kernels();

// The compiled-in kernel `id` ("ai.onnx.LeakyRelu") at `contract_version`
// (1): follows that version's fixes, like @huggingface/kernels' version: 1.
LRELU_CONTRACT_API Kernel get_kernel(std::string_view id, int contract_version);

// The compiled-in kernel `id` whose manifest.json has exactly this sha256
// (64 hex digits, any case): pins the exact contract bytes.
LRELU_CONTRACT_API Kernel get_kernel_pinned(std::string_view id,
                                            std::string_view manifest_sha256);

// Reads manifest.json, test.json, bench.json and metadata.json from `dir`
// and checks every file against the sha256 and size in metadata.json, so a
// modified file is refused. The package's contract version must be one this
// library implements (lrelu::contract_version()).
LRELU_CONTRACT_API Kernel load_kernel_from_dir(const std::string& dir);

// Parses a test.json document (the package's own, or one made elsewhere in
// the same format, e.g. ONNX's node tests converted). A document whose "id"
// is "ai.onnx.PRelu" is read in the PRelu package's format.
LRELU_CONTRACT_API std::vector<TestCase> parse_test_cases(
    std::string_view test_json);

// Parses a bench.json document (the package's own format; no header or
// digest checks, so a hand-made file works). `where` names the document in
// error messages.
LRELU_CONTRACT_API std::vector<BenchCase> parse_bench_cases(
    std::string_view bench_json, const std::string& where = "bench cases");

// ---------------------------------------------------------------------------
// Conformance: run test cases through the library (or any function) and
// compare bit for bit.
// ---------------------------------------------------------------------------

// How the runner lays out a case's tensors in memory.
enum class CaseLayout {
  kAuto,        // kStrided when options.variant is "strided", else kContiguous
  kContiguous,  // C-contiguous
  kStrided,     // every element 2 apart (strides = 2 x C-contiguous); the
                // gaps hold a sentinel that must survive the call
};

struct RunOptions {
  Options options;  // variant ("" = auto), cpu_target, threads
  CaseLayout layout = CaseLayout::kAuto;
  bool in_place = false;  // forward y = x, backward dx = dy
};

struct CaseResult {
  std::string id;
  bool passed = false;
  std::string message;  // why it failed; "" when it passed
};

// Computes a case: reads the views in `inputs`, writes the views in
// `outputs` (named like TestCase::inputs / ::expected; laid out and aliased
// per RunOptions). Throws lrelu::Error when the call is refused.
using CaseFunction = std::function<void(
    const TestCase& test_case, const std::map<std::string, TensorView>& inputs,
    const std::map<std::string, TensorView>& outputs,
    const RunOptions& options)>;

// The CaseFunction that calls lrelu::leaky_relu / leaky_relu_backward (or,
// for a PRelu case, lrelu::prelu / prelu_backward: the public lrelu_prelu C
// ABI) with run_options.options.
LRELU_CONTRACT_API void run_case_with_library(
    const TestCase& test_case, const std::map<std::string, TensorView>& inputs,
    const std::map<std::string, TensorView>& outputs,
    const RunOptions& run_options);

// Runs one case: lays the inputs out, calls `compute` (default:
// run_case_with_library) and checks the outputs bit for bit (any NaN at the
// case's anynan indices), the inputs untouched (unless in place), the
// strided gaps untouched, and, for an expected error, that the call failed
// with that status and wrote nothing.
LRELU_CONTRACT_API CaseResult run_case(
    const TestCase& test_case, const RunOptions& run_options = RunOptions(),
    const CaseFunction& compute = CaseFunction());

LRELU_CONTRACT_API std::vector<CaseResult> run_cases(
    const std::vector<TestCase>& cases,
    const RunOptions& run_options = RunOptions(),
    const CaseFunction& compute = CaseFunction());

LRELU_CONTRACT_API std::vector<CaseResult> run_cases(
    const Kernel& kernel, const RunOptions& run_options = RunOptions(),
    const CaseFunction& compute = CaseFunction());

}  // namespace lrelu

#endif  // LRELU_KERNEL_HPP_
