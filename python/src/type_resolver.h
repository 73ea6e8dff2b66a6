// The ufunc's type resolver: x alone selects the loop. y gets x's dtype
// whatever alpha is (a Python float, a 0-d or n-d array of any real dtype),
// since alpha is always read as float64 (NumPy's own resolution would let a
// float64 alpha array and a 0-d float32 x pick the float16 loop by value).
#ifndef LRELU_PYTHON_TYPE_RESOLVER_H_
#define LRELU_PYTHON_TYPE_RESOLVER_H_

#include "numpy_api.h"

namespace lrelu_python {

// A PyUFunc_TypeResolutionFunc. Without dtype=/signature=: x's dtype (native
// byte order) for x and y, float64 for alpha; other x dtypes (integers, bool,
// complex, object) are a TypeError, where NumPy would cast them. With them:
// the dtype named for x or y (bfloat16 included), which must be one lrelu
// computes, and alpha float64. The casts of the operands are checked against
// casting= as NumPy does.
int ResolveTypes(PyUFuncObject* ufunc, NPY_CASTING casting,
                 PyArrayObject** operands, PyObject* type_tup,
                 PyArray_Descr** out_dtypes);

}  // namespace lrelu_python

#endif  // LRELU_PYTHON_TYPE_RESOLVER_H_
