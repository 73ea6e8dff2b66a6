// lrelu._lrelu: the extension behind the lrelu package. Binds the C ABI
// (lrelu.h) only: the ufunc, forward and gradient calls on NumPy arrays or
// DLPack tensors, threads, version and target queries.
#define LRELU_PYTHON_IMPORT_NUMPY
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dtypes.h"
#include "errors.h"
#include "lrelu/lrelu.h"
#include "numpy_api.h"
#include "prelu.h"
#include "tensor_view.h"
#include "threads.h"
#include "torch_kernels.h"
#include "ufunc.h"

namespace nb = nanobind;

namespace lrelu_python {
namespace {

using Role = TensorView::Role;

lrelu_options_t OptionsFor(std::optional<size_t> threads) {
  lrelu_options_t options = CurrentOptions();
  if (threads) options.threads = *threads;
  return options;
}

void Forward(nb::handle x, double alpha, nb::handle y,
             std::optional<size_t> threads) {
  const TensorView x_view(x, Role::kInput, "x");
  const TensorView y_view(y, Role::kOutput, "y");
  const lrelu_options_t options = OptionsFor(threads);
  lrelu_status_t status;
  std::string message;
  {
    nb::gil_scoped_release release;
    status =
        lrelu_leaky_relu(x_view.tensor(), alpha, y_view.tensor(), &options);
    if (status != LRELU_STATUS_OK) message = lrelu_last_error();
  }
  if (status != LRELU_STATUS_OK) ThrowStatus(status, message);
}

void Backward(nb::handle dy, nb::handle s, double alpha, bool from_output,
              nb::handle dx, std::optional<size_t> threads) {
  const TensorView dy_view(dy, Role::kInput, "dy");
  const TensorView s_view(s, Role::kInput, from_output ? "y" : "x");
  const TensorView dx_view(dx, Role::kOutput, "dx");
  const lrelu_options_t options = OptionsFor(threads);
  const lrelu_grad_source_t source =
      from_output ? LRELU_GRAD_FROM_Y : LRELU_GRAD_FROM_X;
  lrelu_status_t status;
  std::string message;
  {
    nb::gil_scoped_release release;
    status = lrelu_leaky_relu_backward(dy_view.tensor(), s_view.tensor(), alpha,
                                       source, dx_view.tensor(), &options);
    if (status != LRELU_STATUS_OK) message = lrelu_last_error();
  }
  if (status != LRELU_STATUS_OK) ThrowStatus(status, message);
}

// A tensor described by its parts, for callers that already hold them (torch
// tensors: data_ptr(), shape, stride()), so that a small call costs no DLPack
// import. The caller keeps the memory alive and has checked the device.
// A tuple of ints (torch.Size is a tuple subclass, which nanobind's
// std::vector caster takes the slow way) as int64s.
std::vector<int64_t> Int64s(nb::handle sequence, const char* name) {
  if (!PyTuple_Check(sequence.ptr())) {
    return nb::cast<std::vector<int64_t>>(sequence);
  }
  const Py_ssize_t n = PyTuple_GET_SIZE(sequence.ptr());
  std::vector<int64_t> values(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    values[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(sequence.ptr(), i));
    if (values[i] == -1 && PyErr_Occurred()) {
      PyErr_Format(PyExc_TypeError, "lrelu: %s must hold ints", name);
      throw nb::python_error();
    }
  }
  return values;
}

struct RawTensor {
  lrelu_tensor_t tensor;
  RawTensor(uintptr_t data, int dtype, const std::vector<int64_t>& shape,
            const std::vector<int64_t>& strides) {
    if (shape.size() != strides.size()) {
      PyErr_SetString(PyExc_ValueError,
                      "lrelu: shape and strides differ in length");
      throw nb::python_error();
    }
    tensor.data = reinterpret_cast<void*>(data);
    tensor.dtype = static_cast<lrelu_dtype_t>(dtype);
    tensor.rank = static_cast<int32_t>(shape.size());
    tensor.shape = shape.data();
    tensor.strides = strides.data();
  }
};

// Calls this small stay on the calling thread holding the GIL: letting go of
// it would cost more than the work.
constexpr int64_t kReleaseGilElements = 4096;

// The element count, saturating at kReleaseGilElements (no overflow; a
// shape the library will refuse counts as 0).
int64_t ElementCount(const int64_t* shape, size_t rank) {
  int64_t n = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] <= 0) return 0;
    n = std::min(n * std::min(shape[i], kReleaseGilElements),
                 kReleaseGilElements);
  }
  return n;
}

