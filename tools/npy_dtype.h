// The lrelu dtype of a .npy element type (tools/npy.h reads only the three
// float types lrelu takes in files: float16, float32, float64).
#ifndef LRELU_TOOLS_NPY_DTYPE_H_
#define LRELU_TOOLS_NPY_DTYPE_H_

#include "lrelu/lrelu.hpp"
#include "npy.h"

namespace lrelu_cli {

inline lrelu::DType ToDType(NpyType type) {
  switch (type) {
    case NpyType::kFloat16:
      return lrelu::DType::kFloat16;
    case NpyType::kFloat64:
      return lrelu::DType::kFloat64;
    case NpyType::kFloat32:
      break;
  }
  return lrelu::DType::kFloat32;
}

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_NPY_DTYPE_H_
