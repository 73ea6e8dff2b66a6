#include "torch_kernels.h"

#include "threads.h"

namespace lrelu_python {
namespace {

lrelu_status_t TorchForward(const lrelu_tensor_t* x, double alpha,
                            const lrelu_tensor_t* y) {
  const lrelu_options_t options = CurrentOptions();
  return lrelu_leaky_relu(x, alpha, y, &options);
}

lrelu_status_t TorchBackward(const lrelu_tensor_t* dy, const lrelu_tensor_t* s,
                             double alpha, lrelu_grad_source_t source,
                             const lrelu_tensor_t* dx) {
  const lrelu_options_t options = CurrentOptions();
  return lrelu_leaky_relu_backward(dy, s, alpha, source, dx, &options);
}

const lrelu_torch_kernels_t kTorchKernels = {
    sizeof(lrelu_torch_kernels_t), &TorchForward, &TorchBackward,
    &lrelu_last_error, &lrelu_status_string};

}  // namespace

const lrelu_torch_kernels_t* TorchKernels() { return &kTorchKernels; }

}  // namespace lrelu_python
