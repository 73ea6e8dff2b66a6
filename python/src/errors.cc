#include "errors.h"

#include <Python.h>
#include <nanobind/nanobind.h>

#include "error_kind.h"

namespace nb = nanobind;

namespace lrelu_python {

PyObject* ExceptionFor(lrelu_status_t status) {
  switch (ErrorKindOf(status)) {
    case ErrorKind::kType:
      return PyExc_TypeError;
    case ErrorKind::kValue:
      return PyExc_ValueError;
    case ErrorKind::kOverflow:
      return PyExc_OverflowError;
    case ErrorKind::kMemory:
      return PyExc_MemoryError;
    case ErrorKind::kRuntime:
      break;
  }
  return PyExc_RuntimeError;
}

void ThrowStatus(lrelu_status_t status, const std::string& message) {
  PyErr_Format(ExceptionFor(status), "lrelu: %s (%s)", message.c_str(),
               lrelu_status_string(status));
  throw nb::python_error();
}

}  // namespace lrelu_python
