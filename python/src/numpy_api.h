// Every translation unit of the extension shares one NumPy C-API table.
// module.cc defines LRELU_PYTHON_IMPORT_NUMPY and fills the table
// (import_array, import_umath); the others only use it.
#ifndef LRELU_PYTHON_NUMPY_API_H_
#define LRELU_PYTHON_NUMPY_API_H_

#define PY_ARRAY_UNIQUE_SYMBOL lrelu_python_ARRAY_API
#define PY_UFUNC_UNIQUE_SYMBOL lrelu_python_UFUNC_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#ifndef LRELU_PYTHON_IMPORT_NUMPY
#define NO_IMPORT_ARRAY
#define NO_IMPORT_UFUNC
#endif

#include <Python.h>
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>

#endif  // LRELU_PYTHON_NUMPY_API_H_
