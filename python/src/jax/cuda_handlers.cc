// XLA FFI handlers for lrelu on NVIDIA GPUs: the same forward and gradient
// as on the CPU, queued by lrelu's CUDA backend on the stream XLA gives the
// call (so they order with the rest of the jitted program, no host sync).
// Built only when lrelu's CUDA backend is.
#include <cuda_runtime_api.h>

#include "jax/handlers.h"
#include "lrelu/lrelu.h"
#include "xla/ffi/api/ffi.h"

namespace lrelu::jax {
namespace {

namespace ffi = ::xla::ffi;

lrelu_options_t OptionsOn(cudaStream_t stream) {
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.backend = LRELU_BACKEND_CUDA;
  options.stream = stream;
  int device = 0;
  if (cudaGetDevice(&device) == cudaSuccess) options.device = device;
  return options;
}

ffi::Error Forward(cudaStream_t stream, ffi::AnyBuffer x,
                   ffi::Result<ffi::AnyBuffer> y, double alpha) {
  const Dense x_view(x), y_view(*y);
  if (!x_view.ok()) return ffi::Error::InvalidArgument(x_view.error());
  const lrelu_options_t options = OptionsOn(stream);
  return Status(
      lrelu_leaky_relu(x_view.tensor(), alpha, y_view.tensor(), &options));
}

ffi::Error Backward(cudaStream_t stream, ffi::AnyBuffer dy, ffi::AnyBuffer x,
                    ffi::Result<ffi::AnyBuffer> dx, double alpha) {
  const Dense dy_view(dy), x_view(x), dx_view(*dx);
  if (!dy_view.ok()) return ffi::Error::InvalidArgument(dy_view.error());
  const lrelu_options_t options = OptionsOn(stream);
  return Status(lrelu_leaky_relu_backward(dy_view.tensor(), x_view.tensor(),
                                          alpha, LRELU_GRAD_FROM_X,
                                          dx_view.tensor(), &options));
}

}  // namespace
}  // namespace lrelu::jax

XLA_FFI_DEFINE_HANDLER_SYMBOL(LreluJaxForwardCuda, lrelu::jax::Forward,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<double>("alpha"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(LreluJaxBackwardCuda, lrelu::jax::Backward,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<double>("alpha"));
