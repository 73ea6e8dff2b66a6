/* What lrelu's MEX gateways share (leakyrelu_mex.c, prelu_mex.c): checks of
 * the arguments with error identifiers under one prefix per function family
 * ("lrelu:leakyrelu:", "lrelu:prelu:"), lrelu views of MATLAB arrays, and
 * lrelu's status as an error. Only the portable MEX API (mxGetData: Octave
 * 7.3's mxGetDoubles aborts on ranges such as -1:1). Header-only: each
 * gateway is one MEX file. */
#ifndef LRELU_MATLAB_SRC_MEX_COMMON_H_
#define LRELU_MATLAB_SRC_MEX_COMMON_H_

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "lrelu/lrelu.h"
#include "mex.h"

/* Raises the error `prefix` + `id` with a printf-style message; does not
 * return (mexErrMsgIdAndTxt returns to the host). */
static void MexFail(const char* prefix, const char* id, const char* format,
                    ...) {
  char identifier[96];
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  snprintf(identifier, sizeof identifier, "%s%s", prefix, id);
  mexErrMsgIdAndTxt(identifier, "%s", message);
}

/* The lrelu dtype of a real, full single or double array; refuses
 * everything else with an identifier that names the problem. */
static lrelu_dtype_t MexCheckArray(const char* prefix, const mxArray* a,
                                   const char* name) {
  if (mxIsSparse(a)) {
    MexFail(prefix, "sparseInput",
            "%s must be a full array; sparse arrays are not supported (use "
            "full(%s))",
            name, name);
  }
  if (mxIsComplex(a)) {
    MexFail(prefix, "complexInput",
            "%s must be real; complex arrays are not supported", name);
  }
  if (mxIsSingle(a)) return LRELU_DTYPE_FLOAT32;
  if (mxIsDouble(a)) return LRELU_DTYPE_FLOAT64;
  MexFail(prefix, "unsupportedType",
          "%s must be a single or double array, not %s", name,
          mxGetClassName(a));
  return LRELU_DTYPE_FLOAT64; /* not reached */
}

static void MexCheckCounts(const char* prefix, const char* usage, int nlhs,
                           int nrhs, int min_in, int max_in, int max_out) {
  if (nrhs < min_in) {
    MexFail(prefix, "notEnoughInputs", "not enough input arguments; usage: %s",
            usage);
  }
  if (nrhs > max_in) {
    MexFail(prefix, "tooManyInputs", "too many input arguments; usage: %s",
            usage);
  }
  if (nlhs > max_out) {
    MexFail(prefix, "tooManyOutputs", "too many output arguments; usage: %s",
            usage);
  }
}

/* Whether a and b have the same size. */
static int MexSameSize(const mxArray* a, const mxArray* b) {
  const mwSize rank = mxGetNumberOfDimensions(a);
  if (rank != mxGetNumberOfDimensions(b)) return 0;
  for (mwSize i = 0; i < rank; ++i) {
    if (mxGetDimensions(a)[i] != mxGetDimensions(b)[i]) return 0;
  }
  return 1;
}

/* A dense lrelu view of data; shape points at the caller's extents. */
static lrelu_tensor_t MexView(void* data, lrelu_dtype_t dtype, int32_t rank,
                              const int64_t* shape) {
  lrelu_tensor_t view;
  view.data = data;
  view.dtype = dtype;
  view.rank = rank;
  view.shape = shape;
  view.strides = NULL;
  return view;
}

/* An uninitialised real array of a's class and size. */
static mxArray* MexArrayLike(const mxArray* a) {
  return mxCreateNumericArray(mxGetNumberOfDimensions(a), mxGetDimensions(a),
                              mxGetClassID(a), mxREAL);
}

static void MexCheckStatus(const char* prefix, lrelu_status_t status) {
  if (status != LRELU_STATUS_OK) {
    MexFail(prefix, "libraryError", "%s", lrelu_last_error());
  }
}

#endif /* LRELU_MATLAB_SRC_MEX_COMMON_H_ */