int64_t ElementCount(const std::vector<int64_t>& shape) {
  return ElementCount(shape.data(), shape.size());
}

template <typename F>
void CallRaw(int64_t elements, F call) {
  lrelu_status_t status;
  std::string message;
  if (elements >= kReleaseGilElements) {
    nb::gil_scoped_release release;
    status = call();
    if (status != LRELU_STATUS_OK) message = lrelu_last_error();
  } else {
    status = call();
    if (status != LRELU_STATUS_OK) message = lrelu_last_error();
  }
  if (status != LRELU_STATUS_OK) ThrowStatus(status, message);
}

void ForwardRaw(uintptr_t x, uintptr_t y, int dtype, nb::handle shape_in,
                nb::handle x_strides_in, nb::handle y_strides_in,
                double alpha) {
  const std::vector<int64_t> shape = Int64s(shape_in, "shape");
  const std::vector<int64_t> x_strides = Int64s(x_strides_in, "x_strides");
  const std::vector<int64_t> y_strides = Int64s(y_strides_in, "y_strides");
  const RawTensor xt(x, dtype, shape, x_strides);
  const RawTensor yt(y, dtype, shape, y_strides);
  const lrelu_options_t options = CurrentOptions();
  CallRaw(ElementCount(shape), [&] {
    return lrelu_leaky_relu(&xt.tensor, alpha, &yt.tensor, &options);
  });
}

void BackwardRaw(uintptr_t dy, uintptr_t s, uintptr_t dx, int dtype,
                 nb::handle shape_in, nb::handle dy_strides_in,
                 nb::handle s_strides_in, nb::handle dx_strides_in,
                 double alpha, bool from_output) {
  const std::vector<int64_t> shape = Int64s(shape_in, "shape");
  const std::vector<int64_t> dy_strides = Int64s(dy_strides_in, "dy_strides");
  const std::vector<int64_t> s_strides = Int64s(s_strides_in, "s_strides");
  const std::vector<int64_t> dx_strides = Int64s(dx_strides_in, "dx_strides");
  const RawTensor dyt(dy, dtype, shape, dy_strides);
  const RawTensor st(s, dtype, shape, s_strides);
  const RawTensor dxt(dx, dtype, shape, dx_strides);
  const lrelu_options_t options = CurrentOptions();
  const lrelu_grad_source_t source =
      from_output ? LRELU_GRAD_FROM_Y : LRELU_GRAD_FROM_X;
  CallRaw(ElementCount(shape), [&] {
    return lrelu_leaky_relu_backward(&dyt.tensor, &st.tensor, alpha, source,
                                     &dxt.tensor, &options);
  });
}

// Torch tensors read through their own attributes, for lrelu.torch's eager
// calls: one C call in place of a dozen attribute reads in Python, and no
// libtorch (the extension is built without torch). lrelu.torch registers
// torch's dtype objects here at import.
struct TorchNames {
  PyObject* dtype = PyUnicode_InternFromString("dtype");
  PyObject* is_cpu = PyUnicode_InternFromString("is_cpu");
  PyObject* is_neg = PyUnicode_InternFromString("is_neg");
  PyObject* shape = PyUnicode_InternFromString("shape");
  PyObject* stride = PyUnicode_InternFromString("stride");
  PyObject* data_ptr = PyUnicode_InternFromString("data_ptr");
  PyObject* copy_ = PyUnicode_InternFromString("copy_");
};

