// Whether the calling thread holds the GIL, for diagnostics only: decisions
// to release it are taken where the holder is known (see ufunc.cc).
#ifndef LRELU_PYTHON_GIL_H_
#define LRELU_PYTHON_GIL_H_

namespace lrelu_python {

// Compares the interpreter's current thread state with this OS thread; right
// under subinterpreters too, where PyGILState_Check always answers 1.
bool ThisThreadHoldsGil();

}  // namespace lrelu_python

#endif  // LRELU_PYTHON_GIL_H_
