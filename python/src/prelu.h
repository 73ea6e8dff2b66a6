// PReLU bindings (lrelu_prelu / lrelu_prelu_backward on NumPy arrays and
// DLPack tensors): prelu_forward, prelu_backward.
#ifndef LRELU_PYTHON_PRELU_H_
#define LRELU_PYTHON_PRELU_H_

#include <nanobind/nanobind.h>

namespace lrelu_python {

void BindPrelu(nanobind::module_& m);

}  // namespace lrelu_python

#endif  // LRELU_PYTHON_PRELU_H_
