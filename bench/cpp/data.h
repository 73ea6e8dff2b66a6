// Buffers and test data for the harness, and the bit-level comparison that
// the correctness pass reports.
#ifndef LRELU_BENCH_DATA_H_
#define LRELU_BENCH_DATA_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "lrelu/lrelu.h"

namespace lrelu_bench {

// A 64-byte-aligned, pre-faulted buffer (page faults stay out of the timing).
class Buffer {
 public:
  explicit Buffer(size_t bytes);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

// Short dtype names used in tables and JSON: f32, f16, bf16, f64.
const char* ShortName(lrelu_dtype_t dtype);
bool ParseDtype(const std::string& name, lrelu_dtype_t* dtype);

// n values uniform in [-1, 1) (about half negative), as bench.json specifies.
void FillUniform(lrelu_dtype_t dtype, void* x, size_t n, uint64_t seed);

// Values in [-4, 4) with the dtype table's special values (signed zeros,
// infinities, quiet and signalling NaNs, subnormals, extremes) mixed in:
// what the correctness pass compares.
void FillWithSpecials(lrelu_dtype_t dtype, void* x, size_t n, uint64_t seed);

// How a peer's output differs from lrelu's, element by element.
struct Diff {
  size_t n = 0;
  size_t value = 0;      // both numbers, different values
  uint64_t max_ulp = 0;  // largest of those differences, in ulps
  size_t nan_bits = 0;   // both NaN, different bits
  size_t zero_sign = 0;  // +0 against -0
  size_t nan_lost = 0;   // NaN on one side only
  bool exact() const { return !value && !nan_bits && !zero_sign && !nan_lost; }
  std::string ToString() const;
};

Diff Compare(lrelu_dtype_t dtype, const void* expected, const void* actual,
             size_t n);

}  // namespace lrelu_bench

#endif  // LRELU_BENCH_DATA_H_
