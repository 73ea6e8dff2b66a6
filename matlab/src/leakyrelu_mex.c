/* MEX gateway over lrelu's C ABI, for MATLAB and GNU Octave: one source,
 * built twice (matlab/CMakeLists.txt, docs/matlab.md):
 *   +lrelu/leakyrelu          Y = lrelu.leakyrelu(X [, scaleFactor])
 *   +lrelu/leakyrelu_backward dX = lrelu.leakyrelu_backward(dY, X, scaleFactor)
 *     (with -DLRELU_MEX_BACKWARD).
 * The same source builds for MATLAB's interleaved and separate-complex APIs
 * (mex_common.h). Arrays are treated as flat runs of numel elements (the
 * operation is elementwise); Y keeps X's size. */
#include <stddef.h>
#include <stdint.h>

#include "lrelu/lrelu.h"
#include "mex.h"
#include "mex_common.h"

#define ID "lrelu:leakyrelu:"

#ifdef LRELU_MEX_BACKWARD
#define USAGE "dX = lrelu.leakyrelu_backward(dY, X, scaleFactor)"
#else
#define USAGE "Y = lrelu.leakyrelu(X) or Y = lrelu.leakyrelu(X, scaleFactor)"
#endif

/* scaleFactor: a real numeric scalar of any numeric class. */
static double ScaleFactor(const mxArray* s) {
  if (!mxIsNumeric(s) || mxIsComplex(s) || mxIsSparse(s) ||
      mxGetNumberOfElements(s) != 1) {
    MexFail(ID, "invalidScaleFactor",
            "scaleFactor must be a real numeric scalar (got a %s array with "
            "%d elements)",
            mxGetClassName(s), (int)mxGetNumberOfElements(s));
  }
  return mxGetScalar(s);
}

void mexFunction(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]) {
#ifdef LRELU_MEX_BACKWARD
  MexCheckCounts(ID, USAGE, nlhs, nrhs, 3, 3, 1);
  const lrelu_dtype_t dtype = MexCheckArray(ID, prhs[0], "dY");
  if (MexCheckArray(ID, prhs[1], "X") != dtype) {
    MexFail(ID, "classMismatch",
            "dY and X must have the same class (%s and %s)",
            mxGetClassName(prhs[0]), mxGetClassName(prhs[1]));
  }
  if (!MexSameSize(prhs[0], prhs[1])) {
    MexFail(ID, "sizeMismatch", "dY and X must have the same size");
  }
  const double alpha = ScaleFactor(prhs[2]);
  const int64_t count = (int64_t)mxGetNumberOfElements(prhs[0]);
  const lrelu_tensor_t dy = MexView(mxGetData(prhs[0]), dtype, 1, &count);
  const lrelu_tensor_t x = MexView(mxGetData(prhs[1]), dtype, 1, &count);
  plhs[0] = MexArrayLike(prhs[0]);
  const lrelu_tensor_t dx = MexView(mxGetData(plhs[0]), dtype, 1, &count);
  MexCheckStatus(ID, lrelu_leaky_relu_backward(&dy, &x, alpha,
                                               LRELU_GRAD_FROM_X, &dx, NULL));
#else
  MexCheckCounts(ID, USAGE, nlhs, nrhs, 1, 2, 1);
  const lrelu_dtype_t dtype = MexCheckArray(ID, prhs[0], "X");
  const double alpha = nrhs == 2 ? ScaleFactor(prhs[1]) : LRELU_DEFAULT_ALPHA;
  const int64_t count = (int64_t)mxGetNumberOfElements(prhs[0]);
  const lrelu_tensor_t x = MexView(mxGetData(prhs[0]), dtype, 1, &count);
  plhs[0] = MexArrayLike(prhs[0]);
  const lrelu_tensor_t y = MexView(mxGetData(plhs[0]), dtype, 1, &count);
  MexCheckStatus(ID, lrelu_leaky_relu(&x, alpha, &y, NULL));
#endif
}
