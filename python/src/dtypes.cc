#include "dtypes.h"

#include <atomic>

#include "numpy_api.h"

namespace lrelu_python {
namespace {

std::atomic<int> g_bfloat16_type_num{-1};

}  // namespace

int BFloat16TypeNum() { return g_bfloat16_type_num.load(); }

void SetBFloat16TypeNum(int type_num) { g_bfloat16_type_num.store(type_num); }

bool DtypeFromNumpy(int type_num, lrelu_dtype_t* dtype) {
  switch (type_num) {
    case NPY_HALF:
      *dtype = LRELU_DTYPE_FLOAT16;
      return true;
    case NPY_FLOAT:
      *dtype = LRELU_DTYPE_FLOAT32;
      return true;
    case NPY_DOUBLE:
      *dtype = LRELU_DTYPE_FLOAT64;
      return true;
    default:
      break;
  }
  if (type_num >= 0 && type_num == BFloat16TypeNum()) {
    *dtype = LRELU_DTYPE_BFLOAT16;
    return true;
  }
  return false;
}

bool DtypeFromDlpack(nanobind::dlpack::dtype dl, lrelu_dtype_t* dtype) {
  using Code = nanobind::dlpack::dtype_code;
  if (dl.lanes != 1) return false;
  if (dl.code == static_cast<uint8_t>(Code::Float)) {
    switch (dl.bits) {
      case 16:
        *dtype = LRELU_DTYPE_FLOAT16;
        return true;
      case 32:
        *dtype = LRELU_DTYPE_FLOAT32;
        return true;
      case 64:
        *dtype = LRELU_DTYPE_FLOAT64;
        return true;
      default:
        return false;
    }
  }
  if (dl.code == static_cast<uint8_t>(Code::Bfloat) && dl.bits == 16) {
    *dtype = LRELU_DTYPE_BFLOAT16;
    return true;
  }
  return false;
}

std::string DlpackDtypeName(nanobind::dlpack::dtype dl) {
  using Code = nanobind::dlpack::dtype_code;
  std::string kind;
  switch (static_cast<Code>(dl.code)) {
    case Code::Int:
      kind = "int";
      break;
    case Code::UInt:
      kind = "uint";
      break;
    case Code::Float:
      kind = "float";
      break;
    case Code::Bfloat:
      kind = "bfloat";
      break;
    case Code::Complex:
      kind = "complex";
      break;
    case Code::Bool:
      kind = "bool";
      break;
    default:
      kind = "dlpack-code-" + std::to_string(dl.code) + "-";
      break;
  }
  std::string name = kind + std::to_string(dl.bits);
  if (dl.lanes != 1) name += "x" + std::to_string(dl.lanes);
  return name;
}

}  // namespace lrelu_python
