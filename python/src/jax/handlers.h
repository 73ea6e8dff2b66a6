// What the XLA FFI handlers of lrelu (CPU and CUDA) share: XLA buffers as
// lrelu tensors, and lrelu's status as an FFI error.
#ifndef LRELU_PYTHON_SRC_JAX_HANDLERS_H_
#define LRELU_PYTHON_SRC_JAX_HANDLERS_H_

#include <cstdint>
#include <string>

#include "lrelu/lrelu.h"
#include "xla/ffi/api/ffi.h"

namespace lrelu::jax {

// A dense row-major XLA buffer seen as a one-dimensional lrelu tensor of
// all its elements (rank 0 is one element, an empty buffer none). Not
// copyable: tensor.shape points into the object.
class Dense {
 public:
  explicit Dense(const ::xla::ffi::AnyBuffer& buffer);
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

// A dense row-major XLA buffer as an lrelu tensor of its own shape (PReLU's
// broadcast reads it). The shape points into XLA's call frame.
class Shaped {
 public:
  explicit Shaped(const ::xla::ffi::AnyBuffer& buffer);
  Shaped(const Shaped&) = delete;
  Shaped& operator=(const Shaped&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const lrelu_tensor_t* tensor() const { return &tensor_; }

 private:
  lrelu_tensor_t tensor_{};
  std::string error_;
};

// Success, or the failed lrelu call's own message as an FFI error.
::xla::ffi::Error Status(lrelu_status_t status);

}  // namespace lrelu::jax

#endif  // LRELU_PYTHON_SRC_JAX_HANDLERS_H_
