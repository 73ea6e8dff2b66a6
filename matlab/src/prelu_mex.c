/* MEX gateway for PReLU (contract ai.onnx.PRelu v1) over lrelu's C ABI, for
 * MATLAB and GNU Octave: one source, built twice (matlab/CMakeLists.txt):
 *   +lrelu/prelu            Y = lrelu.prelu(X, alpha)
 *   +lrelu/prelu_backward   [dX, dalpha] = lrelu.prelu_backward(dY, X, alpha)
 *     (with -DLRELU_MEX_PRELU_BACKWARD).
 * alpha expands to X as MATLAB's implicit expansion does, alpha only: each
 * dimension of alpha is 1 or X's (1x1xC per channel for HxWxCxN). A
 * column-major array of size d1 x ... x dk is the row-major array of shape
 * [dk, ..., d1] lrelu reads, so MATLAB's left-aligned expansion is ONNX's
 * right-aligned rule on the reversed sizes. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lrelu/lrelu.h"
#include "mex.h"
#include "mex_common.h"

#define ID "lrelu:prelu:"

#ifdef LRELU_MEX_PRELU_BACKWARD
#define USAGE "[dX, dalpha] = lrelu.prelu_backward(dY, X, alpha)"
#else
#define USAGE "Y = lrelu.prelu(X, alpha)"
#endif

/* "AxBxC" for a's size. */
static void SizeText(const mxArray* a, char* text, size_t size) {
  const mwSize rank = mxGetNumberOfDimensions(a);
  size_t used = 0;
  text[0] = '\0';
  for (mwSize i = 0; i < rank && used < size; ++i) {
    const int n = snprintf(text + used, size - used, i ? "x%llu" : "%llu",
                           (unsigned long long)mxGetDimensions(a)[i]);
    if (n < 0) break;
    used += (size_t)n;
  }
}

/* a's extents, reversed (row-major), into shape[rank]: the first `rank` of
 * MATLAB's dimensions, trailing ones (1) beyond a's own. */
static void Reversed(const mxArray* a, int32_t rank, int64_t* shape) {
  const mwSize own = mxGetNumberOfDimensions(a);
  for (int32_t i = 0; i < rank; ++i) {
    shape[rank - 1 - i] = (mwSize)i < own ? (int64_t)mxGetDimensions(a)[i] : 1;
  }
}

/* Checks that alpha expands to x (each dimension 1 or x's) and that its
 * class suits x's (x's, or double for single x: rounded to single once);
 * returns alpha's dtype and fills both row-major shapes. */
static lrelu_dtype_t CheckAlpha(const mxArray* x, lrelu_dtype_t x_dtype,
                                const mxArray* alpha, int32_t* x_rank,
                                int64_t* x_shape, int32_t* alpha_rank,
                                int64_t* alpha_shape) {
  const lrelu_dtype_t dtype = MexCheckArray(ID, alpha, "alpha");
  if (dtype != x_dtype && dtype != LRELU_DTYPE_FLOAT64) {
    MexFail(ID, "classMismatch",
            "alpha must be single or double for single X, and double for "
            "double X (got %s alpha for %s X)",
            mxGetClassName(alpha), mxGetClassName(x));
  }
  const mwSize xr = mxGetNumberOfDimensions(x);
  const mwSize ar = mxGetNumberOfDimensions(alpha);
  const mwSize rank = xr > ar ? xr : ar;
  for (mwSize i = 0; i < rank; ++i) {
    const mwSize xi = i < xr ? mxGetDimensions(x)[i] : 1;
    const mwSize ai = i < ar ? mxGetDimensions(alpha)[i] : 1;
    if (ai != 1 && ai != xi) {
      char xs[128], as[128];
      SizeText(x, xs, sizeof xs);
      SizeText(alpha, as, sizeof as);
      MexFail(ID, "sizeMismatch",
              "alpha (size %s) does not expand to X (size %s): each "
              "dimension of alpha must be 1 or X's (dimension %llu is %llu, "
              "X's %llu)",
              as, xs, (unsigned long long)(i + 1), (unsigned long long)ai,
              (unsigned long long)xi);
    }
  }
  /* alpha's dimensions beyond X's are all 1 here: X's rank holds both. */
  *x_rank = (int32_t)xr;
  *alpha_rank = (int32_t)(ar < xr ? ar : xr);
  Reversed(x, *x_rank, x_shape);
  Reversed(alpha, *alpha_rank, alpha_shape);
  return dtype;
}

void mexFunction(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]) {
  int32_t x_rank = 0, alpha_rank = 0;
#ifdef LRELU_MEX_PRELU_BACKWARD
  MexCheckCounts(ID, USAGE, nlhs, nrhs, 3, 3, 2);
  const mxArray* dy_array = prhs[0];
  const mxArray* x_array = prhs[1];
  const mxArray* alpha_array = prhs[2];
  const lrelu_dtype_t dtype = MexCheckArray(ID, dy_array, "dY");
  if (MexCheckArray(ID, x_array, "X") != dtype) {
    MexFail(ID, "classMismatch",
            "dY and X must have the same class (%s and %s)",
            mxGetClassName(dy_array), mxGetClassName(x_array));
  }
  if (!MexSameSize(dy_array, x_array)) {
    MexFail(ID, "sizeMismatch", "dY and X must have the same size");
  }
#else
  MexCheckCounts(ID, USAGE, nlhs, nrhs, 2, 2, 1);
  const mxArray* x_array = prhs[0];
  const mxArray* alpha_array = prhs[1];
  const lrelu_dtype_t dtype = MexCheckArray(ID, x_array, "X");
#endif
  const mwSize rank = mxGetNumberOfDimensions(x_array);
  int64_t* x_shape = (int64_t*)mxCalloc(rank, sizeof(int64_t));
  int64_t* alpha_shape = (int64_t*)mxCalloc(rank, sizeof(int64_t));
  const lrelu_dtype_t alpha_dtype = CheckAlpha(
      x_array, dtype, alpha_array, &x_rank, x_shape, &alpha_rank, alpha_shape);
  const lrelu_tensor_t x = MexView(mxGetData(x_array), dtype, x_rank, x_shape);
  const lrelu_tensor_t alpha =
      MexView(mxGetData(alpha_array), alpha_dtype, alpha_rank, alpha_shape);
#ifdef LRELU_MEX_PRELU_BACKWARD
  const lrelu_tensor_t dy =
      MexView(mxGetData(dy_array), dtype, x_rank, x_shape);
  plhs[0] = MexArrayLike(dy_array);
  const lrelu_tensor_t dx = MexView(mxGetData(plhs[0]), dtype, x_rank, x_shape);
  /* dalpha only when asked for: its exact sum is the costly part. */
  lrelu_tensor_t dalpha;
  if (nlhs == 2) {
    plhs[1] = MexArrayLike(alpha_array);
    dalpha = MexView(mxGetData(plhs[1]), alpha_dtype, alpha_rank, alpha_shape);
  }
  MexCheckStatus(ID, lrelu_prelu_backward(&dy, &x, &alpha, &dx,
                                          nlhs == 2 ? &dalpha : NULL, NULL));
#else
  plhs[0] = MexArrayLike(x_array);
  const lrelu_tensor_t y = MexView(mxGetData(plhs[0]), dtype, x_rank, x_shape);
  MexCheckStatus(ID, lrelu_prelu(&x, &alpha, &y, NULL));
#endif
  mxFree(x_shape);
  mxFree(alpha_shape);
}
