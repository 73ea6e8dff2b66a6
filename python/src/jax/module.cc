// lrelu._jax_ffi: the XLA FFI handlers as PyCapsules, for
// jax.ffi.register_ffi_target (lrelu/jax.py registers them on import).
#include <nanobind/nanobind.h>

#include "xla/ffi/api/c_api.h"

namespace nb = nanobind;

extern "C" XLA_FFI_Error* LreluJaxForwardCpu(XLA_FFI_CallFrame* call_frame);
extern "C" XLA_FFI_Error* LreluJaxBackwardCpu(XLA_FFI_CallFrame* call_frame);
extern "C" XLA_FFI_Error* LreluJaxPreluCpu(XLA_FFI_CallFrame* call_frame);
extern "C" XLA_FFI_Error* LreluJaxPreluBackwardCpu(
    XLA_FFI_CallFrame* call_frame);
extern "C" XLA_FFI_Error* LreluJaxPreluDxCpu(XLA_FFI_CallFrame* call_frame);
extern "C" XLA_FFI_Error* LreluJaxPreluDalphaCpu(XLA_FFI_CallFrame* call_frame);
#ifdef LRELU_JAX_CUDA
extern "C" XLA_FFI_Error* LreluJaxForwardCuda(XLA_FFI_CallFrame* call_frame);
extern "C" XLA_FFI_Error* LreluJaxBackwardCuda(XLA_FFI_CallFrame* call_frame);
#endif

namespace {

template <typename Handler>
nb::capsule Capsule(Handler* handler) {
  return nb::capsule(reinterpret_cast<void*>(handler));
}

}  // namespace

NB_MODULE(_jax_ffi, m) {
  m.doc() = "XLA FFI handlers of lrelu (see lrelu.jax)";
  // {target name: handler} per XLA platform; names match lrelu/jax.py.
  m.def("cpu_handlers", [] {
    nb::dict handlers;
    handlers["lrelu_leaky_relu"] = Capsule(&LreluJaxForwardCpu);
    handlers["lrelu_leaky_relu_backward"] = Capsule(&LreluJaxBackwardCpu);
    // PReLU: the CPU only (its gradient is a CPU kernel).
    handlers["lrelu_prelu"] = Capsule(&LreluJaxPreluCpu);
    handlers["lrelu_prelu_backward"] = Capsule(&LreluJaxPreluBackwardCpu);
    handlers["lrelu_prelu_dx"] = Capsule(&LreluJaxPreluDxCpu);
    handlers["lrelu_prelu_dalpha"] = Capsule(&LreluJaxPreluDalphaCpu);
    return handlers;
  });
  m.def("cuda_handlers", [] {
    nb::dict handlers;
#ifdef LRELU_JAX_CUDA
    handlers["lrelu_leaky_relu"] = Capsule(&LreluJaxForwardCuda);
    handlers["lrelu_leaky_relu_backward"] = Capsule(&LreluJaxBackwardCuda);
#endif
    return handlers;
  });
}
