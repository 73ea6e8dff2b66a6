#include "ufunc.h"

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <cstdint>
#include <cstring>
#include <string>

#include "dtypes.h"
#include "errors.h"
#include "gil.h"
#include "lrelu/lrelu.h"
#include "numpy_api.h"
#include "overlap.h"
#include "threads.h"
#include "type_resolver.h"

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

// Whether NumPy holds the GIL while it runs the bfloat16 loop: it does when
// ml_dtypes' dtype says it needs the Python API (NPY_NEEDS_PYAPI).
std::atomic<bool> g_bfloat16_holds_gil{false};

bool BFloat16HoldsGil() { return g_bfloat16_holds_gil.load(); }

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

// The last plan this thread made. NumPy calls the loop once per outer index
// with the same length and steps, and Python code calls the ufunc on arrays
// of one shape again and again: a plan of the same shape is re-bound to the
// new pointers (lrelu_executor_bind), which skips validation and planning.
struct CachedPlan {
  lrelu_executor_t* executor = nullptr;
  lrelu_dtype_t dtype = LRELU_DTYPE_FLOAT32;
  int32_t rank = 0;
  int64_t shape = 0, x_stride = 0, y_stride = 0;
  bool in_place = false;
  uint64_t alpha_bits = 0;
  lrelu_options_t options = {};

  CachedPlan() = default;
  CachedPlan(const CachedPlan&) = delete;
  CachedPlan& operator=(const CachedPlan&) = delete;
  ~CachedPlan() { lrelu_executor_destroy(executor); }
};
thread_local CachedPlan t_plan;

lrelu_status_t Call(lrelu_dtype_t dtype, npy_intp itemsize, char* x,
                    npy_intp x_step, double alpha, char* y, npy_intp y_step,
                    npy_intp n, const lrelu_options_t& options) {
  int64_t shape = n;
  int64_t x_stride = x_step / itemsize;
  int64_t y_stride = y_step / itemsize;
  const int32_t rank = n == 1 ? 0 : 1;  // one element: a scalar, no strides
  uint64_t alpha_bits;
  std::memcpy(&alpha_bits, &alpha, sizeof(alpha_bits));
  CachedPlan& c = t_plan;
  const bool same_shape =
      c.executor != nullptr && c.dtype == dtype && c.rank == rank &&
      c.shape == shape && c.in_place == (x == y) &&
      (rank == 0 || (c.x_stride == x_stride && c.y_stride == y_stride)) &&
      std::memcmp(&c.options, &options, sizeof(options)) == 0;
  if (same_shape && c.alpha_bits == alpha_bits) {
    void* const data[] = {x, y};
    if (lrelu_executor_bind(c.executor, data, 2) == LRELU_STATUS_OK) {
      return lrelu_execute(nullptr, 0, c.executor, nullptr);
    }
  }
  const lrelu_tensor_t x_tensor{x, dtype, rank, &shape, &x_stride};
  const lrelu_tensor_t y_tensor{y, dtype, rank, &shape, &y_stride};
  if (same_shape) {
    // The same shape with another alpha (a per-channel alpha along an
    // outer axis, NCHW: one loop call per plane, each with its channel's
    // alpha): the one-shot call. A new plan each time (made, bound,
    // destroyed) cost ~1.5 us a call; the cached plan stays for the shape.
    return lrelu_leaky_relu(&x_tensor, alpha, &y_tensor, &options);
  }
  lrelu_executor_destroy(c.executor);
  c.executor = nullptr;
  size_t workspace_size = 0;
  lrelu_status_t status = lrelu_leaky_relu_get_workspace_size(
      &x_tensor, alpha, &y_tensor, &options, &workspace_size, &c.executor);
  if (status != LRELU_STATUS_OK) return status;
  if (workspace_size != 0) {
    // Not the CPU backend's plans; the one-shot call handles it.
    lrelu_executor_destroy(c.executor);
    c.executor = nullptr;
    return lrelu_leaky_relu(&x_tensor, alpha, &y_tensor, &options);
  }
  c.dtype = dtype;
  c.rank = rank;
  c.shape = shape;
  c.x_stride = x_stride;
  c.y_stride = y_stride;
  c.in_place = x == y;
  c.alpha_bits = alpha_bits;
  c.options = options;
  return lrelu_execute(nullptr, 0, c.executor, nullptr);
}

