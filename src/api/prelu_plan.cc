// PReLU's validation: tensors, alpha's broadcast, options.
#include "api/prelu_plan.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "api/executors.h"
#include "core/error.h"
#include "core/problem.h"

namespace lrelu::prelu_impl {
namespace {

std::string ShapeString(const DimVector& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

// A tensor without strides, every extent positive, up to 2^40 elements, in
// one pass: fills *v as CheckView does and returns true. Anything else,
// valid or not, returns false and takes CheckTensor, which words any error.
// CheckTensor's general walk cost a one-shot PReLU call ~250 instructions
// per tensor.
bool DenseView(const lrelu_tensor_t* t, View* v) {
  if (t == nullptr || t->strides != nullptr || t->data == nullptr ||
      t->rank < 0 || (t->rank > 0 && t->shape == nullptr)) {
    return false;
  }
  const size_t elem = lrelu_dtype_size(t->dtype);
  if (elem == 0) return false;
  constexpr uint64_t kLimit = uint64_t{1} << 40;
  uint64_t n = 1;
  for (int32_t i = 0; i < t->rank; ++i) {
    const int64_t d = t->shape[i];
    if (d <= 0 || __builtin_mul_overflow(n, static_cast<uint64_t>(d), &n) ||
        n > kLimit) {
      return false;
    }
  }
  const uint64_t bytes = n * elem;
  if (UINTPTR_MAX - reinterpret_cast<uintptr_t>(t->data) < bytes - 1) {
    return false;
  }
  v->data = static_cast<char*>(t->data);
  v->dtype = t->dtype;
  const auto rank = static_cast<size_t>(t->rank);
  v->shape.resize_for_overwrite(rank);
  v->strides.resize_for_overwrite(rank);
  int64_t* shape = v->shape.data();
  int64_t* strides = v->strides.data();
  int64_t contiguous = 1;
  for (size_t i = rank; i-- > 0;) {
    shape[i] = t->shape[i];
    strides[i] = contiguous;
    contiguous *= t->shape[i];
  }
  v->n = static_cast<int64_t>(n);
  v->lo_bytes = 0;
  v->hi_bytes = static_cast<int64_t>(bytes) - 1;
  return true;
}

}  // namespace

lrelu_status_t CheckView(const lrelu_tensor_t* t, const char* name, View* v) {
  if (DenseView(t, v)) return LRELU_STATUS_OK;
  Checked checked;
  const lrelu_status_t s = CheckTensor(t, name, &checked);
  if (s != LRELU_STATUS_OK) return s;
  v->data = static_cast<char*>(t->data);
  v->dtype = t->dtype;
  v->shape.assign(t->shape, t->shape + t->rank);
  v->strides.assign(t->rank, 0);
  v->n = checked.n;
  if (checked.n > 0) {  // CheckTensor sets the range for elements only
    v->lo_bytes = checked.lo_bytes;
    v->hi_bytes = checked.hi_bytes;
  }
  // Explicit strides (C-contiguous when none are given) for every axis.
  // An empty view's other extents may multiply past int64 (the prelu
  // fuzzer: 2^62 times 30, undefined behaviour): its strides then saturate,
  // as they reach no element.
  int64_t contiguous = 1;
  for (int32_t i = t->rank - 1; i >= 0; --i) {
    v->strides[i] = t->strides != nullptr ? t->strides[i] : contiguous;
    if (__builtin_mul_overflow(contiguous, std::max<int64_t>(t->shape[i], 1),
                               &contiguous)) {
      contiguous = std::numeric_limits<int64_t>::max();
    }
  }
  return LRELU_STATUS_OK;
}

lrelu_status_t CheckPlaced(const View& v, const char* name) {
  return CheckPlacement(name, reinterpret_cast<uintptr_t>(v.data), v.n,
                        v.lo_bytes, v.hi_bytes);
}

bool Disjoint(const View& a, const View& b) {
  if (a.n == 0 || b.n == 0) return true;
  const auto a0 = reinterpret_cast<uintptr_t>(a.data);
  const auto b0 = reinterpret_cast<uintptr_t>(b.data);
  return a0 + static_cast<uintptr_t>(a.hi_bytes) <
             b0 + static_cast<uintptr_t>(b.lo_bytes) ||
         b0 + static_cast<uintptr_t>(b.hi_bytes) <
             a0 + static_cast<uintptr_t>(a.lo_bytes);
}

// No element written twice (sorted by |stride|, each steps past the rest).
bool WritesOnce(const View& v) {
  // An empty view writes nothing, and its extents and strides are unbounded
  // (the prelu fuzzer: 16 times 2^62 - 1 below).
  if (v.n == 0) return true;
  std::vector<std::pair<int64_t, int64_t>> dims;  // |stride|, extent
  for (size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] > 1) dims.emplace_back(std::llabs(v.strides[i]), v.shape[i]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;
  for (const auto& [stride, extent] : dims) {
    if (stride <= reach) return false;
    reach += stride * (extent - 1);
  }
  return true;
}

lrelu_status_t CheckSameShape(const View& a, const char* an, const View& b,
                              const char* bn) {
  if (a.dtype != b.dtype) {
    return Fail(LRELU_STATUS_DTYPE_MISMATCH, "%s is %s but %s is %s", an,
                lrelu_dtype_name(a.dtype), bn, lrelu_dtype_name(b.dtype));
  }
  if (a.shape != b.shape) {
    return Fail(LRELU_STATUS_SHAPE_MISMATCH,
                "%s has shape %s but %s has shape %s", an,
                ShapeString(a.shape).c_str(), bn, ShapeString(b.shape).c_str());
  }
  return LRELU_STATUS_OK;
}

// alpha's dtype and its broadcast to x (ONNX unidirectional broadcasting).
lrelu_status_t CheckAlpha(PreluPlan* p) {
  const View& x = p->x;
  const View& a = p->alpha;
  if (a.dtype != x.dtype &&
      !(a.dtype == LRELU_DTYPE_FLOAT64 && x.dtype != LRELU_DTYPE_FLOAT64)) {
    return Fail(LRELU_STATUS_DTYPE_MISMATCH,
                "alpha is %s but x is %s: alpha must have x's dtype (or be "
                "float64 for a float32/float16/bfloat16 x)",
                lrelu_dtype_name(a.dtype), lrelu_dtype_name(x.dtype));
  }
  const size_t xr = x.shape.size(), ar = a.shape.size();
  bool ok = ar <= xr;
  for (size_t j = 0; ok && j < ar; ++j) {
    const int64_t e = a.shape[j];
    ok = e == 1 || e == x.shape[xr - ar + j];
  }
  if (!ok) {
    return Fail(LRELU_STATUS_SHAPE_MISMATCH,
                "alpha has shape %s, which does not broadcast to x's shape %s "
                "(ONNX unidirectional broadcasting: alpha's shape, aligned "
                "to the right of x's, has each extent equal to x's or 1; "
                "per channel is [C,1,1] for NCHW, [C] for NHWC)",
                ShapeString(a.shape).c_str(), ShapeString(x.shape).c_str());
  }
  p->alpha_strides_x.assign(xr, 0);
  p->alpha_axes.clear();
  for (size_t j = 0; j < ar; ++j) {
    if (a.shape[j] > 1) {
      const size_t i = xr - ar + j;
      p->alpha_strides_x[i] = a.strides[j];
      p->alpha_axes.push_back(static_cast<int>(i));
    }
  }
  // Its element count, not the product of its extents above 1: an empty
  // alpha's other extents may multiply past int64 (the prelu fuzzer: 2^62
  // times 5 beside a 0).
  p->alpha_count = a.n;
  return LRELU_STATUS_OK;
}

lrelu_status_t TakeOptions(const lrelu_options_t* given, Plan* checked,
                           PreluPlan* p, const char** target) {
  lrelu_options_t o;
  lrelu_options_init(&o);
  // Device backends were sent to api/prelu_device.cc before this; refuse the
  // rest before any device is probed.
  if (given != nullptr &&
      given->struct_size >=
          offsetof(lrelu_options_t, backend) + sizeof(lrelu_backend_t) &&
      given->backend != LRELU_BACKEND_CPU) {
    return Fail(LRELU_STATUS_BACKEND_UNAVAILABLE,
                "PReLU runs on the CPU backend only (backend %d asked for)",
                static_cast<int>(given->backend));
  }
  // LeakyReLU's planner checks the options (struct_size, pool, variant,
  // target names) and the layouts of checked->problem, as its own entry
  // points do; no executor is made.
  const lrelu_status_t status = PlanOnBackend(given, checked);
  if (status != LRELU_STATUS_OK) return status;
  *target = checked->simd_target;
  if (given != nullptr) {
    std::memcpy(&o, given,
                std::min<size_t>(given->struct_size, sizeof(lrelu_options_t)));
  }
  p->threads = o.threads;
  p->has_pool = o.thread_pool != nullptr;
  if (p->has_pool) p->pool = *o.thread_pool;
  p->has_variant = o.variant != nullptr;
  if (p->has_variant) p->variant = o.variant;
  p->has_target = o.cpu_target != nullptr;
  if (p->has_target) p->cpu_target = o.cpu_target;
  return LRELU_STATUS_OK;
}

// The view of v that starts at element `offset`; the caller sets its shape.
lrelu_tensor_t SubView(const View& v, int64_t offset) {
  lrelu_tensor_t t;
  t.data = v.data + offset * static_cast<int64_t>(lrelu_dtype_size(v.dtype));
  t.dtype = v.dtype;
  t.rank = static_cast<int32_t>(v.shape.size());
  t.shape = nullptr;
  t.strides = v.strides.data();
  return t;
}

uint64_t LoadBits(const char* p, size_t elem) {
  switch (elem) {
    case 2: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      return b;
    }
    case 4: {
      uint32_t b;
      std::memcpy(&b, p, 4);
      return b;
    }
    default: {
      uint64_t b;
      std::memcpy(&b, p, 8);
      return b;
    }
  }
}

void StoreBits(char* p, size_t elem, uint64_t bits) {
  if (elem == 2) {
    const auto b = static_cast<uint16_t>(bits);
    std::memcpy(p, &b, 2);
  } else if (elem == 4) {
    const auto b = static_cast<uint32_t>(bits);
    std::memcpy(p, &b, 4);
  } else {
    std::memcpy(p, &bits, 8);
  }
}

namespace {
template <class T>
void StoreAs(char* p, int64_t step, const uint64_t* bits, size_t count) {
  const auto bytes = step * static_cast<int64_t>(sizeof(T));
  for (size_t k = 0; k < count; ++k) {
    const auto b = static_cast<T>(bits[k]);
    std::memcpy(p + static_cast<int64_t>(k) * bytes, &b, sizeof(T));
  }
}
}  // namespace

void StoreStrided(char* p, size_t elem, int64_t step, const uint64_t* bits,
                  size_t count) {
  if (elem == 2) {
    StoreAs<uint16_t>(p, step, bits, count);
  } else if (elem == 4) {
    StoreAs<uint32_t>(p, step, bits, count);
  } else {
    StoreAs<uint64_t>(p, step, bits, count);
  }
}

// The per-view calls' options.
lrelu_options_t ViewOptions(const PreluPlan& p,
                            const lrelu_thread_pool_t* pool) {
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.threads = p.threads;
  o.thread_pool = pool != nullptr ? pool : (p.has_pool ? &p.pool : nullptr);
  o.variant = p.has_variant ? p.variant.c_str() : nullptr;
  o.cpu_target = p.has_target ? p.cpu_target.c_str() : nullptr;
  return o;
}

// x's shape with the alpha axes set to 1: the shape of every view.
std::vector<int64_t> ViewShape(const PreluPlan& p) {
  std::vector<int64_t> shape(p.x.shape.begin(), p.x.shape.end());
  for (int axis : p.alpha_axes) shape[axis] = 1;
  return shape;
}

}  // namespace lrelu::prelu_impl
