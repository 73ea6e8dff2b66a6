// What the XLA FFI handlers of lrelu (CPU and CUDA) share: XLA buffers as
// lrelu tensors, and lrelu's status as an FFI error.
#ifndef LRELU_PYTHON_SRC_JAX_HANDLERS_H_
#define LRELU_PYTHON_SRC_JAX_HANDLERS_H_

#include <cstdint>
#include <string>

#include "lrelu/lrelu.h"
#include "xla/ffi/api/ffi.h"

namespace lrelu::jax {

// How Dense presents a buffer: one dimension of all its elements (rank 0 is
// one element, an empty buffer none: LeakyReLU is elementwise), or its own
// shape (PReLU's broadcast reads it).
enum class Layout { kFlat, kShaped };

// A dense row-major XLA buffer as an lrelu tensor. Not copyable:
// tensor.shape points into the object (kFlat) or into XLA's call frame.
class Dense {
 public:
  explicit Dense(const ::xla::ffi::AnyBuffer& buffer,
                 Layout layout = Layout::kFlat);
  Dense(const Dense&) = delete;
  Dense& operator=(const Dense&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const lrelu_tensor_t* tensor() const { return &tensor_; }

 private:
  int64_t count_ = 0;
  lrelu_tensor_t tensor_{};
  std::string error_;
};

// Success, or the failed lrelu call's own message as an FFI error.
::xla::ffi::Error Status(lrelu_status_t status);

}  // namespace lrelu::jax

#endif  // LRELU_PYTHON_SRC_JAX_HANDLERS_H_
