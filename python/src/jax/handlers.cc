#include "jax/handlers.h"

#include <string>

namespace lrelu::jax {

namespace ffi = ::xla::ffi;

namespace {

// 0 for an element type lrelu does not compute (Python refuses those before
// tracing; this is the handler's own check).
lrelu_dtype_t LreluDtype(ffi::DataType type) {
  switch (type) {
    case ffi::DataType::F32:
      return LRELU_DTYPE_FLOAT32;
    case ffi::DataType::F16:
      return LRELU_DTYPE_FLOAT16;
    case ffi::DataType::BF16:
      return LRELU_DTYPE_BFLOAT16;
    case ffi::DataType::F64:
      return LRELU_DTYPE_FLOAT64;
    default:
      return static_cast<lrelu_dtype_t>(0);
  }
}

}  // namespace

Dense::Dense(const ffi::AnyBuffer& buffer, Layout layout)
    : count_(static_cast<int64_t>(buffer.element_count())) {
  tensor_.data = buffer.untyped_data();
  tensor_.dtype = LreluDtype(buffer.element_type());
  if (layout == Layout::kFlat) {
    tensor_.rank = 1;
    tensor_.shape = &count_;
  } else {
    const auto dims = buffer.dimensions();
    tensor_.rank = static_cast<int32_t>(dims.size());
    tensor_.shape = dims.begin();
  }
  tensor_.strides = nullptr;
  if (tensor_.dtype == 0) {
    error_ = "lrelu: unsupported XLA element type " +
             std::to_string(static_cast<int>(buffer.element_type())) +
             " (float32, float16, bfloat16, float64 only)";
  }
}

ffi::Error Status(lrelu_status_t status) {
  if (status == LRELU_STATUS_OK) return ffi::Error::Success();
  return ffi::Error(ffi::ErrorCode::kInvalidArgument,
                    std::string("lrelu: ") + lrelu_last_error());
}

}  // namespace lrelu::jax
