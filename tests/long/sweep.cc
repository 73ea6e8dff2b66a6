#include "sweep.h"

#include <cstdlib>
#include <cstring>

#include "reference/reference.h"
#include "support/test_data.h"

namespace lrelu::long_tests {
namespace {

// Compares the kernel's output with the oracle's; memcmp first, since
// nearly every chunk matches exactly.
std::string Compare(lrelu_dtype_t dtype, const void* v, const void* s,
                    const std::vector<unsigned char>& expected,
                    const std::vector<unsigned char>& actual, size_t n,
                    double alpha, const std::string& what) {
  if (std::memcmp(expected.data(), actual.data(), expected.size()) == 0) {
    return "";
  }
  const std::string detail =
      testing::CompareWithReference(dtype, v, s, actual.data(), n, alpha);
  return detail.empty() ? "" : what + ": " + detail;
}

std::string Run(lrelu_dtype_t dtype, const void* v, const void* s, size_t n,
                double alpha, bool backward, const std::string& target,
                void* out) {
  const int64_t shape[1] = {static_cast<int64_t>(n)};
  lrelu_tensor_t tv{const_cast<void*>(v), dtype, 1, shape, nullptr};
  lrelu_tensor_t ts{const_cast<void*>(s), dtype, 1, shape, nullptr};
  lrelu_tensor_t to{out, dtype, 1, shape, nullptr};
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.threads = 1;
  options.cpu_target = target.c_str();
  const lrelu_status_t status =
      backward ? lrelu_leaky_relu_backward(&tv, &ts, alpha, LRELU_GRAD_FROM_X,
                                           &to, &options)
               : lrelu_leaky_relu(&tv, alpha, &to, &options);
  return status == LRELU_STATUS_OK ? "" : lrelu_last_error();
}

}  // namespace

std::vector<std::string> RunnableTargets() {
  std::vector<std::string> names;
  for (size_t i = 0; i < lrelu_cpu_target_count(); ++i) {
    names.push_back(lrelu_cpu_target_name(i));
  }
  return names;
}

bool QuickMode() {
  const char* quick = std::getenv("LRELU_LONG_QUICK");
  return quick != nullptr && std::strcmp(quick, "1") == 0;
}

std::string SweepChunk(lrelu_dtype_t dtype, const void* x, const void* dy,
                       size_t n, double alpha,
                       const std::vector<std::string>& targets,
                       SweepBuffers* b) {
  const size_t bytes = n * lrelu_dtype_size(dtype);
  b->expected.resize(bytes);
  b->actual.resize(bytes);
  for (const bool backward : {false, true}) {
    const void* v = backward ? dy : x;
    reference::Apply(dtype, v, x, b->expected.data(), n, alpha);
    for (const std::string& target : targets) {
      std::string problem =
          Run(dtype, v, x, n, alpha, backward, target, b->actual.data());
      const std::string what =
          std::string(backward ? "gradient" : "forward") + " on " + target;
      if (!problem.empty()) return what + " refused: " + problem;
      problem = Compare(dtype, v, x, b->expected, b->actual, n, alpha, what);
      if (!problem.empty()) return problem;
    }
  }
  return "";
}

}  // namespace lrelu::long_tests
