// The seam between the extension lrelu._lrelu and the torch operator library
// lrelu/_torch_ops.so: _lrelu hands over its entry points as a table, so
// that one copy of liblrelu (its thread pool, its lrelu.threads() setting)
// serves both, and the operator library needs only lrelu.h and libtorch.
#ifndef LRELU_PYTHON_SRC_TORCH_KERNELS_H_
#define LRELU_PYTHON_SRC_TORCH_KERNELS_H_

#include <stddef.h>

#include "lrelu/lrelu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lrelu_torch_kernels_t {
  size_t size;  // sizeof(lrelu_torch_kernels_t), checked on attach
  // lrelu_leaky_relu / lrelu_leaky_relu_backward with the Python package's
  // options (lrelu.set_threads, lrelu.threads()).
  lrelu_status_t (*forward)(const lrelu_tensor_t* x, double alpha,
                            const lrelu_tensor_t* y);
  lrelu_status_t (*backward)(const lrelu_tensor_t* dy, const lrelu_tensor_t* s,
                             double alpha, lrelu_grad_source_t source,
                             const lrelu_tensor_t* dx);
  // The calling thread's message for the last failed call above.
  const char* (*last_error)(void);
  // lrelu_status_string.
  const char* (*status_string)(lrelu_status_t status);
} lrelu_torch_kernels_t;

// Exported by _torch_ops.so; lrelu.torch calls it right after loading the
// library with _lrelu.torch_kernels(). 0 on success, -1 on a size mismatch.
typedef int (*lrelu_torch_ops_attach_t)(const lrelu_torch_kernels_t* kernels);

#ifdef __cplusplus
}

namespace lrelu_python {
// The extension's table (python/src/torch_kernels.cc), for
// _lrelu.torch_kernels().
const lrelu_torch_kernels_t* TorchKernels();
}  // namespace lrelu_python
#endif

#endif  // LRELU_PYTHON_SRC_TORCH_KERNELS_H_
