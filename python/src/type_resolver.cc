#include "type_resolver.h"

#include "dtypes.h"
#include "lrelu/lrelu.h"

namespace lrelu_python {
namespace {

const char kDtypes[] =
    "lrelu computes float16, bfloat16, float32 and float64 only (contract v1)";

// The dtype a signature entry names (a dtype, type or string), a new
// reference; nullptr with no error for None; nullptr with an error when it
// names no dtype.
PyArray_Descr* EntryDescr(PyObject* entry) {
  if (entry == Py_None) return nullptr;
  PyArray_Descr* descr = nullptr;
  if (PyArray_DescrConverter(entry, &descr) != NPY_SUCCEED) return nullptr;
  return descr;
}

// x's (and y's) type number from dtype=/signature=: the entry for y, else the
// one for x. -1 with an error if neither names a dtype lrelu computes, or
// alpha's entry is not float64.
int TypeNumFromSignature(PyObject* type_tup) {
  if (!PyTuple_Check(type_tup) || PyTuple_GET_SIZE(type_tup) != 3) {
    PyErr_Format(PyExc_TypeError,
                 "lrelu.ufunc: signature %R does not have three entries "
                 "(x, alpha, y)",
                 type_tup);
    return -1;
  }
  int type_num[3] = {-1, -1, -1};
  for (int i = 0; i < 3; ++i) {
    PyArray_Descr* descr = EntryDescr(PyTuple_GET_ITEM(type_tup, i));
    if (descr == nullptr) {
      if (PyErr_Occurred()) return -1;
      continue;
    }
    type_num[i] = descr->type_num;
    Py_DECREF(descr);
  }
  const int chosen = type_num[2] >= 0 ? type_num[2] : type_num[0];
  lrelu_dtype_t dtype;
  if (chosen < 0 || !DtypeFromNumpy(chosen, &dtype) ||
      (type_num[0] >= 0 && type_num[0] != chosen) ||
      (type_num[1] >= 0 && type_num[1] != NPY_DOUBLE)) {
    PyErr_Format(PyExc_TypeError,
                 "lrelu.ufunc: no loop for signature %R: x and y take one "
                 "dtype, alpha float64; %s",
                 type_tup, kDtypes);
    return -1;
  }
  return chosen;
}

}  // namespace

int ResolveTypes(PyUFuncObject* ufunc, NPY_CASTING casting,
                 PyArrayObject** operands, PyObject* type_tup,
                 PyArray_Descr** out_dtypes) {
  int type_num;
  if (type_tup == nullptr) {
    type_num = PyArray_TYPE(operands[0]);
    lrelu_dtype_t dtype;
    if (!DtypeFromNumpy(type_num, &dtype)) {
      PyErr_Format(PyExc_TypeError, "lrelu.ufunc: x has dtype %S; %s",
                   reinterpret_cast<PyObject*>(PyArray_DESCR(operands[0])),
                   kDtypes);
      return -1;
    }
  } else {
    type_num = TypeNumFromSignature(type_tup);
    if (type_num < 0) return -1;
  }
  out_dtypes[0] = PyArray_DescrFromType(type_num);
  out_dtypes[1] = PyArray_DescrFromType(NPY_DOUBLE);
  if (out_dtypes[0] == nullptr || out_dtypes[1] == nullptr) {
    Py_XDECREF(out_dtypes[0]);
    Py_XDECREF(out_dtypes[1]);
    return -1;
  }
  Py_INCREF(out_dtypes[0]);
  out_dtypes[2] = out_dtypes[0];
  if (PyUFunc_ValidateCasting(ufunc, casting, operands, out_dtypes) < 0) {
    for (int i = 0; i < 3; ++i) Py_DECREF(out_dtypes[i]);
    return -1;
  }
  return 0;
}

}  // namespace lrelu_python
