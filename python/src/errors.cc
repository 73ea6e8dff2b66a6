#include "errors.h"

#include <Python.h>
#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace lrelu_python {

PyObject* ExceptionFor(lrelu_status_t status) {
  switch (status) {
    case LRELU_STATUS_UNSUPPORTED_DTYPE:
    case LRELU_STATUS_DTYPE_MISMATCH:
      return PyExc_TypeError;
    case LRELU_STATUS_INVALID_ARGUMENT:
    case LRELU_STATUS_SHAPE_MISMATCH:
    case LRELU_STATUS_OVERLAP:
    case LRELU_STATUS_NULL_DATA:
    case LRELU_STATUS_INVALID_ALPHA:
      return PyExc_ValueError;
    case LRELU_STATUS_SIZE_OVERFLOW:
      return PyExc_OverflowError;
    case LRELU_STATUS_OUT_OF_MEMORY:
      return PyExc_MemoryError;
    default:
      return PyExc_RuntimeError;
  }
}

void ThrowStatus(lrelu_status_t status, const std::string& message) {
  PyErr_Format(ExceptionFor(status), "lrelu: %s (%s)", message.c_str(),
               lrelu_status_string(status));
  throw nb::python_error();
}

}  // namespace lrelu_python
