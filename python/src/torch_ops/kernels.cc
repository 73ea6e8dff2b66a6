#include "kernels.h"

#include <ATen/ops/empty_like.h>
#include <c10/core/InferenceMode.h>

#include <atomic>
#include <string>

#include "error_kind.h"

namespace lrelu_torch {
namespace {

std::atomic<const lrelu_torch_kernels_t*> g_kernels{nullptr};

const lrelu_torch_kernels_t& Kernels() {
  const lrelu_torch_kernels_t* kernels = g_kernels.load();
  TORCH_CHECK(kernels != nullptr,
              "lrelu: the torch operator library was loaded without "
              "lrelu.torch (import lrelu.torch to use torch.ops.lrelu)");
  return *kernels;
}

// torch's dtypes with their Python names (as the Python kernels' messages
// print them) and, for the four lrelu computes (`computed`), lrelu's dtype
// (unused for the others).
struct DtypeEntry {
  at::ScalarType type;
  const char* name;
  bool computed;
  lrelu_dtype_t dtype;
};
constexpr DtypeEntry kDtypes[] = {
    {at::kFloat, "torch.float32", true, LRELU_DTYPE_FLOAT32},
    {at::kHalf, "torch.float16", true, LRELU_DTYPE_FLOAT16},
    {at::kBFloat16, "torch.bfloat16", true, LRELU_DTYPE_BFLOAT16},
    {at::kDouble, "torch.float64", true, LRELU_DTYPE_FLOAT64},
    {at::kByte, "torch.uint8", false, LRELU_DTYPE_FLOAT32},
    {at::kChar, "torch.int8", false, LRELU_DTYPE_FLOAT32},
    {at::kShort, "torch.int16", false, LRELU_DTYPE_FLOAT32},
    {at::kInt, "torch.int32", false, LRELU_DTYPE_FLOAT32},
    {at::kLong, "torch.int64", false, LRELU_DTYPE_FLOAT32},
    {at::kBool, "torch.bool", false, LRELU_DTYPE_FLOAT32},
    {at::kComplexHalf, "torch.complex32", false, LRELU_DTYPE_FLOAT32},
    {at::kComplexFloat, "torch.complex64", false, LRELU_DTYPE_FLOAT32},
    {at::kComplexDouble, "torch.complex128", false, LRELU_DTYPE_FLOAT32},
};

const DtypeEntry* EntryOf(at::ScalarType type) {
  for (const DtypeEntry& e : kDtypes) {
    if (e.type == type) return &e;
  }
  return nullptr;
}

std::string DtypeName(at::ScalarType type) {
  const DtypeEntry* e = EntryOf(type);
  return e != nullptr ? e->name : c10::toString(type);
}

// The messages are lrelu.torch's Python kernels' (the fallback where this
// library is not built), so both read alike.
lrelu_dtype_t Dtype(const at::Tensor& t, const char* name) {
  const DtypeEntry* e = EntryOf(t.scalar_type());
  TORCH_CHECK_TYPE(e != nullptr && e->computed, "lrelu: ", name, " has dtype ",
                   DtypeName(t.scalar_type()),
                   "; lrelu computes float16, bfloat16, float32 and float64 "
                   "only (contract v1)");
  TORCH_CHECK_VALUE(t.is_cpu(), "lrelu: ", name, " lives on ", t.device(),
                    "; the lrelu Python package computes on the CPU only");
  return e->dtype;
}

// A lazy negation is a flag, not memory: read the values it stands for.
at::Tensor Readable(const at::Tensor& t) {
  return t.is_neg() ? t.resolve_neg() : t;
}

lrelu_tensor_t View(const at::Tensor& t, lrelu_dtype_t dtype) {
  lrelu_tensor_t view;
  view.data = t.data_ptr();
  view.dtype = dtype;
  view.rank = static_cast<int32_t>(t.dim());
  view.shape = t.sizes().data();
  view.strides = t.strides().data();
  return view;
}

// The extension's exception kinds (error_kind.h) and message (errors.cc's
// ThrowStatus); torch has no OverflowError or MemoryError of its own, so
// those two raise RuntimeError here.
void Check(const lrelu_torch_kernels_t& kernels, lrelu_status_t status) {
  if (status == LRELU_STATUS_OK) return;
  const std::string message = std::string("lrelu: ") + kernels.last_error() +
                              " (" + kernels.status_string(status) + ")";
  switch (lrelu_python::ErrorKindOf(status)) {
    case lrelu_python::ErrorKind::kType:
      TORCH_CHECK_TYPE(false, message);
    case lrelu_python::ErrorKind::kValue:
      TORCH_CHECK_VALUE(false, message);
    default:
      TORCH_CHECK(false, message);
  }
}

void CheckWritable(const at::Tensor& t, const char* name) {
  TORCH_CHECK(!t.is_inference() || c10::InferenceMode::is_enabled(),
              "lrelu: ", name,
              " is an inference tensor: torch allows in-place updates to it "
              "only in InferenceMode");
  TORCH_CHECK_VALUE(!t.is_neg(), "lrelu: ", name,
                    " carries torch's lazy negation or conjugation bit; "
                    "writing its memory would not give the values asked for: "
                    "pass a tensor without it (t.resolve_neg())");
}

}  // namespace

void Attach(const lrelu_torch_kernels_t* kernels) { g_kernels.store(kernels); }

at::Tensor Forward(const at::Tensor& x_in, double alpha) {
  const lrelu_torch_kernels_t& kernels = Kernels();
  const lrelu_dtype_t dtype = Dtype(x_in, "x");
  const at::Tensor x = Readable(x_in);
  at::Tensor y = at::empty_like(x);
  const lrelu_tensor_t xv = View(x, dtype);
  const lrelu_tensor_t yv = View(y, dtype);
  Check(kernels, kernels.forward(&xv, alpha, &yv));
  return y;
}

at::Tensor& ForwardInPlace(at::Tensor& x, double alpha) {
  const lrelu_torch_kernels_t& kernels = Kernels();
  const lrelu_dtype_t dtype = Dtype(x, "x");
  CheckWritable(x, "x");
  const lrelu_tensor_t xv = View(x, dtype);
  Check(kernels, kernels.forward(&xv, alpha, &xv));
  return x;
}

at::Tensor& ForwardOut(const at::Tensor& x_in, double alpha, at::Tensor& y) {
  const lrelu_torch_kernels_t& kernels = Kernels();
  const lrelu_dtype_t dtype = Dtype(x_in, "x");
  TORCH_CHECK_TYPE(y.scalar_type() == x_in.scalar_type(), "lrelu: y has dtype ",
                   DtypeName(y.scalar_type()), " but x has ",
                   DtypeName(x_in.scalar_type()),
                   " (LRELU_STATUS_DTYPE_MISMATCH)");
  Dtype(y, "out");
  TORCH_CHECK_VALUE(y.sizes() == x_in.sizes(), "lrelu: y has shape ", y.sizes(),
                    " but x has ", x_in.sizes(),
                    " (LRELU_STATUS_SHAPE_MISMATCH)");
  CheckWritable(y, "out");
  const at::Tensor x = Readable(x_in);
  const lrelu_tensor_t xv = View(x, dtype);
  const lrelu_tensor_t yv = View(y, dtype);
  Check(kernels, kernels.forward(&xv, alpha, &yv));
  return y;
}

at::Tensor Backward(const at::Tensor& dy_in, const at::Tensor& s_in,
                    double alpha, bool from_output) {
  const lrelu_torch_kernels_t& kernels = Kernels();
  const char* s_name = from_output ? "y" : "x";
  const lrelu_dtype_t dtype = Dtype(dy_in, "dy");
  Dtype(s_in, s_name);
  TORCH_CHECK_TYPE(s_in.scalar_type() == dy_in.scalar_type(), "lrelu: ", s_name,
                   " has dtype ", DtypeName(s_in.scalar_type()), " but dy has ",
                   DtypeName(dy_in.scalar_type()),
                   " (LRELU_STATUS_DTYPE_MISMATCH)");
  TORCH_CHECK_VALUE(s_in.sizes() == dy_in.sizes(), "lrelu: dy has shape ",
                    dy_in.sizes(), ", ", s_name, " ", s_in.sizes(),
                    ": they must be equal (LRELU_STATUS_SHAPE_MISMATCH)");
  const at::Tensor dy = Readable(dy_in);
  const at::Tensor s = Readable(s_in);
  at::Tensor dx = at::empty_like(dy);
  const lrelu_tensor_t dyv = View(dy, dtype);
  const lrelu_tensor_t sv = View(s, dtype);
  const lrelu_tensor_t dxv = View(dx, dtype);
  Check(kernels,
        kernels.backward(&dyv, &sv, alpha,
                         from_output ? LRELU_GRAD_FROM_Y : LRELU_GRAD_FROM_X,
                         &dxv));
  return dx;
}

}  // namespace lrelu_torch
