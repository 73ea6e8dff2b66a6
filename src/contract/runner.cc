// The conformance runner: lays a case's tensors out in memory (contiguous
// or strided, in place or not), runs it, and compares bit for bit.
#include <algorithm>
#include <cstring>
#include <exception>
#include <set>
#include <sstream>
#include <utility>

#include "bits.h"
#include "kernel_impl.h"

namespace lrelu {
namespace {

// Fills every element the case does not own (strided gaps, unwritten
// outputs), so a stray write shows.
constexpr uint64_t kSentinel = 0xa5a5a5a5a5a5a5a5ull;

uint64_t SentinelOf(DType dtype) {
  const std::size_t bits = 8 * dtype_size(dtype);
  return bits == 64 ? kSentinel : kSentinel & ((uint64_t{1} << bits) - 1);
}

// One tensor of a case in memory.
struct Laid {
  std::vector<unsigned char> storage;
  std::vector<int64_t> strides;  // empty: C-contiguous
  std::vector<int64_t> offsets;  // element offset of flat (C-order) index i
};

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;) {
    strides[k - 1] = strides[k] * shape[k];
  }
  return strides;
}

int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Lays out the case's tensor `name` (its shape and dtype: TestCase::shape_of,
// dtype_of).
Laid Lay(const TestCase& c, const std::string& name, bool strided) {
  Laid t;
  const std::vector<int64_t>& shape = c.shape_of(name);
  const DType dtype = c.dtype_of(name);
  const int64_t n = Numel(shape);
  // Rank 0 has no strides to spread; it stays one element.
  const int64_t spread = strided && !shape.empty() ? 2 : 1;
  std::vector<int64_t> strides = ContiguousStrides(shape);
  if (spread != 1) {
    for (int64_t& s : strides) s *= spread;
    t.strides = strides;
  }
  t.offsets.resize(static_cast<std::size_t>(n));
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (std::size_t k = 0; k < index.size(); ++k)
      offset += index[k] * strides[k];
    t.offsets[static_cast<std::size_t>(i)] = offset;
    for (std::size_t k = index.size(); k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  const std::size_t elements = static_cast<std::size_t>(n * spread);
  t.storage.resize(elements * dtype_size(dtype));
  for (std::size_t i = 0; i < elements; ++i) {
    contract::StoreBits(t.storage.data(), i, kSentinel, dtype);
  }
  return t;
}

TensorView ViewOf(Laid& t, const TestCase& c, const std::string& name) {
  return TensorView(t.storage.empty() ? nullptr : t.storage.data(),
                    c.dtype_of(name), c.shape_of(name), t.strides);
}

std::string StatusName(lrelu_status_t s) { return lrelu_status_string(s); }

lrelu_status_t ExpectedStatus(const std::string& expected_error) {
  if (expected_error == "invalid_alpha") return LRELU_STATUS_INVALID_ALPHA;
  return LRELU_STATUS_INTERNAL;
}

// Compares output `name` with the case's expectation; appends problems.
void CompareOutput(const TestCase& c, const std::string& name, const Laid& t,
                   std::ostringstream* problems) {
  const std::vector<uint64_t>& want = c.expected.at(name);
  const DType dtype = c.dtype_of(name);
  static const std::vector<int64_t> kNone;
  const auto nan_it = c.anynan.find(name);
  const std::vector<int64_t>& anynan =
      nan_it == c.anynan.end() ? kNone : nan_it->second;
  std::size_t bad = 0, shown = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const uint64_t got = contract::LoadBits(
        t.storage.data(), static_cast<std::size_t>(t.offsets[i]), dtype);
    const bool any_nan = std::binary_search(anynan.begin(), anynan.end(),
                                            static_cast<int64_t>(i));
    const bool ok = any_nan ? contract::IsNaNBits(got, dtype) : got == want[i];
    if (ok) continue;
    ++bad;
    if (shown++ < 3) {
      *problems << " " << name << "[" << i << "]: expected "
                << (any_nan ? "any NaN" : contract::FormatBits(want[i], dtype))
                << ", got " << contract::FormatBits(got, dtype) << ";";
    }
  }
  if (bad > 0) {
    *problems << " " << bad << " of " << want.size() << " elements of " << name
              << " differ;";
  }
}

// Every element of `t` outside the tensor (the strided gaps) must still
// hold the sentinel.
void CheckGaps(const TestCase& c, const std::string& name, const Laid& t,
               std::ostringstream* problems) {
  const DType dtype = c.dtype_of(name);
  const std::set<int64_t> owned(t.offsets.begin(), t.offsets.end());
  const std::size_t elements = t.storage.size() / dtype_size(dtype);
  for (std::size_t i = 0; i < elements; ++i) {
    if (owned.count(static_cast<int64_t>(i)) != 0) continue;
    if (contract::LoadBits(t.storage.data(), i, dtype) != SentinelOf(dtype)) {
      *problems << " wrote into a gap of " << name << " (element " << i
                << " of the buffer);";
      return;
    }
  }
}

}  // namespace

