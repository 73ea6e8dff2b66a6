// Maps NumPy and DLPack element types to lrelu_dtype_t. bfloat16 has no
// NumPy type number of its own: it is the one ml_dtypes registers at import,
// recorded here once by module.cc.
#ifndef LRELU_PYTHON_DTYPES_H_
#define LRELU_PYTHON_DTYPES_H_

#include <nanobind/ndarray.h>

#include <string>

#include "lrelu/lrelu.h"

namespace lrelu_python {

// ml_dtypes.bfloat16's NumPy type number, or -1 when ml_dtypes is missing.
int BFloat16TypeNum();
void SetBFloat16TypeNum(int type_num);

// The lrelu dtype for a NumPy type number; false for any other type.
bool DtypeFromNumpy(int type_num, lrelu_dtype_t* dtype);

// The lrelu dtype for a DLPack dtype; false for any other type.
bool DtypeFromDlpack(nanobind::dlpack::dtype dl, lrelu_dtype_t* dtype);

// "int32", "complex64": for error messages.
std::string DlpackDtypeName(nanobind::dlpack::dtype dl);

}  // namespace lrelu_python

#endif  // LRELU_PYTHON_DTYPES_H_
