// XLA FFI handlers for PReLU on the CPU (contract ai.onnx.PRelu v1):
// forward (y from x and alpha) and the gradient's parts (dx, dalpha or
// both from dy, x and alpha), registered with JAX by lrelu/jax.py. The
// buffers keep their shapes (alpha broadcasts to x by ONNX's rule), run on
// XLA's intra-op thread pool as the LeakyReLU handlers do; dalpha is the
// correctly rounded sum, the same bits for any thread count.
#include "cpu/float_env.h"
#include "jax/handlers.h"
#include "jax/xla_thread_pool.h"
#include "lrelu/lrelu.h"
#include "xla/ffi/api/ffi.h"

namespace lrelu::jax {
namespace {

namespace ffi = ::xla::ffi;

ffi::Error Forward(ffi::ThreadPool xla_pool, ffi::AnyBuffer x,
                   ffi::AnyBuffer alpha, ffi::Result<ffi::AnyBuffer> y) {
  const Dense x_view(x, Layout::kShaped), alpha_view(alpha, Layout::kShaped),
      y_view(*y, Layout::kShaped);
  if (!x_view.ok()) return ffi::Error::InvalidArgument(x_view.error());
  if (!alpha_view.ok()) return ffi::Error::InvalidArgument(alpha_view.error());
  XlaThreadPool pool(xla_pool);
  const lrelu_options_t options = pool.options();
  // XLA's CPU code runs with FTZ/DAZ; the contract has none (planning too).
  const cpu::DefaultFloatEnv ieee;
  return Status(lrelu_prelu(x_view.tensor(), alpha_view.tensor(),
                            y_view.tensor(), &options));
}

// dx and dalpha may each be null (the part not asked for).
ffi::Error Gradient(ffi::ThreadPool& xla_pool, const ffi::AnyBuffer& dy,
                    const ffi::AnyBuffer& x, const ffi::AnyBuffer& alpha,
                    const ffi::AnyBuffer* dx, const ffi::AnyBuffer* dalpha) {
  const Dense dy_view(dy, Layout::kShaped), x_view(x, Layout::kShaped),
      alpha_view(alpha, Layout::kShaped);
  for (const Dense* in : {&dy_view, &x_view, &alpha_view}) {
    if (!in->ok()) return ffi::Error::InvalidArgument(in->error());
  }
  // Outputs have their inputs' types (checked by the caller's abstract
  // evaluation), so only their views are needed.
  const Dense dx_view(dx ? *dx : dy, Layout::kShaped),
      dalpha_view(dalpha ? *dalpha : alpha, Layout::kShaped);
  XlaThreadPool pool(xla_pool);
  const lrelu_options_t options = pool.options();
  const cpu::DefaultFloatEnv ieee;
  return Status(
      lrelu_prelu_backward(dy_view.tensor(), x_view.tensor(),
                           alpha_view.tensor(), dx ? dx_view.tensor() : nullptr,
                           dalpha ? dalpha_view.tensor() : nullptr, &options));
}

ffi::Error Backward(ffi::ThreadPool xla_pool, ffi::AnyBuffer dy,
                    ffi::AnyBuffer x, ffi::AnyBuffer alpha,
                    ffi::Result<ffi::AnyBuffer> dx,
                    ffi::Result<ffi::AnyBuffer> dalpha) {
  return Gradient(xla_pool, dy, x, alpha, &*dx, &*dalpha);
}

ffi::Error Dx(ffi::ThreadPool xla_pool, ffi::AnyBuffer dy, ffi::AnyBuffer x,
              ffi::AnyBuffer alpha, ffi::Result<ffi::AnyBuffer> dx) {
  return Gradient(xla_pool, dy, x, alpha, &*dx, nullptr);
}

ffi::Error Dalpha(ffi::ThreadPool xla_pool, ffi::AnyBuffer dy, ffi::AnyBuffer x,
                  ffi::AnyBuffer alpha, ffi::Result<ffi::AnyBuffer> dalpha) {
  return Gradient(xla_pool, dy, x, alpha, nullptr, &*dalpha);
}

// The handlers' bindings up to their results: XLA's pool, then x and alpha
// (the forward pass) or dy, x and alpha (the gradient's).
auto ForwardOperands() {
  return ffi::Ffi::Bind()
      .Ctx<ffi::ThreadPool>()
      .Arg<ffi::AnyBuffer>()
      .Arg<ffi::AnyBuffer>();
}
auto GradientOperands() { return ForwardOperands().Arg<ffi::AnyBuffer>(); }

}  // namespace
}  // namespace lrelu::jax

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    LreluJaxPreluCpu, lrelu::jax::Forward,
    lrelu::jax::ForwardOperands().Ret<xla::ffi::AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(LreluJaxPreluBackwardCpu, lrelu::jax::Backward,
                              lrelu::jax::GradientOperands()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    LreluJaxPreluDxCpu, lrelu::jax::Dx,
    lrelu::jax::GradientOperands().Ret<xla::ffi::AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    LreluJaxPreluDalphaCpu, lrelu::jax::Dalpha,
    lrelu::jax::GradientOperands().Ret<xla::ffi::AnyBuffer>());
