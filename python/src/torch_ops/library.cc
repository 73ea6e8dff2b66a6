// lrelu's torch operators compiled against libtorch (lrelu/_torch_ops.so):
// the schemas, the CPU and Autograd kernels, and the entry point through
// which lrelu.torch hands over the extension's kernel table. lrelu.torch
// loads this library only into a process whose torch is the libtorch it was
// built against; elsewhere its Python kernels register the same schemas.
#include <torch/library.h>

#include "autograd.h"
#include "kernels.h"
#include "torch_kernels.h"

TORCH_LIBRARY(lrelu, m) {
  m.def("leaky_relu(Tensor x, float negative_slope=0.01) -> Tensor");
  m.def("leaky_relu_(Tensor(a!) x, float negative_slope=0.01) -> Tensor(a!)");
  m.def(
      "leaky_relu.out(Tensor x, float negative_slope=0.01, *, Tensor(a!) out) "
      "-> Tensor(a!)");
  m.def(
      "leaky_relu_backward(Tensor dy, Tensor s, float negative_slope, "
      "bool from_output) -> Tensor");
  // PReLU: schemas only; lrelu.torch registers their kernels (Python, with
  // torch.library's IMPL) in both modes.
  m.def("prelu(Tensor x, Tensor weight) -> Tensor");
  m.def(
      "prelu_backward(Tensor dy, Tensor x, Tensor weight) -> (Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(lrelu, CPU, m) {
  m.impl("leaky_relu", &lrelu_torch::Forward);
  m.impl("leaky_relu_", &lrelu_torch::ForwardInPlace);
  m.impl("leaky_relu.out", &lrelu_torch::ForwardOut);
  m.impl("leaky_relu_backward", &lrelu_torch::Backward);
}

TORCH_LIBRARY_IMPL(lrelu, Autograd, m) {
  m.impl("leaky_relu", &lrelu_torch::ForwardAutograd);
  m.impl("leaky_relu_", &lrelu_torch::ForwardInPlaceAutograd);
  m.impl("leaky_relu.out", &lrelu_torch::ForwardOutAutograd);
  m.impl("leaky_relu_backward", &lrelu_torch::BackwardAutograd);
}

extern "C" __attribute__((visibility("default"))) int lrelu_torch_ops_attach(
    const lrelu_torch_kernels_t* kernels) {
  if (kernels == nullptr || kernels->size != sizeof(lrelu_torch_kernels_t)) {
    return -1;
  }
  lrelu_torch::Attach(kernels);
  return 0;
}
