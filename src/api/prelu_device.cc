// PReLU forward on a device backend: validation and the memory-order walk
// (api/prelu_device.h). x and y go through LeakyReLU's own device checks
// (backend and device availability, dtype, dense views, overlap), so the
// refusals are the same words as LeakyReLU's.
#include "api/prelu_device.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "api/executors.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/problem.h"

namespace lrelu {
namespace {

struct Axis {
  int64_t extent, x_stride, y_stride, alpha_stride;
};

// Element offsets [lo, hi] a tensor's view touches (n > 0).
void ElementRange(const lrelu_tensor_t* t, int64_t* lo, int64_t* hi) {
  *lo = *hi = 0;
  int64_t contiguous = 1;
  for (int32_t i = t->rank - 1; i >= 0; --i) {
    const int64_t stride = t->strides != nullptr ? t->strides[i] : contiguous;
    const int64_t r = stride * (t->shape[i] - 1);
    (r < 0 ? *lo : *hi) += r;
    contiguous *= t->shape[i];
  }
}

int64_t Count(const lrelu_tensor_t* t) {
  // A 0 first: an empty tensor's other extents may multiply past int64 (as
  // the prelu fuzzer found on the cpu backend's side).
  for (int32_t i = 0; i < t->rank; ++i) {
    if (t->shape[i] == 0) return 0;
  }
  int64_t n = 1;
  for (int32_t i = 0; i < t->rank; ++i) n *= t->shape[i];
  return n;
}

int64_t Stride(const lrelu_tensor_t* t, int i, int64_t contiguous) {
  return t->strides != nullptr ? t->strides[i] : contiguous;
}

// Granlund-Montgomery: for 1 <= d < 2^63 and r < 2^63,
// r / d == (umulhi(r, magic) + r) >> shift.
void Magic(int64_t d, uint64_t* magic, uint32_t* shift) {
  uint32_t l = 0;
  while ((uint64_t{1} << l) < static_cast<uint64_t>(d)) ++l;
  const unsigned __int128 num = (static_cast<unsigned __int128>(1) << 64) *
                                ((uint64_t{1} << l) - static_cast<uint64_t>(d));
  *magic = static_cast<uint64_t>(num / static_cast<uint64_t>(d)) + 1;
  *shift = l;
}

lrelu_status_t NotDense(const char* backend) {
  return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
              "backend %s needs every operand to be one dense run; these "
              "views are strided (use the cpu backend, or copy to a "
              "contiguous tensor first)",
              backend);
}

const Backend* DeviceBackend(lrelu_backend_t b) {
  switch (b) {
    case LRELU_BACKEND_CUDA:
      return CudaPreluBackend();
    case LRELU_BACKEND_OPENCL:
      return OpenClPreluBackend();
    default:
      break;
  }
  return nullptr;
}

}  // namespace

bool PreluWantsDevice(const lrelu_options_t* options) {
  return options != nullptr &&
         options->struct_size >=
             offsetof(lrelu_options_t, backend) + sizeof(lrelu_backend_t) &&
         options->backend != LRELU_BACKEND_CPU;
}

