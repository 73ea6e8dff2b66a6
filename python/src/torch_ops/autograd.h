// The operators' Autograd-key kernels: with a gradient wanted, a
// torch::autograd::Function whose backward calls lrelu::leaky_relu_backward
// through the dispatcher (itself differentiable: double backward); without
// one, straight to the CPU kernel.
#ifndef LRELU_PYTHON_SRC_TORCH_OPS_AUTOGRAD_H_
#define LRELU_PYTHON_SRC_TORCH_OPS_AUTOGRAD_H_

#include <ATen/core/Tensor.h>

namespace lrelu_torch {

at::Tensor ForwardAutograd(const at::Tensor& x, double alpha);

// torch's rule: differentiable for alpha >= 0 only (y no longer shows where
// x < 0 otherwise); bumps x's version counter as torch's in-place ops do.
at::Tensor& ForwardInPlaceAutograd(at::Tensor& x, double alpha);

// out= is not differentiable (as torch's out= functions); bumps y's version
// counter.
at::Tensor& ForwardOutAutograd(const at::Tensor& x, double alpha,
                               at::Tensor& y);

at::Tensor BackwardAutograd(const at::Tensor& dy, const at::Tensor& s,
                            double alpha, bool from_output);

}  // namespace lrelu_torch

#endif  // LRELU_PYTHON_SRC_TORCH_OPS_AUTOGRAD_H_