const TorchNames& Names() {
  static const TorchNames* names = new TorchNames();  // lives as long as we
  return *names;
}

// torch.float32, float16, bfloat16, float64 and their lrelu_dtype_t.
constexpr int kTorchDtypes = 4;
PyObject* torch_dtypes[kTorchDtypes] = {};  // strong references
const lrelu_dtype_t kTorchDtypeCodes[kTorchDtypes] = {
    LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16,
    LRELU_DTYPE_FLOAT64};

// torch._C._get_tracing_state and torch.is_grad_enabled.
PyObject* torch_tracing_state = nullptr;
PyObject* torch_grad_enabled = nullptr;

void SetTorch(nb::handle float32, nb::handle float16, nb::handle bfloat16,
              nb::handle float64, nb::handle tracing_state,
              nb::handle grad_enabled) {
  const nb::handle dtypes[kTorchDtypes] = {float32, float16, bfloat16, float64};
  for (int i = 0; i < kTorchDtypes; ++i) {
    Py_XDECREF(torch_dtypes[i]);
    torch_dtypes[i] = dtypes[i].inc_ref().ptr();
  }
  Py_XDECREF(torch_tracing_state);
  torch_tracing_state = tracing_state.inc_ref().ptr();
  Py_XDECREF(torch_grad_enabled);
  torch_grad_enabled = grad_enabled.inc_ref().ptr();
}

nb::object Attr(nb::handle object, PyObject* name) {
  return nb::steal(PyObject_GetAttr(object.ptr(), name));  // null: error
}

nb::object CallMethod(nb::handle object, PyObject* name) {
  return nb::steal(PyObject_CallMethodNoArgs(object.ptr(), name));
}

// Ranks up to this many stay on the stack.
constexpr Py_ssize_t kStackRank = 8;

