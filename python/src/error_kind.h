// Which kind of exception a failed lrelu status raises: one table for the
// extension (Python's exception types, errors.cc) and the torch operators
// (torch's c10 errors, torch_ops/kernels.cc), so both raise alike.
#ifndef LRELU_PYTHON_SRC_ERROR_KIND_H_
#define LRELU_PYTHON_SRC_ERROR_KIND_H_

#include "lrelu/lrelu.h"

namespace lrelu_python {

// kType: dtypes; kValue: shapes, overlap, alpha and arguments; kOverflow:
// sizes; kMemory: allocation; kRuntime: the rest.
enum class ErrorKind { kType, kValue, kOverflow, kMemory, kRuntime };

inline ErrorKind ErrorKindOf(lrelu_status_t status) {
  switch (status) {
    case LRELU_STATUS_UNSUPPORTED_DTYPE:
    case LRELU_STATUS_DTYPE_MISMATCH:
      return ErrorKind::kType;
    case LRELU_STATUS_INVALID_ARGUMENT:
    case LRELU_STATUS_SHAPE_MISMATCH:
    case LRELU_STATUS_OVERLAP:
    case LRELU_STATUS_NULL_DATA:
    case LRELU_STATUS_INVALID_ALPHA:
      return ErrorKind::kValue;
    case LRELU_STATUS_SIZE_OVERFLOW:
      return ErrorKind::kOverflow;
    case LRELU_STATUS_OUT_OF_MEMORY:
      return ErrorKind::kMemory;
    default:
      return ErrorKind::kRuntime;
  }
}

}  // namespace lrelu_python

#endif  // LRELU_PYTHON_SRC_ERROR_KIND_H_
