#include "tensor_view.h"

#include <string>

#include "dtypes.h"
#include "numpy_api.h"

namespace nb = nanobind;

namespace lrelu_python {
namespace {

[[noreturn]] void Raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

std::string Repr(nb::handle object) { return nb::str(object).c_str(); }

std::string UnsupportedDtype(const char* name, const std::string& dtype) {
  return std::string("lrelu: ") + name + " has dtype " + dtype +
         "; lrelu computes float16, bfloat16, float32 and float64 only "
         "(contract v1)";
}

// A C-contiguous, native-byte-order copy of an input array, of its shape
// (numpy.array: ascontiguousarray makes a 0-d array 1-d, which then no
// longer matched the other operands).
nb::object NativeCopy(nb::handle array) {
  nb::module_ np = nb::module_::import_("numpy");
  nb::object dtype = array.attr("dtype").attr("newbyteorder")("=");
  return np.attr("array")(array, nb::arg("dtype") = dtype,
                          nb::arg("order") = "C");
}

}  // namespace

TensorView::TensorView(nb::handle object, Role role, const char* name) {
  if (PyArray_Check(object.ptr())) {
    FromNumpy(object, role, name);
  } else {
    FromDlpack(object, role, name);
  }
}

void TensorView::FromNumpy(nb::handle object, Role role, const char* name) {
  auto* array = reinterpret_cast<PyArrayObject*>(object.ptr());
  lrelu_dtype_t dtype;
  if (!DtypeFromNumpy(PyArray_TYPE(array), &dtype)) {
    Raise(PyExc_TypeError, UnsupportedDtype(name, Repr(object.attr("dtype"))));
  }
  const npy_intp itemsize = PyArray_ITEMSIZE(array);
  bool whole_elements = true;
  for (int i = 0; i < PyArray_NDIM(array); ++i) {
    if (PyArray_STRIDE(array, i) % itemsize != 0) whole_elements = false;
  }
  const bool native = PyArray_ISNOTSWAPPED(array);
  if (role == Role::kOutput) {
    if (!PyArray_ISWRITEABLE(array)) {
      Raise(PyExc_ValueError, std::string("lrelu: ") + name + " is read-only");
    }
    if (!native) {
      Raise(PyExc_TypeError, std::string("lrelu: ") + name +
                                 " is byte-swapped; outputs must be in native "
                                 "byte order");
    }
    if (!whole_elements) {
      Raise(PyExc_ValueError, std::string("lrelu: ") + name +
                                  " has strides that are not whole elements");
    }
    numpy_ = nb::borrow(object);
  } else if (!native || !whole_elements) {
    numpy_ = NativeCopy(object);
    array = reinterpret_cast<PyArrayObject*>(numpy_.ptr());
  } else {
    numpy_ = nb::borrow(object);
  }
  const int rank = PyArray_NDIM(array);
  shape_.resize(rank);
  strides_.resize(rank);
  for (int i = 0; i < rank; ++i) {
    shape_[i] = PyArray_DIM(array, i);
    strides_[i] = PyArray_STRIDE(array, i) / itemsize;
  }
  tensor_.data = PyArray_DATA(array);
  tensor_.dtype = dtype;
  tensor_.rank = rank;
  tensor_.shape = shape_.data();
  tensor_.strides = strides_.data();
}

void TensorView::FromDlpack(nb::handle object, Role role, const char* name) {
  // No conversion: an object that is not already a DLPack tensor (or buffer)
  // is rejected rather than copied.
  const bool imported =
      role == Role::kInput
          ? nb::try_cast(object, dlpack_input_, /*convert=*/false)
          : nb::try_cast(object, dlpack_output_, /*convert=*/false);
  if (!imported) {
    const std::string type_name = nb::type_name(object.type()).c_str();
    if (nb::hasattr(object, "__dlpack__")) {
      Raise(PyExc_TypeError,
            std::string("lrelu: ") + name + " is a " + type_name +
                " that could not be imported through DLPack (a dtype or "
                "device DLPack cannot express, or read-only for an output)");
    }
    Raise(PyExc_TypeError,
          std::string("lrelu: ") + name + " is a " + type_name +
              (role == Role::kOutput
                   ? ", not a writable NumPy array or DLPack tensor"
                   : ", not a NumPy array or DLPack tensor"));
  }
  auto describe = [&](const auto& array, void* data) {
    if (array.device_type() != nb::device::cpu::value) {
      Raise(PyExc_ValueError,
            std::string("lrelu: ") + name + " lives on DLPack device type " +
                std::to_string(array.device_type()) +
                "; the lrelu Python package computes on the CPU only");
    }
    lrelu_dtype_t dtype;
    if (!DtypeFromDlpack(array.dtype(), &dtype)) {
      Raise(PyExc_TypeError,
            UnsupportedDtype(name, DlpackDtypeName(array.dtype())));
    }
    const size_t rank = array.ndim();
    shape_.resize(rank);
    strides_.resize(rank);
    for (size_t i = 0; i < rank; ++i) {
      shape_[i] = static_cast<int64_t>(array.shape(i));
      strides_[i] = array.stride(i);
    }
    tensor_.data = data;
    tensor_.dtype = dtype;
    tensor_.rank = static_cast<int32_t>(rank);
    tensor_.shape = shape_.data();
    tensor_.strides = strides_.data();
  };
  if (role == Role::kInput) {
    describe(dlpack_input_, const_cast<void*>(dlpack_input_.data()));
  } else {
    describe(dlpack_output_, dlpack_output_.data());
  }
}

}  // namespace lrelu_python
