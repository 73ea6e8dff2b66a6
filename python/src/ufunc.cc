#include "ufunc.h"

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <cstdint>
#include <cstring>
#include <string>

#include "dtypes.h"
#include "errors.h"
#include "lrelu/lrelu.h"
#include "numpy_api.h"
#include "threads.h"

namespace nb = nanobind;

namespace lrelu_python {
namespace {

// Element strides the C ABI cannot express go through this much stack.
constexpr size_t kBufferBytes = 4096;

// Loops this long release the GIL if NumPy did not (as NumPy's own
// threshold, 500 elements, rounded up).
constexpr npy_intp kReleaseGilElements = 512;

// Whether the most recent inner loop ran holding the GIL: lets the tests see
// that NumPy released it (the loops never touch Python state).
std::atomic<bool> g_last_loop_held_gil{false};

// The inner loops run without the GIL; a failure takes it to set the Python
// error. The loops only see valid dtypes, shapes and no partial overlap
// (NumPy copies overlapping operands first), so this is for the unexpected.
void ReportLoopError(lrelu_status_t status) {
  const std::string message = lrelu_last_error();
  PyGILState_STATE state = PyGILState_Ensure();
  PyErr_Format(ExceptionFor(status), "lrelu.ufunc: %s (%s)", message.c_str(),
               lrelu_status_string(status));
  PyGILState_Release(state);
}

lrelu_status_t Call(lrelu_dtype_t dtype, npy_intp itemsize, char* x,
                    npy_intp x_step, double alpha, char* y, npy_intp y_step,
                    npy_intp n, const lrelu_options_t& options) {
  int64_t shape = n;
  int64_t x_stride = x_step / itemsize;
  int64_t y_stride = y_step / itemsize;
  const int32_t rank = n == 1 ? 0 : 1;  // one element: a scalar, no strides
  const lrelu_tensor_t x_tensor{x, dtype, rank, &shape, &x_stride};
  const lrelu_tensor_t y_tensor{y, dtype, rank, &shape, &y_stride};
  return lrelu_leaky_relu(&x_tensor, alpha, &y_tensor, &options);
}

// One run of elements that share one alpha.
lrelu_status_t Run(lrelu_dtype_t dtype, npy_intp itemsize, char* x,
                   npy_intp x_step, double alpha, char* y, npy_intp y_step,
                   npy_intp n, const lrelu_options_t& options) {
  const bool whole_elements = x_step % itemsize == 0 && y_step % itemsize == 0;
  if (whole_elements && (y_step != 0 || n == 1)) {
    return Call(dtype, itemsize, x, x_step, alpha, y, y_step, n, options);
  }
  if (y_step == 0) {
    // Every element lands on the same y (ufunc.reduce): one after another,
    // in order, as NumPy's own loops do.
    for (npy_intp i = 0; i < n; ++i) {
      lrelu_status_t status =
          Call(dtype, itemsize, x + i * x_step, 0, alpha, y, 0, 1, options);
      if (status != LRELU_STATUS_OK) return status;
    }
    return LRELU_STATUS_OK;
  }
  // Strides that are not whole elements: copy into an aligned buffer,
  // compute there in place, copy back.
  alignas(16) char buffer[kBufferBytes];
  const npy_intp block = static_cast<npy_intp>(kBufferBytes) / itemsize;
  for (npy_intp start = 0; start < n; start += block) {
    const npy_intp m = std::min(block, n - start);
    for (npy_intp i = 0; i < m; ++i) {
      std::memcpy(buffer + i * itemsize, x + (start + i) * x_step, itemsize);
    }
    lrelu_status_t status = Call(dtype, itemsize, buffer, itemsize, alpha,
                                 buffer, itemsize, m, options);
    if (status != LRELU_STATUS_OK) return status;
    for (npy_intp i = 0; i < m; ++i) {
      std::memcpy(y + (start + i) * y_step, buffer + i * itemsize, itemsize);
    }
  }
  return LRELU_STATUS_OK;
}

double LoadAlpha(const char* p) {
  double alpha;
  std::memcpy(&alpha, p, sizeof(alpha));
  return alpha;
}

// args: x, alpha (float64), y. One library call per run of equal alpha
// (compared bit for bit, so NaN alphas group too); a broadcast alpha (step 0)
// is one run.
template <lrelu_dtype_t kDtype, npy_intp kItemSize>
void LeakyReluLoop(char** args, npy_intp const* dimensions,
                   npy_intp const* steps, void* /*data*/) {
  const npy_intp n = dimensions[0];
  char* x = args[0];
  const char* alpha = args[1];
  char* y = args[2];
  const npy_intp x_step = steps[0];
  const npy_intp alpha_step = steps[1];
  const npy_intp y_step = steps[2];
  // NumPy releases the GIL before calling the loop, except for tiny calls
  // and for dtypes flagged as needing the Python API (ml_dtypes.bfloat16).
  // The loop never touches Python objects, so it lets go of the GIL itself
  // when it was handed it with enough work to be worth it.
  PyThreadState* saved = nullptr;
  if (n >= kReleaseGilElements && PyGILState_Check()) {
    saved = PyEval_SaveThread();
  }
  g_last_loop_held_gil.store(saved == nullptr && PyGILState_Check() != 0);
  const lrelu_options_t options = CurrentOptions();
  // The loop leaves the floating-point status flags as it found them:
  // comparing NaNs or rounding a product is the contract working, not a
  // warning, and which flags the library's threads raise varies with the
  // thread count. NumPy checks the flags after the loop for its own casts.
  std::fexcept_t flags;
  std::fegetexceptflag(&flags, FE_ALL_EXCEPT);
  npy_intp begin = 0;
  while (begin < n) {
    const char* first = alpha + begin * alpha_step;
    npy_intp end = n;
    if (alpha_step != 0) {
      end = begin + 1;
      while (end < n && std::memcmp(alpha + end * alpha_step, first,
                                    sizeof(double)) == 0) {
        ++end;
      }
    }
    const lrelu_status_t status =
        Run(kDtype, kItemSize, x + begin * x_step, x_step, LoadAlpha(first),
            y + begin * y_step, y_step, end - begin, options);
    if (status != LRELU_STATUS_OK) {
      ReportLoopError(status);
      break;
    }
    begin = end;
  }
  std::fesetexceptflag(&flags, FE_ALL_EXCEPT);
  if (saved != nullptr) PyEval_RestoreThread(saved);
}

// A signature= or dtype= that names only some operands: alpha defaults to
// float64 and x and y to each other, so that dtype=np.float32 (which NumPy
// passes as (None, None, float32)) selects the 'fd->f' loop. Anything else
// is returned unchanged, as a new reference.
PyObject* CompleteSignature(PyObject* type_tup) {
  if (!PyTuple_Check(type_tup) || PyTuple_GET_SIZE(type_tup) != 3) {
    Py_INCREF(type_tup);
    return type_tup;
  }
  PyObject* types[3];
  for (int i = 0; i < 3; ++i) types[i] = PyTuple_GET_ITEM(type_tup, i);
  PyObject* float64 =
      reinterpret_cast<PyObject*>(PyArray_DescrFromType(NPY_DOUBLE));
  if (types[1] == Py_None) types[1] = float64;
  if (types[0] == Py_None) types[0] = types[2];
  if (types[2] == Py_None) types[2] = types[0];
  PyObject* completed = PyTuple_Pack(3, types[0], types[1], types[2]);
  Py_DECREF(float64);
  return completed;
}

// NumPy's default resolution would also find a loop for integer and bool x
// (they cast safely to float16 or float64); the contract rejects them. An
// explicit dtype=/signature= is the caller asking for a cast, and is
// honoured.
int ResolveTypes(PyUFuncObject* ufunc, NPY_CASTING casting,
                 PyArrayObject** operands, PyObject* type_tup,
                 PyArray_Descr** out_dtypes) {
  if (type_tup == nullptr) {
    lrelu_dtype_t dtype;
    if (!DtypeFromNumpy(PyArray_TYPE(operands[0]), &dtype)) {
      PyErr_Format(PyExc_TypeError,
                   "lrelu.ufunc: x has dtype %S; lrelu computes float16, "
                   "bfloat16, float32 and float64 only (contract v1)",
                   reinterpret_cast<PyObject*>(PyArray_DESCR(operands[0])));
      return -1;
    }
    return PyUFunc_DefaultTypeResolver(ufunc, casting, operands, nullptr,
                                       out_dtypes);
  }
  PyObject* completed = CompleteSignature(type_tup);
  if (completed == nullptr) return -1;
  const int result = PyUFunc_DefaultTypeResolver(ufunc, casting, operands,
                                                 completed, out_dtypes);
  Py_DECREF(completed);
  return result;
}

PyUFuncGenericFunction g_loops[] = {
    &LeakyReluLoop<LRELU_DTYPE_FLOAT16, 2>,
    &LeakyReluLoop<LRELU_DTYPE_FLOAT32, 4>,
    &LeakyReluLoop<LRELU_DTYPE_FLOAT64, 8>,
};
void* g_loop_data[] = {nullptr, nullptr, nullptr};
char g_loop_types[] = {
    NPY_HALF,   NPY_DOUBLE, NPY_HALF,   //
    NPY_FLOAT,  NPY_DOUBLE, NPY_FLOAT,  //
    NPY_DOUBLE, NPY_DOUBLE, NPY_DOUBLE  //
};
int g_bfloat16_types[3];

const char kDoc[] =
    "y = x < 0 ? alpha * x : x, bit for bit as lrelu contract v1 says.\n\n"
    "x: float16, float32, float64 or ml_dtypes.bfloat16. alpha: float64\n"
    "(a Python float, or an array that broadcasts against x); the library\n"
    "rounds it to float32 once for the 16- and 32-bit types. y has x's dtype.\n"
    "Everything not strictly negative (+0, -0, +inf, NaN) keeps its bits.";

}  // namespace

bool LastLoopHeldGil() { return g_last_loop_held_gil.load(); }

nb::object MakeUfunc() {
  PyObject* ufunc =
      PyUFunc_FromFuncAndData(g_loops, g_loop_data, g_loop_types, 3, /*nin=*/2,
                              /*nout=*/1, PyUFunc_None, "leaky_relu", kDoc, 0);
  if (ufunc == nullptr) throw nb::python_error();
  nb::object result = nb::steal(ufunc);
  auto* u = reinterpret_cast<PyUFuncObject*>(ufunc);
  u->type_resolver = &ResolveTypes;
  const int bfloat16 = BFloat16TypeNum();
  if (bfloat16 >= 0) {
    g_bfloat16_types[0] = bfloat16;
    g_bfloat16_types[1] = NPY_DOUBLE;
    g_bfloat16_types[2] = bfloat16;
    if (PyUFunc_RegisterLoopForType(u, bfloat16,
                                    &LeakyReluLoop<LRELU_DTYPE_BFLOAT16, 2>,
                                    g_bfloat16_types, nullptr) < 0) {
      throw nb::python_error();
    }
  }
  return result;
}

}  // namespace lrelu_python
