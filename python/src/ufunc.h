// lrelu.ufunc: y = leaky_relu(x, alpha) as a NumPy ufunc, so that out=,
// where=, casting=, dtype=, broadcasting and __array_ufunc__ overrides (dask,
// xarray) all work as for any NumPy ufunc.
//
// Loops: 'ed->e', 'fd->f', 'dd->d' and, with ml_dtypes, bfloat16 x with a
// float64 alpha. alpha is always a float64 operand: the library takes alpha
// as a double and rounds it to float32 once for the 16- and 32-bit types, as
// the contract says; a float16 or float32 alpha operand would round it first.
#ifndef LRELU_PYTHON_UFUNC_H_
#define LRELU_PYTHON_UFUNC_H_

#include <nanobind/nanobind.h>

namespace lrelu_python {

// A new ufunc object. Registers the bfloat16 loop when BFloat16TypeNum() is
// known. Needs import_array and import_umath done.
nanobind::object MakeUfunc();

// Whether the most recent inner loop ran holding the GIL (for the tests).
bool LastLoopHeldGil();

}  // namespace lrelu_python

#endif  // LRELU_PYTHON_UFUNC_H_
