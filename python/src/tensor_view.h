// A borrowed lrelu_tensor_t over a Python object's memory: a NumPy array
// through the NumPy C API (which also knows ml_dtypes.bfloat16), anything
// else through DLPack (torch tensors, JAX arrays). Nothing is copied except
// an input NumPy array whose layout the C ABI cannot describe (byte-swapped,
// or strides that are not whole elements).
#ifndef LRELU_PYTHON_TENSOR_VIEW_H_
#define LRELU_PYTHON_TENSOR_VIEW_H_

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <vector>

#include "lrelu/lrelu.h"

namespace lrelu_python {

class TensorView {
 public:
  enum class Role { kInput, kOutput };

  // Raises TypeError (not an array, unsupported dtype) or ValueError (not on
  // the CPU, read-only output, layout an output cannot have), naming the
  // argument as name. Needs the GIL.
  TensorView(nanobind::handle object, Role role, const char* name);
  TensorView(const TensorView&) = delete;
  TensorView& operator=(const TensorView&) = delete;

  const lrelu_tensor_t* tensor() const { return &tensor_; }

 private:
  void FromNumpy(nanobind::handle object, Role role, const char* name);
  void FromDlpack(nanobind::handle object, Role role, const char* name);

  // Keep the memory alive: the NumPy array (or its copy) or the DLPack import.
  nanobind::object numpy_;
  nanobind::ndarray<nanobind::ro> dlpack_input_;
  nanobind::ndarray<> dlpack_output_;
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;  // in elements
  lrelu_tensor_t tensor_{};
};

}  // namespace lrelu_python

#endif  // LRELU_PYTHON_TENSOR_VIEW_H_
