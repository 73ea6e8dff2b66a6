// Turns a failed lrelu status into the Python exception that names it.
#ifndef LRELU_PYTHON_ERRORS_H_
#define LRELU_PYTHON_ERRORS_H_

#include <Python.h>

#include <string>

#include "lrelu/lrelu.h"

namespace lrelu_python {

// The Python exception type for a status: TypeError for dtypes, ValueError
// for shapes, overlap, alpha and arguments, OverflowError for sizes,
// MemoryError, RuntimeError for the rest. A borrowed reference.
PyObject* ExceptionFor(lrelu_status_t status);

// Raises the exception for status with message (from lrelu_last_error() of
// the thread that made the failing call). Needs the GIL.
[[noreturn]] void ThrowStatus(lrelu_status_t status,
                              const std::string& message);

}  // namespace lrelu_python

#endif  // LRELU_PYTHON_ERRORS_H_
