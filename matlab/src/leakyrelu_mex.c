/* MEX gateway over lrelu's C ABI, for MATLAB and GNU Octave: one source,
 * built twice (matlab/CMakeLists.txt, docs/matlab.md):
 *   +lrelu/leakyrelu          Y = lrelu.leakyrelu(X [, scaleFactor])
 *   +lrelu/leakyrelu_backward dX = lrelu.leakyrelu_backward(dY, X, scaleFactor)
 *     (with -DLRELU_MEX_BACKWARD).
 * Only the portable MEX API: data through mxGetData (Octave 7.3's
 * mxGetDoubles aborts on ranges such as -1:1), so the same source builds for
 * MATLAB's interleaved and separate-complex APIs. Arrays are treated as flat
 * runs of numel elements (the operation is elementwise); Y keeps X's size. */
#include <stddef.h>
#include <stdint.h>

#include "lrelu/lrelu.h"
#include "mex.h"

#define ID "lrelu:leakyrelu:"

#ifdef LRELU_MEX_BACKWARD
#define USAGE "dX = lrelu.leakyrelu_backward(dY, X, scaleFactor)"
#else
#define USAGE "Y = lrelu.leakyrelu(X) or Y = lrelu.leakyrelu(X, scaleFactor)"
#endif

/* The lrelu dtype of a real, full single or double array; refuses
 * everything else with an identifier that names the problem. */
static lrelu_dtype_t CheckArray(const mxArray* a, const char* name) {
  if (mxIsSparse(a)) {
    mexErrMsgIdAndTxt(ID "sparseInput",
                      "%s must be a full array; sparse arrays are "
                      "not supported (use full(%s))",
                      name, name);
  }
  if (mxIsComplex(a)) {
    mexErrMsgIdAndTxt(ID "complexInput",
                      "%s must be real; complex arrays are not "
                      "supported",
                      name);
  }
  if (mxIsSingle(a)) return LRELU_DTYPE_FLOAT32;
  if (mxIsDouble(a)) return LRELU_DTYPE_FLOAT64;
  mexErrMsgIdAndTxt(ID "unsupportedType",
                    "%s must be a single or double array, not %s", name,
                    mxGetClassName(a));
  return LRELU_DTYPE_FLOAT64; /* not reached: mexErrMsgIdAndTxt returns to
                                 the host */
}

/* scaleFactor: a real numeric scalar of any numeric class. */
static double ScaleFactor(const mxArray* s) {
  if (!mxIsNumeric(s) || mxIsComplex(s) || mxIsSparse(s) ||
      mxGetNumberOfElements(s) != 1) {
    mexErrMsgIdAndTxt(ID "invalidScaleFactor",
                      "scaleFactor must be a real numeric scalar "
                      "(got a %s array with %d elements)",
                      mxGetClassName(s), (int)mxGetNumberOfElements(s));
  }
  return mxGetScalar(s);
}

static void CheckCounts(int nlhs, int nrhs, int min_in, int max_in) {
  if (nrhs < min_in) {
    mexErrMsgIdAndTxt(ID "notEnoughInputs",
                      "not enough input arguments; usage: " USAGE);
  }
  if (nrhs > max_in) {
    mexErrMsgIdAndTxt(ID "tooManyInputs",
                      "too many input arguments; usage: " USAGE);
  }
  if (nlhs > 1) {
    mexErrMsgIdAndTxt(ID "tooManyOutputs",
                      "too many output arguments (one result)");
  }
}

/* An uninitialised output of a's class and size, and its lrelu view. */
static mxArray* OutputLike(const mxArray* a, lrelu_dtype_t dtype,
                           const int64_t* count, lrelu_tensor_t* view) {
  mxArray* out = mxCreateNumericArray(
      mxGetNumberOfDimensions(a), mxGetDimensions(a), mxGetClassID(a), mxREAL);
  view->data = mxGetData(out);
  view->dtype = dtype;
  view->rank = 1;
  view->shape = count;
  view->strides = NULL;
  return out;
}

static lrelu_tensor_t View(const mxArray* a, lrelu_dtype_t dtype,
                           const int64_t* count) {
  lrelu_tensor_t view;
  view.data = mxGetData(a);
  view.dtype = dtype;
  view.rank = 1;
  view.shape = count;
  view.strides = NULL;
  return view;
}

static void Check(lrelu_status_t status) {
  if (status != LRELU_STATUS_OK) {
    mexErrMsgIdAndTxt(ID "libraryError", "%s", lrelu_last_error());
  }
}

void mexFunction(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]) {
#ifdef LRELU_MEX_BACKWARD
  CheckCounts(nlhs, nrhs, 3, 3);
  const lrelu_dtype_t dtype = CheckArray(prhs[0], "dY");
  if (CheckArray(prhs[1], "X") != dtype) {
    mexErrMsgIdAndTxt(ID "classMismatch",
                      "dY and X must have the same class (%s and "
                      "%s)",
                      mxGetClassName(prhs[0]), mxGetClassName(prhs[1]));
  }
  const mwSize rank = mxGetNumberOfDimensions(prhs[0]);
  int same_size = rank == mxGetNumberOfDimensions(prhs[1]);
  for (mwSize i = 0; same_size && i < rank; ++i) {
    same_size = mxGetDimensions(prhs[0])[i] == mxGetDimensions(prhs[1])[i];
  }
  if (!same_size) {
    mexErrMsgIdAndTxt(ID "sizeMismatch", "dY and X must have the same size");
  }
  const double alpha = ScaleFactor(prhs[2]);
  const int64_t count = (int64_t)mxGetNumberOfElements(prhs[0]);
  const lrelu_tensor_t dy = View(prhs[0], dtype, &count);
  const lrelu_tensor_t x = View(prhs[1], dtype, &count);
  lrelu_tensor_t dx;
  plhs[0] = OutputLike(prhs[0], dtype, &count, &dx);
  Check(
      lrelu_leaky_relu_backward(&dy, &x, alpha, LRELU_GRAD_FROM_X, &dx, NULL));
#else
  CheckCounts(nlhs, nrhs, 1, 2);
  const lrelu_dtype_t dtype = CheckArray(prhs[0], "X");
  const double alpha = nrhs == 2 ? ScaleFactor(prhs[1]) : LRELU_DEFAULT_ALPHA;
  const int64_t count = (int64_t)mxGetNumberOfElements(prhs[0]);
  const lrelu_tensor_t x = View(prhs[0], dtype, &count);
  lrelu_tensor_t y;
  plhs[0] = OutputLike(prhs[0], dtype, &count, &y);
  Check(lrelu_leaky_relu(&x, alpha, &y, NULL));
#endif
}
