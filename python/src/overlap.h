// How the x and y runs of one ufunc inner-loop call share memory, so that
// the loop keeps NumPy's meaning (elements processed in order, which for the
// calls NumPy makes is the same as reading all of x before writing y) while
// the library refuses any partial overlap.
#ifndef LRELU_PYTHON_OVERLAP_H_
#define LRELU_PYTHON_OVERLAP_H_

#include <cstddef>
#include <cstdint>

namespace lrelu_python {

enum class Sharing {
  kNone,     // no byte in common: one library call
  kSame,     // the same elements (in place): one library call
  kChained,  // y[i] is x[i + lag] read later (ufunc.accumulate): in order,
             // lag elements per call
  kOther,    // anything else (interleaved, x ahead of y): through a copy of x
};

struct RunSharing {
  Sharing sharing;
  int64_t lag;  // for kChained: elements between a write and its read
};

// x and y: n elements of itemsize bytes, steps in bytes (any sign; y_step is
// not 0).
RunSharing ClassifySharing(const char* x, int64_t x_step, const char* y,
                           int64_t y_step, int64_t n, int64_t itemsize);

}  // namespace lrelu_python

#endif  // LRELU_PYTHON_OVERLAP_H_
