// One builder-style tester for LeakyReLU through the public API (the shape of
// XNNPACK's unary operator testers): describe a case, run it on any backend,
// compare every element with the reference oracle and check that no byte
// outside the output changed.
//
//   LeakyReluTester().dtype(LRELU_DTYPE_FLOAT16).shape({3, 5})
//       .alpha(0.1).threads(2).inplace(true).Test();
//
// A test suite written against it runs unchanged on another backend by one
// more call (.backend(LRELU_BACKEND_OPENCL) or .cpu_target("SSE4")).
#ifndef LRELU_TESTS_SUPPORT_LRELU_TESTER_H_
#define LRELU_TESTS_SUPPORT_LRELU_TESTER_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "lrelu/lrelu.hpp"
#include "support/memory.h"

namespace lrelu::testing {

class LeakyReluTester {
 public:
  LeakyReluTester& dtype(lrelu_dtype_t value) {
    dtype_ = value;
    return *this;
  }
  // Logical shape; the default is one element.
  LeakyReluTester& shape(std::vector<int64_t> value) {
    shape_ = std::move(value);
    return *this;
  }
  // Element strides of x (or dy), of the sign source and of the output; each
  // may be negative or (inputs only) zero. Empty: C order, dense.
  LeakyReluTester& strides(std::vector<int64_t> x, std::vector<int64_t> s,
                           std::vector<int64_t> y) {
    x_strides_ = std::move(x);
    s_strides_ = std::move(s);
    y_strides_ = std::move(y);
    return *this;
  }
  // Where each buffer starts: `elements` past a 64-byte boundary, or one
  // byte past it (not even element-aligned) with misaligned(true).
  LeakyReluTester& offset(size_t elements) {
    offset_ = elements;
    return *this;
  }
  // The output's own offset (default: offset()'s).
  LeakyReluTester& y_offset(size_t elements) {
    y_offset_ = static_cast<int64_t>(elements);
    return *this;
  }
  LeakyReluTester& misaligned(bool value) {
    misaligned_ = value;
    return *this;
  }
  LeakyReluTester& alpha(double value) {
    alpha_ = value;
    return *this;
  }
  LeakyReluTester& threads(size_t value) {
    threads_ = value;
    return *this;
  }
  LeakyReluTester& backend(lrelu_backend_t value) {
    backend_ = value;
    return *this;
  }
  LeakyReluTester& cpu_target(std::string value) {
    cpu_target_ = std::move(value);
    return *this;
  }
  // options.variant ("auto", "contiguous", "strided", "reference", ...).
  LeakyReluTester& variant(std::string value) {
    variant_ = std::move(value);
    return *this;
  }
  // The output is x's (or dy's) own buffer and view.
  LeakyReluTester& inplace(bool value) {
    inplace_ = value;
    return *this;
  }
  // The gradient dx = s < 0 ? alpha * dy : dy (s from x) instead of forward.
  LeakyReluTester& gradient(bool value) {
    gradient_ = value;
    return *this;
  }
  // Where the gradient's sign comes from: x (default) or y (alpha > 0); the
  // s tensor holds it either way.
  LeakyReluTester& grad_source(GradSource value) {
    grad_source_ = value;
    return *this;
  }
  // A caller's pool (options.thread_pool); nullptr: lrelu's own.
  LeakyReluTester& thread_pool(const lrelu_thread_pool_t* value) {
    thread_pool_ = value;
    return *this;
  }
  // Runs of one planned executor (out of place only: in place, a second run
  // would apply the op twice).
  LeakyReluTester& executions(int value) {
    executions_ = value;
    return *this;
  }
  // Raw element bits of x (or dy) and s in logical (C) order; otherwise
  // random bits full of special values from `seed`.
  LeakyReluTester& x_bits(std::vector<uint64_t> value) {
    x_bits_ = std::move(value);
    return *this;
  }
  LeakyReluTester& s_bits(std::vector<uint64_t> value) {
    s_bits_ = std::move(value);
    return *this;
  }
  LeakyReluTester& seed(uint64_t value) {
    seed_ = value;
    return *this;
  }
  // Where the operands live for the library: nullptr (the default) the
  // host buffers themselves; otherwise blocks from *value (a device's
  // memory), filled from the host buffers and read back after the call.
  LeakyReluTester& memory(const Memory* value) {
    memory_ = value;
    return *this;
  }
  // A planned executor (execute once) instead of the one-shot call.
  LeakyReluTester& planned(bool value) {
    planned_ = value;
    return *this;
  }

  // Runs the case; "" when every element matches the oracle and nothing
  // outside the output changed, else the first difference. Throws
  // lrelu::Error when the library refuses the case.
  std::string Run();

  // Run() under gtest: fails the test with a description of the case.
  void Test() {
    const std::string diff = Run();
    ASSERT_EQ(diff, "") << Describe();
  }

  // What the last Run() reported (planned runs only).
  const std::string& last_variant() const { return last_variant_; }
  size_t last_tasks() const { return last_tasks_; }
  const std::string& last_cpu_target() const { return last_cpu_target_; }

  std::string Describe() const;

 private:
  lrelu_dtype_t dtype_ = LRELU_DTYPE_FLOAT32;
  std::vector<int64_t> shape_ = {1};
  std::vector<int64_t> x_strides_, s_strides_, y_strides_;
  size_t offset_ = 0;
  int64_t y_offset_ = -1;  // -1: offset_
  bool misaligned_ = false;
  double alpha_ = 0.01;
  size_t threads_ = 1;
  lrelu_backend_t backend_ = LRELU_BACKEND_CPU;
  std::string cpu_target_;
  std::string variant_ = "auto";
  bool inplace_ = false;
  bool gradient_ = false;
  bool planned_ = true;
  GradSource grad_source_ = GradSource::kFromX;
  const lrelu_thread_pool_t* thread_pool_ = nullptr;
  const Memory* memory_ = nullptr;
  int executions_ = 1;
  std::vector<uint64_t> x_bits_, s_bits_;
  uint64_t seed_ = 1;

  std::string last_variant_;
  size_t last_tasks_ = 0;
  std::string last_cpu_target_;
};

}  // namespace lrelu::testing

#endif  // LRELU_TESTS_SUPPORT_LRELU_TESTER_H_
