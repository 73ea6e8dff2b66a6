// How many tasks lrelu may split one call into, as the Python package sees
// it: a process-wide default (lrelu.set_threads) and a per-thread override
// that a call's threads= argument holds while the call runs. The ufunc's
// inner loops run without the GIL and cannot see Python state, so they read
// these instead.
#ifndef LRELU_PYTHON_THREADS_H_
#define LRELU_PYTHON_THREADS_H_

#include <cstddef>
#include <cstdint>

#include "lrelu/lrelu.h"

namespace lrelu_python {

// 0 = all hardware threads (the library's own rule).
size_t DefaultThreads();
void SetDefaultThreads(size_t threads);

// Sets this thread's override (-1 = none) and returns the previous one, so
// that the caller can restore it.
int64_t SwapThreadOverride(int64_t threads);

// Options for a call made now on this thread: the override if set, else the
// default.
lrelu_options_t CurrentOptions();

}  // namespace lrelu_python

#endif  // LRELU_PYTHON_THREADS_H_
