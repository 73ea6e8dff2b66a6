// The CPU kernels behind lrelu's torch operators: checks with torch's
// exception types, then one call through the extension's kernel table.
#ifndef LRELU_PYTHON_SRC_TORCH_OPS_KERNELS_H_
#define LRELU_PYTHON_SRC_TORCH_OPS_KERNELS_H_

#include <ATen/core/Tensor.h>

#include "torch_kernels.h"

namespace lrelu_torch {

// Set once by lrelu_torch_ops_attach; the kernels refuse to run before.
void Attach(const lrelu_torch_kernels_t* kernels);

// y = leaky_relu(x) into a new tensor laid out like x.
at::Tensor Forward(const at::Tensor& x, double alpha);

// x = leaky_relu(x). Refuses lazily negated tensors and inference tensors
// outside InferenceMode before writing anything.
at::Tensor& ForwardInPlace(at::Tensor& x, double alpha);

// y = leaky_relu(x) into the existing y (x's dtype and shape; y may be x,
// any other overlap is refused before anything is written).
at::Tensor& ForwardOut(const at::Tensor& x, double alpha, at::Tensor& y);

// dx = s < 0 ? alpha * dy : dy (s is x, or y when from_output).
at::Tensor Backward(const at::Tensor& dy, const at::Tensor& s, double alpha,
                    bool from_output);

}  // namespace lrelu_torch

#endif  // LRELU_PYTHON_SRC_TORCH_OPS_KERNELS_H_