// Through a buffer: strides that are not whole elements, or x and y sharing
// memory other than in place (as if x were copied first, a block at a time;
// for the calls NumPy makes, that is its in-order meaning).
lrelu_status_t Buffered(lrelu_dtype_t dtype, npy_intp itemsize, char* x,
                        npy_intp x_step, double alpha, char* y, npy_intp y_step,
                        npy_intp n, const lrelu_options_t& options) {
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

// One run of elements that share one alpha.
lrelu_status_t Run(lrelu_dtype_t dtype, npy_intp itemsize, char* x,
                   npy_intp x_step, double alpha, char* y, npy_intp y_step,
                   npy_intp n, const lrelu_options_t& options) {
  if (y_step == 0 && n > 1) {
    // Every element lands on the same y (ufunc.reduce): one after another,
    // in order, as NumPy's own loops do.
    for (npy_intp i = 0; i < n; ++i) {
      lrelu_status_t status =
          Call(dtype, itemsize, x + i * x_step, 0, alpha, y, 0, 1, options);
      if (status != LRELU_STATUS_OK) return status;
    }
    return LRELU_STATUS_OK;
  }
  const bool whole_elements = x_step % itemsize == 0 && y_step % itemsize == 0;
  const RunSharing shared = ClassifySharing(x, x_step, y, y_step, n, itemsize);
  if (!whole_elements || shared.sharing == Sharing::kOther) {
    return Buffered(dtype, itemsize, x, x_step, alpha, y, y_step, n, options);
  }
  if (shared.sharing != Sharing::kChained) {
    return Call(dtype, itemsize, x, x_step, alpha, y, y_step, n, options);
  }
  // x reads what this run writes lag elements earlier: in order, lag
  // elements per call, so that each call's x and y are apart.
  for (npy_intp start = 0; start < n; start += shared.lag) {
    const npy_intp m = std::min<npy_intp>(shared.lag, n - start);
    lrelu_status_t status = Call(dtype, itemsize, x + start * x_step, x_step,
                                 alpha, y + start * y_step, y_step, m, options);
    if (status != LRELU_STATUS_OK) return status;
  }
  return LRELU_STATUS_OK;
}

double LoadAlpha(const char* p) {
  double alpha;
  std::memcpy(&alpha, p, sizeof(alpha));
  return alpha;
}

// Alpha changing from one element to the next (a per-channel alpha along the
// innermost axis): one PReLU call over the whole run with alpha as a float64
// tensor instead of one call per element. Same bits: a float64 alpha is
// rounded to float32 once, as leaky_relu rounds it. Returns false, having
// written nothing, for what PReLU does not take here (steps that are not
// whole elements, x and y sharing memory other than in place, y over alpha);
// the caller then goes run by run (and reports any error).
bool PreluRun(lrelu_dtype_t dtype, npy_intp itemsize, char* x, npy_intp x_step,
              const char* alpha, npy_intp alpha_step, char* y, npy_intp y_step,
              npy_intp n, const lrelu_options_t& options) {
  if (n < 2 || y_step == 0 || x_step % itemsize != 0 ||
      y_step % itemsize != 0 ||
      alpha_step % static_cast<npy_intp>(sizeof(double)) != 0) {
    return false;
  }
  const Sharing sharing =
      ClassifySharing(x, x_step, y, y_step, n, itemsize).sharing;
  if (sharing != Sharing::kNone && sharing != Sharing::kSame) return false;
  int64_t shape = n;
  int64_t x_stride = x_step / itemsize;
  int64_t y_stride = y_step / itemsize;
  int64_t alpha_stride = alpha_step / static_cast<npy_intp>(sizeof(double));
  const lrelu_tensor_t x_tensor{x, dtype, 1, &shape, &x_stride};
  const lrelu_tensor_t alpha_tensor{
      const_cast<char*>(alpha), LRELU_DTYPE_FLOAT64, 1, &shape, &alpha_stride};
  const lrelu_tensor_t y_tensor{y, dtype, 1, &shape, &y_stride};
  // A refusal (e.g. y over alpha) writes nothing: the runs then do it.
  return lrelu_prelu(&x_tensor, &alpha_tensor, &y_tensor, &options) ==
         LRELU_STATUS_OK;
}

// The end of the run of alphas from `begin` whose bits equal alpha[begin]
// (alpha_step != 0), at most n: four compared a step (NumPy hands a
// per-channel NCHW alpha as buffered runs of equal values, 8 Ki a call;
// one compare and branch a value took most of such a call).
npy_intp RunEnd(const char* alpha, npy_intp alpha_step, npy_intp begin,
                npy_intp n) {
  const auto at = [&](npy_intp i) {
    uint64_t bits;
    std::memcpy(&bits, alpha + i * alpha_step, sizeof(bits));
    return bits;
  };
  const uint64_t first = at(begin);
  npy_intp end = begin + 1;
  for (; end + 4 <= n; end += 4) {
    if (((at(end) ^ first) | (at(end + 1) ^ first) | (at(end + 2) ^ first) |
         (at(end + 3) ^ first)) != 0) {
      break;
    }
  }
  while (end < n && at(end) == first) ++end;
  return end;
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
  // NumPy calls the loop without the GIL for calls of 500 elements or
  // more, except when a dtype needs the Python API (ml_dtypes.bfloat16 says
  // it does): then NumPy holds the GIL for the whole call, and only then
  // does the loop, which never touches Python objects, let go of it itself.
  // (PyGILState_Check cannot tell: it answers 1 once a subinterpreter
  // exists.)
  PyThreadState* saved = nullptr;
  if (kDtype == LRELU_DTYPE_BFLOAT16 && BFloat16HoldsGil() &&
      n >= kReleaseGilElements) {
    saved = PyEval_SaveThread();
  }
  g_last_loop_held_gil.store(ThisThreadHoldsGil());
  const lrelu_options_t options = CurrentOptions();
  // The loop leaves the floating-point status flags as it found them:
  // comparing NaNs or rounding a product is the contract working, not a
  // warning, and which flags the library's threads raise varies with the
  // thread count. NumPy checks the flags after the loop for its own casts.
  std::fexcept_t flags;
  std::fegetexceptflag(&flags, FE_ALL_EXCEPT);
  npy_intp begin = 0;
  if (alpha_step != 0 && n > 1 &&
      std::memcmp(alpha, alpha + alpha_step, sizeof(double)) != 0 &&
      PreluRun(kDtype, kItemSize, x, x_step, alpha, alpha_step, y, y_step, n,
               options)) {
    begin = n;
  }
  while (begin < n) {
    const char* first = alpha + begin * alpha_step;
    const npy_intp end =
        alpha_step != 0 ? RunEnd(alpha, alpha_step, begin, n) : n;
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
    PyArray_Descr* descr = PyArray_DescrFromType(bfloat16);
    if (descr == nullptr) throw nb::python_error();
    g_bfloat16_holds_gil.store(PyDataType_FLAGCHK(descr, NPY_NEEDS_PYAPI));
    Py_DECREF(descr);
    if (PyUFunc_RegisterLoopForType(u, bfloat16,
                                    &LeakyReluLoop<LRELU_DTYPE_BFLOAT16, 2>,
                                    g_bfloat16_types, nullptr) < 0) {
      throw nb::python_error();
    }
  }
  return result;
}

}  // namespace lrelu_python
