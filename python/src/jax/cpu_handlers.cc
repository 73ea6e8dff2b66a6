// XLA FFI handlers for lrelu on the CPU: forward (y from x) and gradient
// (dx from dy and x), registered with JAX by lrelu/jax.py. Each call runs
// lrelu's C ABI on XLA's dense row-major buffers, split over XLA's own
// intra-op thread pool (the FFI's ThreadPool) rather than lrelu's pool, so
// that a jitted program does not run two pools of hardware threads at once.
#include "cpu/float_env.h"
#include "jax/handlers.h"
#include "jax/xla_thread_pool.h"
#include "lrelu/lrelu.h"
#include "xla/ffi/api/ffi.h"

namespace lrelu::jax {
namespace {

namespace ffi = ::xla::ffi;

ffi::Error Forward(ffi::ThreadPool xla_pool, ffi::AnyBuffer x,
                   ffi::Result<ffi::AnyBuffer> y, double alpha) {
  const Dense x_view(x), y_view(*y);
  if (!x_view.ok()) return ffi::Error::InvalidArgument(x_view.error());
  XlaThreadPool pool(xla_pool);
  const lrelu_options_t options = pool.options();
  // XLA runs its CPU code with FTZ/DAZ; the contract has no flush-to-zero
  // (lrelu's tasks see to that themselves, this covers the planning).
  const cpu::DefaultFloatEnv ieee;
  return Status(
      lrelu_leaky_relu(x_view.tensor(), alpha, y_view.tensor(), &options));
}

ffi::Error Backward(ffi::ThreadPool xla_pool, ffi::AnyBuffer dy,
                    ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> dx,
                    double alpha) {
  const Dense dy_view(dy), x_view(x), dx_view(*dx);
  if (!dy_view.ok()) return ffi::Error::InvalidArgument(dy_view.error());
  XlaThreadPool pool(xla_pool);
  const lrelu_options_t options = pool.options();
  const cpu::DefaultFloatEnv ieee;
  return Status(lrelu_leaky_relu_backward(dy_view.tensor(), x_view.tensor(),
                                          alpha, LRELU_GRAD_FROM_X,
                                          dx_view.tensor(), &options));
}

}  // namespace
}  // namespace lrelu::jax

XLA_FFI_DEFINE_HANDLER_SYMBOL(LreluJaxForwardCpu, lrelu::jax::Forward,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::ThreadPool>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<double>("alpha"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(LreluJaxBackwardCpu, lrelu::jax::Backward,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::ThreadPool>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<double>("alpha"));