// A tuple of ints into values (at least kStackRank of them); false if it is
// not a tuple of that many ints or fewer.
bool TupleInts(PyObject* tuple, Py_ssize_t rank, int64_t* values) {
  if (tuple == nullptr || !PyTuple_Check(tuple) ||
      PyTuple_GET_SIZE(tuple) != rank) {
    return false;
  }
  for (Py_ssize_t i = 0; i < rank; ++i) {
    values[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
    if (values[i] == -1 && PyErr_Occurred()) return false;
  }
  return true;
}

// The dtype code of a plain CPU tensor without lazy negation, or -1.
int TorchCode(nb::handle t, const TorchNames& names, nb::object* dtype) {
  *dtype = Attr(t, names.dtype);
  int code = -1;
  for (int i = 0; i < kTorchDtypes; ++i) {
    if (dtype->ptr() == torch_dtypes[i]) code = kTorchDtypeCodes[i];
  }
  if (code < 0 || Attr(t, names.is_cpu).ptr() != Py_True ||
      CallMethod(t, names.is_neg).ptr() != Py_False) {
    return -1;
  }
  return code;
}

// t's strides (rank of them) and data address, read through its
// attributes; false (the Python error cleared) otherwise.
bool ReadLayout(nb::handle t, const TorchNames& names, Py_ssize_t rank,
                int64_t* strides, void** address) {
  const nb::object stride = CallMethod(t, names.stride);
  const nb::object data = CallMethod(t, names.data_ptr);
  if (!TupleInts(stride.ptr(), rank, strides) || !data.is_valid()) {
    PyErr_Clear();
    return false;
  }
  *address = PyLong_AsVoidPtr(data.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

// A plain CPU torch tensor of a supported dtype (rank <= 8, no lazy
// negation) as an lrelu_tensor_t over its own extents and strides, read
// through its attributes; false (the Python error cleared) otherwise. The
// tensor points into the view: use it in place.
struct TorchView {
  int64_t extents[kStackRank];
  int64_t strides[kStackRank];
  lrelu_tensor_t tensor;
};

bool ReadTorch(nb::handle t, const TorchNames& names, TorchView* v) {
  nb::object dtype;
  const int code = TorchCode(t, names, &dtype);
  const nb::object shape = code < 0 ? nb::object() : Attr(t, names.shape);
  if (!shape.is_valid() || !PyTuple_Check(shape.ptr()) ||
      PyTuple_GET_SIZE(shape.ptr()) > kStackRank) {
    PyErr_Clear();
    return false;
  }
  const Py_ssize_t rank = PyTuple_GET_SIZE(shape.ptr());
  if (!TupleInts(shape.ptr(), rank, v->extents)) {
    PyErr_Clear();
    return false;
  }
  void* address = nullptr;
  if (!ReadLayout(t, names, rank, v->strides, &address)) return false;
  v->tensor = {address, static_cast<lrelu_dtype_t>(code),
               static_cast<int32_t>(rank), v->extents, v->strides};
  return true;
}

// y = leaky_relu(x) for torch tensors x and y (y may be x; with bump,
// y.copy_(y) first, which bumps y's version counter as torch's in-place ops
// do and refuses an inference tensor; y_fresh: y is empty_like(x), whose
// dtype, device and shape need no check). Returns false, having written and
// bumped nothing, unless both are CPU tensors of one supported dtype and
// shape (rank <= 8) without lazy negation: the caller's checked path then
// handles it or names the problem.
bool ForwardTorch(nb::handle x, nb::handle y, double alpha, bool bump,
                  bool y_fresh) {
  const TorchNames& names = Names();
  TorchView xv, yv;
  if (!ReadTorch(x, names, &xv)) return false;
  const lrelu_tensor_t& xt = xv.tensor;
  const lrelu_tensor_t* yt = &xt;  // in place
  if (x.ptr() != y.ptr()) {
    if (y_fresh) {  // x's dtype and shape: its strides and address only
      yv.tensor = {nullptr, xt.dtype, xt.rank, xv.extents, yv.strides};
      if (!ReadLayout(y, names, xt.rank, yv.strides, &yv.tensor.data)) {
        return false;
      }
    } else if (!ReadTorch(y, names, &yv) || yv.tensor.dtype != xt.dtype ||
               yv.tensor.rank != xt.rank ||
               !std::equal(xv.extents, xv.extents + xt.rank, yv.extents)) {
      return false;
    }
    yt = &yv.tensor;
  }
  if (bump &&
      !nb::steal(PyObject_CallMethodOneArg(y.ptr(), names.copy_, y.ptr()))
           .is_valid()) {
    throw nb::python_error();  // torch's own error (an inference tensor)
  }
  const lrelu_options_t options = CurrentOptions();
  CallRaw(ElementCount(xv.extents, static_cast<size_t>(xt.rank)),
          [&] { return lrelu_leaky_relu(&xt, alpha, yt, &options); });
  return true;
}

// nn.PReLU's weight (or its gradient) read as ReadTorch does and viewed as
// the alpha it is for x: [C, 1, ..., 1] over x's dimension 1, or [1] when
// it has one element. False unless it is 1-D of x's dtype or float64 with 1
// or x.shape[1] elements.
struct WeightView {
  TorchView weight;
  int64_t extents[kStackRank];
  int64_t strides[kStackRank];
  lrelu_tensor_t alpha;
};

bool ReadWeight(nb::handle t, const TorchNames& names, const TorchView& x,
                WeightView* v) {
  if (!ReadTorch(t, names, &v->weight)) return false;
  const lrelu_tensor_t& w = v->weight.tensor;
  const int64_t channels = w.rank == 1 ? v->weight.extents[0] : 0;
  if ((w.dtype != x.tensor.dtype && w.dtype != LRELU_DTYPE_FLOAT64) ||
      (channels != 1 &&
       (channels == 0 || x.tensor.rank < 2 || x.extents[1] != channels))) {
    return false;
  }
  // One parameter: a scalar alpha for a 0-d x (ONNX's rule: alpha's rank
  // at most x's), [1] otherwise.
  const int32_t rank =
      channels == 1 ? std::min(x.tensor.rank, 1) : x.tensor.rank - 1;
  for (int32_t k = 0; k < rank; ++k) {
    v->extents[k] = k == 0 ? channels : 1;
    v->strides[k] = k == 0 ? v->weight.strides[0] : 0;
  }
  v->alpha = {w.data, w.dtype, rank, v->extents, v->strides};
  return true;
}

// lrelu.torch.PReLU's passes for torch tensors read through their
// attributes (the reshaped view, DLPack and the checks in Python took ~2/3
// of a small call), alpha nn.PReLU's weight viewed by ReadWeight: the
// forward pass into y, and the backward pass into dx and dweight (each
// None: not computed; dweight a tensor like the weight). False, having done
// nothing, unless every tensor is a plain CPU one (ReadTorch) and the
// weight fits (ReadWeight): lrelu.torch's checked path then converts or
// raises. The library checks the rest (shapes, dtypes, overlap) and its
// errors are raised.
bool PreluForwardWeight(nb::handle x, nb::handle weight, nb::handle y) {
  const TorchNames& names = Names();
  TorchView xv, yv;
  WeightView wv;
  if (!ReadTorch(x, names, &xv) || !ReadWeight(weight, names, xv, &wv) ||
      !ReadTorch(y, names, &yv)) {
    return false;
  }
  const lrelu_options_t options = CurrentOptions();
  CallRaw(ElementCount(xv.extents, static_cast<size_t>(xv.tensor.rank)), [&] {
    return lrelu_prelu(&xv.tensor, &wv.alpha, &yv.tensor, &options);
  });
  return true;
}

bool PreluBackwardWeight(nb::handle dy, nb::handle x, nb::handle weight,
                         nb::handle dx, nb::handle dweight) {
  const TorchNames& names = Names();
  TorchView dyv, xv, dxv;
  WeightView wv, dwv;
  if (!ReadTorch(dy, names, &dyv) || !ReadTorch(x, names, &xv) ||
      !ReadWeight(weight, names, xv, &wv) ||
      (!dx.is_none() && !ReadTorch(dx, names, &dxv)) ||
      (!dweight.is_none() && !ReadWeight(dweight, names, xv, &dwv))) {
    return false;
  }
  const lrelu_options_t options = CurrentOptions();
  CallRaw(ElementCount(xv.extents, static_cast<size_t>(xv.tensor.rank)), [&] {
    return lrelu_prelu_backward(&dyv.tensor, &xv.tensor, &wv.alpha,
                                dx.is_none() ? nullptr : &dxv.tensor,
                                dweight.is_none() ? nullptr : &dwv.alpha,
                                &options);
  });
  return true;
}

// lrelu.leaky_relu(x, alpha, out=y) for torch tensors: ForwardTorch with
// the bump, unless a tracer runs (the write would not be traced) or a
// gradient is wanted (out= has none); false in those cases too, having done
// nothing, and lrelu.torch.call_out then refuses with its message.
bool ForwardTorchOut(nb::handle x, double alpha, nb::handle y) {
  if (torch_tracing_state == nullptr || torch_grad_enabled == nullptr) {
    return false;  // lrelu.torch not imported
  }
  static PyObject* requires_grad = PyUnicode_InternFromString("requires_grad");
  const nb::object tracing =
      nb::steal(PyObject_CallNoArgs(torch_tracing_state));
  if (tracing.ptr() != Py_None) {
    PyErr_Clear();
    return false;
  }
  if (Attr(x, requires_grad).ptr() != Py_False ||
      Attr(y, requires_grad).ptr() != Py_False) {
    PyErr_Clear();
    const nb::object enabled =
        nb::steal(PyObject_CallNoArgs(torch_grad_enabled));
    if (enabled.ptr() != Py_False) {
      PyErr_Clear();
      return false;
    }
  }
  return ForwardTorch(x, y, alpha, /*bump=*/true, /*y_fresh=*/false);
}

std::vector<std::string> CpuTargets() {
  std::vector<std::string> names;
  for (size_t i = 0; i < lrelu_cpu_target_count(); ++i) {
    names.emplace_back(lrelu_cpu_target_name(i));
  }
  return names;
}

// Records ml_dtypes.bfloat16's type number so that the ufunc can register a
// loop for it. ml_dtypes is optional: without it bfloat16 is unsupported.
std::string FindBFloat16() {
  try {
    nb::module_ ml_dtypes = nb::module_::import_("ml_dtypes");
    nb::module_ np = nb::module_::import_("numpy");
    nb::object dtype = np.attr("dtype")(ml_dtypes.attr("bfloat16"));
    SetBFloat16TypeNum(nb::cast<int>(dtype.attr("num")));
    return "";
  } catch (nb::python_error& e) {
    return e.what();
  }
}

}  // namespace
}  // namespace lrelu_python

NB_MODULE(_lrelu, m) {
  namespace lp = lrelu_python;
  if (_import_array() < 0 || _import_umath() < 0) throw nb::python_error();

  const std::string bfloat16_problem = lp::FindBFloat16();
  // nb::object: nanobind 3 gives nb::none and nb::str no common type.
  m.attr("bfloat16_unavailable_reason") =
      bfloat16_problem.empty() ? nb::object(nb::none())
                               : nb::object(nb::str(bfloat16_problem.c_str()));
  m.attr("ufunc") = lp::MakeUfunc();
  // pickle finds a ufunc by its __name__ in a module (NumPy's
  // _ufunc_reconstruct): lrelu._lrelu.leaky_relu is lrelu.ufunc, so that it
  // travels to other processes (multiprocessing, dask's process schedulers).
  m.attr("leaky_relu") = m.attr("ufunc");

  lp::BindPrelu(m);

  m.def("forward", &lp::Forward, nb::arg("x"), nb::arg("alpha"), nb::arg("y"),
        nb::arg("threads") = nb::none(),
        "y = x < 0 ? alpha * x : x into the existing y (NumPy array or DLPack "
        "tensor; y may be x for in place).");
  m.def("backward", &lp::Backward, nb::arg("dy"), nb::arg("s"),
        nb::arg("alpha"), nb::arg("from_output"), nb::arg("dx"),
        nb::arg("threads") = nb::none(),
        "dx = s < 0 ? alpha * dy : dy into the existing dx; s is x, or y when "
        "from_output (alpha > 0 only).");
  m.def("forward_raw", &lp::ForwardRaw, nb::arg("x"), nb::arg("y"),
        nb::arg("dtype"), nb::arg("shape"), nb::arg("x_strides"),
        nb::arg("y_strides"), nb::arg("alpha"),
        "forward on memory given as addresses, lrelu_dtype_t and element "
        "strides (for lrelu.torch; the caller keeps the memory alive).");
  m.def("backward_raw", &lp::BackwardRaw, nb::arg("dy"), nb::arg("s"),
        nb::arg("dx"), nb::arg("dtype"), nb::arg("shape"),
        nb::arg("dy_strides"), nb::arg("s_strides"), nb::arg("dx_strides"),
        nb::arg("alpha"), nb::arg("from_output"),
        "backward on memory given as addresses (see forward_raw).");
  m.def("set_torch", &lp::SetTorch, nb::arg("float32"), nb::arg("float16"),
        nb::arg("bfloat16"), nb::arg("float64"), nb::arg("tracing_state"),
        nb::arg("grad_enabled"),
        "torch's dtype objects, torch._C._get_tracing_state and "
        "torch.is_grad_enabled, for forward_torch (lrelu.torch registers "
        "them; the extension never imports torch).");
  m.def("forward_torch_out", &lp::ForwardTorchOut, nb::arg("x"),
        nb::arg("alpha"), nb::arg("y"),
        "forward_torch(x, y, alpha, bump=True) for lrelu.leaky_relu(x, out=y)"
        ": also False, having done nothing, while a tracer runs or when a "
        "gradient is wanted.");
  m.def("forward_torch", &lp::ForwardTorch, nb::arg("x"), nb::arg("y"),
        nb::arg("alpha"), nb::arg("bump"), nb::arg("y_fresh") = false,
        "forward on torch tensors read through their attributes; with bump, "
        "y.copy_(y) first (y's version counter); y_fresh: y is empty_like(x). "
        "False, having done "
        "nothing, unless both are plain CPU tensors of one supported dtype "
        "and shape (rank <= 8) without lazy negation.");
  m.def("prelu_forward_weight", &lp::PreluForwardWeight, nb::arg("x"),
        nb::arg("weight"), nb::arg("y"),
        "lrelu.torch.PReLU's forward pass on torch tensors read through "
        "their attributes, the weight (C,) as alpha [C, 1, ...] over x's "
        "dimension 1 (or [1]); False, having done nothing, unless all three "
        "are plain CPU tensors (rank <= 8, no lazy negation) and the weight "
        "fits x as is (x's dtype or float64; 1 or x.shape[1] elements).");
  m.def("prelu_backward_weight", &lp::PreluBackwardWeight, nb::arg("dy"),
        nb::arg("x"), nb::arg("weight"), nb::arg("dx").none(),
        nb::arg("dweight").none(),
        "lrelu.torch.PReLU's backward pass as prelu_forward_weight reads its "
        "tensors: dx and the weight's gradient (each None: not computed; "
        "dweight like the weight); False, having done nothing, where "
        "prelu_forward_weight would be.");
  m.def(
      "torch_kernels",
      [] { return reinterpret_cast<uintptr_t>(lp::TorchKernels()); },
      "The address of the lrelu_torch_kernels_t table that lrelu.torch hands "
      "to the compiled torch operators (lrelu/_torch_ops.so).");
  m.attr("DTYPE_FLOAT32") = static_cast<int>(LRELU_DTYPE_FLOAT32);
  m.attr("DTYPE_FLOAT16") = static_cast<int>(LRELU_DTYPE_FLOAT16);
  m.attr("DTYPE_BFLOAT16") = static_cast<int>(LRELU_DTYPE_BFLOAT16);
  m.attr("DTYPE_FLOAT64") = static_cast<int>(LRELU_DTYPE_FLOAT64);
  m.def(
      "data_ptr",
      [](nb::handle object) {
        const lp::TensorView view(object, lp::TensorView::Role::kInput, "x");
        return reinterpret_cast<uintptr_t>(view.tensor()->data);
      },
      nb::arg("x"),
      "The address lrelu reads x's first element from (shows that a DLPack "
      "import does not copy).");
  m.def("last_loop_held_gil", &lp::LastLoopHeldGil,
        "Whether the ufunc's most recent inner loop ran holding the GIL.");
  m.def("default_threads", &lp::DefaultThreads);
  m.def("set_default_threads", &lp::SetDefaultThreads, nb::arg("threads"));
  m.def("swap_thread_override", &lp::SwapThreadOverride, nb::arg("threads"));
  m.def("version", [] { return std::string(lrelu_version()); });
  m.def("contract_version", &lrelu_contract_version);
  m.def("cpu_targets", &lp::CpuTargets);
  m.def("cpu_targets_compiled",
        [] { return std::string(lrelu_cpu_targets_compiled()); });
  m.def("hardware_threads", &lrelu_hardware_threads);
  m.attr("default_alpha") = LRELU_DEFAULT_ALPHA;
}
