#include "overlap.h"

#include <algorithm>

namespace lrelu_python {
namespace {

struct Extent {
  uintptr_t lo;
  uintptr_t hi;  // one past the last byte
};

Extent ExtentOf(const char* p, int64_t step, int64_t n, int64_t itemsize) {
  const auto base = reinterpret_cast<uintptr_t>(p);
  const int64_t span = (n - 1) * step;
  // Modular unsigned arithmetic: a negative span subtracts.
  return {base + static_cast<uintptr_t>(std::min<int64_t>(span, 0)),
          base + static_cast<uintptr_t>(std::max<int64_t>(span, 0) + itemsize)};
}

}  // namespace

RunSharing ClassifySharing(const char* x, int64_t x_step, const char* y,
                           int64_t y_step, int64_t n, int64_t itemsize) {
  if (n <= 0) return {Sharing::kNone, 0};
  if (x == y && (x_step == y_step || n == 1)) return {Sharing::kSame, 0};
  const Extent xe = ExtentOf(x, x_step, n, itemsize);
  const Extent ye = ExtentOf(y, y_step, n, itemsize);
  if (xe.hi <= ye.lo || ye.hi <= xe.lo) return {Sharing::kNone, 0};
  // Equal whole-element steps: x[i] is y[i + d / step]. When that element of
  // y comes earlier (d / step < 0), in-order processing reads what the loop
  // wrote (ufunc.accumulate feeds y[i - 1] back as x[i]).
  const int64_t d = static_cast<int64_t>(reinterpret_cast<uintptr_t>(x) -
                                         reinterpret_cast<uintptr_t>(y));
  if (x_step == y_step && x_step % itemsize == 0 && x_step != 0 &&
      d % x_step == 0 && d / x_step < 0) {
    return {Sharing::kChained, -(d / x_step)};
  }
  return {Sharing::kOther, 0};
}

}  // namespace lrelu_python