void run_case_with_library(const TestCase& c,
                           const std::map<std::string, TensorView>& inputs,
                           const std::map<std::string, TensorView>& outputs,
                           const RunOptions& run_options) {
  if (c.kernel_id == "ai.onnx.PRelu") {
    if (c.op == "forward") {
      prelu(inputs.at("x"), inputs.at("alpha"), outputs.at("y"),
            run_options.options);
    } else {
      prelu_backward(inputs.at("dy"), inputs.at("x"), inputs.at("alpha"),
                     &outputs.at("dx"), &outputs.at("dalpha"),
                     run_options.options);
    }
    return;
  }
  const double alpha = c.alpha.value_or(kDefaultAlpha);
  if (c.op == "forward") {
    leaky_relu(inputs.at("x"), outputs.at("y"), alpha, run_options.options);
  } else {
    const char* s = c.grad_source == GradSource::kFromX ? "x" : "y";
    leaky_relu_backward(inputs.at("dy"), inputs.at(s), outputs.at("dx"), alpha,
                        c.grad_source, run_options.options);
  }
}

CaseResult run_case(const TestCase& c, const RunOptions& run_options,
                    const CaseFunction& compute) {
  CaseResult result;
  result.id = c.id;
  const bool strided = run_options.layout == CaseLayout::kStrided ||
                       (run_options.layout == CaseLayout::kAuto &&
                        run_options.options.variant == "strided");
  // The output that may alias an input (y = x, dx = dy); PRelu's dalpha is
  // a second output that never does.
  const std::string out_name = c.op == "forward" ? "y" : "dx";
  const std::string aliased = c.op == "forward" ? "x" : "dy";
  std::vector<std::string> extra_outputs;
  if (c.kernel_id == "ai.onnx.PRelu" && c.op == "backward") {
    extra_outputs.push_back("dalpha");
  }

  std::map<std::string, Laid> laid;
  for (const auto& kv : c.inputs) {
    Laid t = Lay(c, kv.first, strided);
    for (std::size_t i = 0; i < kv.second.size(); ++i) {
      contract::StoreBits(t.storage.data(),
                          static_cast<std::size_t>(t.offsets[i]), kv.second[i],
                          c.dtype_of(kv.first));
    }
    laid.emplace(kv.first, std::move(t));
  }
  if (!run_options.in_place) laid.emplace(out_name, Lay(c, out_name, strided));
  for (const std::string& name : extra_outputs) {
    laid.emplace(name, Lay(c, name, strided));
  }
  // What every buffer held before the call: inputs must not change (except
  // one updated in place), and a refused call must write nothing.
  std::map<std::string, std::vector<unsigned char>> before;
  for (const auto& kv : laid) before[kv.first] = kv.second.storage;

  std::map<std::string, TensorView> inputs, outputs;
  for (const auto& kv : c.inputs)
    inputs[kv.first] = ViewOf(laid.at(kv.first), c, kv.first);
  const std::string out_buffer = run_options.in_place ? aliased : out_name;
  outputs[out_name] = ViewOf(laid.at(out_buffer), c, out_name);
  for (const std::string& name : extra_outputs) {
    outputs[name] = ViewOf(laid.at(name), c, name);
  }

  std::ostringstream problems;
  bool refused = false;
  lrelu_status_t status = LRELU_STATUS_OK;
  std::string what;
  try {
    if (compute) {
      compute(c, inputs, outputs, run_options);
    } else {
      run_case_with_library(c, inputs, outputs, run_options);
    }
  } catch (const Error& e) {
    refused = true;
    status = e.status();
    what = e.what();
  } catch (const std::exception& e) {
    result.message = std::string("threw: ") + e.what();
    return result;
  }

  if (!c.expected_error.empty()) {
    if (!refused) {
      problems << " expected the call to fail with "
               << StatusName(ExpectedStatus(c.expected_error))
               << ", but it succeeded;";
    } else if (status != ExpectedStatus(c.expected_error)) {
      problems << " expected " << StatusName(ExpectedStatus(c.expected_error))
               << ", got " << StatusName(status) << " (" << what << ");";
    }
    for (const auto& kv : laid) {
      if (kv.second.storage != before.at(kv.first)) {
        problems << " a refused call changed " << kv.first << ";";
      }
    }
  } else if (refused) {
    problems << " call failed: " << StatusName(status) << ": " << what << ";";
  } else {
    CompareOutput(c, out_name, laid.at(out_buffer), &problems);
    for (const std::string& name : extra_outputs) {
      CompareOutput(c, name, laid.at(name), &problems);
    }
    for (const auto& kv : laid) {
      if (kv.first == out_buffer || outputs.count(kv.first) != 0) {
        CheckGaps(c, kv.first, kv.second, &problems);
      } else if (kv.second.storage != before.at(kv.first)) {
        problems << " input " << kv.first << " changed;";
      }
    }
  }
  result.message = problems.str();
  if (!result.message.empty() && result.message[0] == ' ') {
    result.message.erase(0, 1);
  }
  result.passed = result.message.empty();
  return result;
}

std::vector<CaseResult> run_cases(const std::vector<TestCase>& cases,
                                  const RunOptions& run_options,
                                  const CaseFunction& compute) {
  std::vector<CaseResult> results;
  results.reserve(cases.size());
  for (const TestCase& c : cases) {
    results.push_back(run_case(c, run_options, compute));
  }
  return results;
}

std::vector<CaseResult> run_cases(const Kernel& kernel,
                                  const RunOptions& run_options,
                                  const CaseFunction& compute) {
  return run_cases(kernel.test_cases(), run_options, compute);
}

}  // namespace lrelu