lrelu_status_t PlanPreluOnDevice(const lrelu_tensor_t* x,
                                 const lrelu_tensor_t* alpha,
                                 const lrelu_tensor_t* y,
                                 const lrelu_options_t* options, Plan* plan) {
  // x and y exactly as LeakyReLU on that backend checks them.
  size_t ws = 0;
  lrelu_executor_t* e = nullptr;
  lrelu_status_t s =
      lrelu_leaky_relu_get_workspace_size(x, 0.0, y, options, &ws, &e);
  if (s != LRELU_STATUS_OK) return s;
  lrelu_executor_destroy(e);
  const char* name = lrelu_backend_name(options->backend);
  const Backend* backend = DeviceBackend(options->backend);
  if (backend == nullptr) {
    return Fail(LRELU_STATUS_BACKEND_UNAVAILABLE,
                "PReLU has no kernel on backend %s", name);
  }
  if (alpha->dtype != x->dtype) {
    return Fail(LRELU_STATUS_UNSUPPORTED_DTYPE,
                "alpha is %s but x is %s: on backend %s alpha must have x's "
                "dtype (the cpu backend also takes a float64 alpha)",
                lrelu_dtype_name(alpha->dtype), lrelu_dtype_name(x->dtype),
                name);
  }
  auto p = std::make_shared<PreluDeviceProblem>();
  p->dtype = x->dtype;
  p->elem_size = lrelu_dtype_size(x->dtype);
  p->n = Count(x);
  p->alpha = alpha->data;
  // alpha's range even where x is empty: lrelu_executor_bind checks a new
  // alpha pointer as planning checked this one (NULL with elements).
  p->alpha_count = Count(alpha);
  if (p->alpha_count > 0) ElementRange(alpha, &p->alpha_lo, &p->alpha_hi);
  if (p->n > 0) {
    int64_t ylo, yhi;
    ElementRange(y, &ylo, &yhi);
    const auto elem = static_cast<int64_t>(p->elem_size);
    const auto a0 = reinterpret_cast<uintptr_t>(alpha->data);
    const auto y0 = reinterpret_cast<uintptr_t>(y->data);
    const uintptr_t alo = a0 + p->alpha_lo * elem,
                    ahi = a0 + (p->alpha_hi + 1) * elem - 1;
    const uintptr_t ylo_b = y0 + ylo * elem, yhi_b = y0 + (yhi + 1) * elem - 1;
    if (!(ahi < ylo_b || yhi_b < alo)) {
      return Fail(LRELU_STATUS_OVERLAP, "y and alpha share memory");
    }
    // x's axes of extent > 1 with alpha's stride on each (0: broadcast).
    std::vector<Axis> axes;
    int64_t xc = 1, yc = 1;
    const int32_t xr = x->rank, ar = alpha->rank;
    std::vector<int64_t> as(xr, 0);
    int64_t ac = 1;  // alpha's extents divide x's: no overflow
    for (int32_t j = ar - 1; j >= 0; --j) {
      if (alpha->shape[j] > 1) as[xr - ar + j] = Stride(alpha, j, ac);
      ac *= alpha->shape[j];
    }
    for (int32_t i = xr - 1; i >= 0; --i) {
      const int64_t ext = x->shape[i];
      if (ext > 1) {
        axes.push_back({ext, Stride(x, i, xc), Stride(y, i, yc), as[i]});
      }
      xc *= ext;
      yc *= y->shape[i];
    }
    std::stable_sort(axes.begin(), axes.end(),
                     [](const Axis& a, const Axis& b) {
                       return std::llabs(a.x_stride) > std::llabs(b.x_stride);
                     });
    // Memory order (outermost first); a negative stride walks backwards.
    int64_t x_low = 0, expect = 1;
    std::vector<Axis> dims;
    for (size_t k = axes.size(); k-- > 0;) {
      Axis a = axes[k];
      if (a.y_stride != a.x_stride || std::llabs(a.x_stride) != expect) {
        return NotDense(name);
      }
      expect *= a.extent;
      if (a.x_stride < 0) {
        x_low += a.x_stride * (a.extent - 1);
        p->alpha_base += a.alpha_stride * (a.extent - 1);
        a.alpha_stride = -a.alpha_stride;
      }
      axes[k] = a;
    }
    for (const Axis& a : axes) {
      if (!dims.empty() &&
          dims.back().alpha_stride == a.alpha_stride * a.extent) {
        dims.back().extent *= a.extent;
        dims.back().alpha_stride = a.alpha_stride;
        continue;
      }
      dims.push_back(a);
    }
    if (dims.empty()) dims.push_back({1, 1, 1, 0});
    if (dims.size() > kPreluDeviceMaxDims) {
      return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
                  "backend %s: alpha's broadcast pattern needs %zu "
                  "dimensions after merging, more than %d; use the cpu "
                  "backend",
                  name, dims.size(), kPreluDeviceMaxDims);
    }
    p->rank = static_cast<int>(dims.size());
    for (int d = 0; d < p->rank; ++d) {
      p->extent[d] = dims[d].extent;
      p->alpha_stride[d] = dims[d].alpha_stride;
      Magic(dims[d].extent, &p->magic[d], &p->shift[d]);
    }
    p->offset = x_low;
    p->x = static_cast<const char*>(x->data) + x_low * elem;
    p->y = static_cast<char*>(y->data) + x_low * elem;
  }
  plan->backend = backend;
  plan->variant = p->n == 0 ? "empty" : "prelu";
  plan->simd_target = "";
  plan->tasks = 1;
  plan->workspace_size = 0;
  plan->extension = p;
  lrelu_options_t o;
  lrelu_options_init(&o);
  std::memcpy(&o, options,
              std::min<size_t>(options->struct_size, sizeof(lrelu_options_t)));
  return backend->plan(o, plan);
}

bool IsPreluDevicePlan(const Plan& plan) {
  return plan.backend != nullptr && (plan.backend == CudaPreluBackend() ||
                                     plan.backend == OpenClPreluBackend());
}

lrelu_status_t RebindPreluOnDevice(Plan* plan, void* const* data,
                                   size_t count) {
  if (data == nullptr || count != 3) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "lrelu_executor_bind needs 3 data pointers for this PReLU "
                "executor (x, alpha, y), got %zu%s",
                count, data == nullptr ? " (data is NULL)" : "");
  }
  const auto& old =
      *static_cast<const PreluDeviceProblem*>(plan->extension.get());
  auto p = std::make_shared<PreluDeviceProblem>(old);
  const auto elem = static_cast<int64_t>(old.elem_size);
  p->alpha = data[1];
  // alpha: its planned range, whether or not x has elements (an alpha of
  // one element beside an empty x is still checked, as planning checks it).
  Bound ba;
  lrelu_status_t s =
      PlaceBound("alpha", data[1], old.alpha_count, old.alpha_lo * elem,
                 (old.alpha_hi + 1) * elem - 1, &ba);
  if (s != LRELU_STATUS_OK) return s;
  if (old.n > 0) {
    // x and y: one dense run each, from offset.
    const int64_t lo = old.offset * elem, hi = (old.offset + old.n) * elem - 1;
    Bound bx, by;
    if ((s = PlaceBound("x", data[0], old.n, lo, hi, &bx)) != LRELU_STATUS_OK ||
        (s = PlaceBound("y", data[2], old.n, lo, hi, &by)) != LRELU_STATUS_OK ||
        (s = CheckRelation(bx, by, old.x == old.y)) != LRELU_STATUS_OK ||
        (s = CheckRelation(ba, by, false)) != LRELU_STATUS_OK) {
      return s;
    }
  }
  // After the checks: offset is negative where strides are, and moving a
  // NULL pointer (refused above when x has elements) is undefined (the
  // prelu fuzzer, UBSan: "applying non-zero offset to null pointer").
  p->x = static_cast<const char*>(data[0]) + old.offset * elem;
  p->y = static_cast<char*>(data[2]) + old.offset * elem;
  // The backend's own pointer checks (device memory, alignment) on a copy:
  // on failure the executor keeps its previous pointers.
  Plan trial = *plan;
  trial.extension = p;
  if (trial.backend->bind != nullptr &&
      (s = trial.backend->bind(&trial)) != LRELU_STATUS_OK) {
    return s;
  }
  *plan = std::move(trial);
  return LRELU_STATUS_OK;
}

}  // namespace lrelu
