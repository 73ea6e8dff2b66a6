// PReLU (contract ai.onnx.PRelu v1): alpha is a tensor broadcast to x.
// Validation and planning here; execution splits x into one view per alpha
// element (the axes alpha varies along fixed, the broadcast axes free) and
// runs LeakyReLU's planned kernels on each view with that element's alpha,
// so every element follows LeakyReLU's exact rule on every target, thread
// count and layout. dalpha is an exact sum (reference/exact_sum.h) per alpha
// element, rounded once.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/executor.h"
#include "core/backend.h"
#include "core/error.h"
#include "cpu/float_env.h"
#include "cpu/kernels.h"
#include "cpu/prelu_rows.h"
#include "cpu/thread_pool.h"
#include "lrelu/lrelu.h"
#include "reference/exact_sum.h"
#include "reference/reference.h"

namespace lrelu {
namespace {

// A tensor as the plan keeps it: shape and explicit strides copied.
struct View {
  char* data = nullptr;
  lrelu_dtype_t dtype = LRELU_DTYPE_FLOAT32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // elements
  int64_t n = 0;
};

// Dimensions of extent > 1 of a tensor with fewer than 2^63 elements.
constexpr int kMaxRank = 64;

struct PreluPlan {
  bool backward = false;
  lrelu_dtype_t dtype = LRELU_DTYPE_FLOAT32;  // x's
  View x, y, dy, dx, alpha, dalpha;           // y forward; dy, dx backward
  bool has_dx = false, has_dalpha = false;
  // alpha's strides aligned to x's axes (0 where alpha broadcasts).
  std::vector<int64_t> alpha_strides_x;
  std::vector<int> alpha_axes;  // axes of x where alpha's extent is > 1
  int64_t alpha_count = 1;
  // Options for the per-view LeakyReLU calls.
  size_t threads = 0;
  bool has_pool = false;
  lrelu_thread_pool_t pool = {};
  bool has_variant = false, has_target = false;
  std::string variant, cpu_target;
};

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

// Structural checks of one tensor; fills *v with explicit strides.
lrelu_status_t CheckView(const lrelu_tensor_t* t, const char* name, View* v) {
  if (t == nullptr) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT, "%s is NULL", name);
  }
  const size_t elem = lrelu_dtype_size(t->dtype);
  if (elem == 0) {
    return Fail(LRELU_STATUS_UNSUPPORTED_DTYPE,
                "%s has unsupported dtype %d (supported: float32, float16, "
                "bfloat16, float64)",
                name, static_cast<int>(t->dtype));
  }
  if (t->rank < 0 || t->rank > 1024) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT, "%s has rank %d", name,
                static_cast<int>(t->rank));
  }
  if (t->rank > 0 && t->shape == nullptr) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "%s.shape is NULL but its rank is %d", name, t->rank);
  }
  v->data = static_cast<char*>(t->data);
  v->dtype = t->dtype;
  v->shape.assign(t->shape, t->shape + t->rank);
  v->strides.assign(t->rank, 0);
  v->n = 1;
  for (int32_t i = t->rank - 1; i >= 0; --i) {
    const int64_t d = t->shape[i];
    if (d < 0) {
      return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                  "%s.shape[%d] is negative (%lld)", name, i,
                  static_cast<long long>(d));
    }
    v->strides[i] = t->strides != nullptr ? t->strides[i] : v->n;
    if (v->n != 0 && __builtin_mul_overflow(v->n, d, &v->n)) {
      return Fail(LRELU_STATUS_SIZE_OVERFLOW,
                  "%s has shape %s: its element count overflows 64 bits", name,
                  ShapeString(v->shape).c_str());
    }
    if (d == 0) v->n = 0;
  }
  if (v->n > 0 && t->data == nullptr) {
    return Fail(LRELU_STATUS_NULL_DATA,
                "%s.data is NULL but %s has %lld elements", name, name,
                static_cast<long long>(v->n));
  }
  if (v->n > 0) {
    int64_t reach = 0;
    for (int32_t i = 0; i < t->rank; ++i) {
      int64_t step, r;
      if (__builtin_mul_overflow(std::llabs(v->strides[i]),
                                 static_cast<int64_t>(elem), &step) ||
          __builtin_mul_overflow(step, v->shape[i] - 1, &r) ||
          __builtin_add_overflow(reach, r, &reach)) {
        return Fail(LRELU_STATUS_SIZE_OVERFLOW,
                    "%s's strides reach beyond 64-bit byte offsets", name);
      }
    }
  }
  return LRELU_STATUS_OK;
}

// Byte range [lo, hi] a view touches (n > 0).
void ByteRange(const View& v, uintptr_t* lo, uintptr_t* hi) {
  const auto elem = static_cast<int64_t>(lrelu_dtype_size(v.dtype));
  int64_t l = 0, h = 0;
  for (size_t i = 0; i < v.shape.size(); ++i) {
    const int64_t r = v.strides[i] * (v.shape[i] - 1) * elem;
    (r < 0 ? l : h) += r;
  }
  const auto base = reinterpret_cast<uintptr_t>(v.data);
  *lo = base + static_cast<uintptr_t>(l);
  *hi = base + static_cast<uintptr_t>(h + elem - 1);
}

bool Disjoint(const View& a, const View& b) {
  if (a.n == 0 || b.n == 0) return true;
  uintptr_t alo, ahi, blo, bhi;
  ByteRange(a, &alo, &ahi);
  ByteRange(b, &blo, &bhi);
  return ahi < blo || bhi < alo;
}

// No element written twice (sorted by |stride|, each steps past the rest).
bool WritesOnce(const View& v) {
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
  p->alpha_count = 1;
  for (size_t j = 0; j < ar; ++j) {
    if (a.shape[j] > 1) {
      const size_t i = xr - ar + j;
      p->alpha_strides_x[i] = a.strides[j];
      p->alpha_axes.push_back(static_cast<int>(i));
      p->alpha_count *= a.shape[j];
    }
  }
  return LRELU_STATUS_OK;
}

// Validates the options (and x, y or dy, x, dx through LeakyReLU's own
// checks), and copies what the per-view calls need.
lrelu_status_t TakeOptions(const lrelu_options_t* given, PreluPlan* p,
                           const char** target) {
  lrelu_options_t o;
  lrelu_options_init(&o);
  // PReLU has no device kernels yet: refuse before any device is probed.
  if (given != nullptr &&
      given->struct_size >=
          offsetof(lrelu_options_t, backend) + sizeof(lrelu_backend_t) &&
      given->backend != LRELU_BACKEND_CPU) {
    return Fail(LRELU_STATUS_BACKEND_UNAVAILABLE,
                "PReLU runs on the CPU backend only (backend %d asked for)",
                static_cast<int>(given->backend));
  }
  // A one-element dummy problem validates the options exactly as LeakyReLU
  // does (struct_size, backend, pool, variant, target names).
  float dummy_x = 0, dummy_y = 0;
  lrelu_tensor_t tx = {&dummy_x, LRELU_DTYPE_FLOAT32, 0, nullptr, nullptr};
  lrelu_tensor_t ty = {&dummy_y, LRELU_DTYPE_FLOAT32, 0, nullptr, nullptr};
  size_t ws = 0;
  lrelu_executor_t* e = nullptr;
  lrelu_status_t status =
      lrelu_leaky_relu_get_workspace_size(&tx, 0.0, &ty, given, &ws, &e);
  if (status != LRELU_STATUS_OK) return status;
  *target = lrelu_executor_cpu_target(e);
  lrelu_executor_destroy(e);
  if (given != nullptr) {
    std::memcpy(&o, given,
                std::min<size_t>(given->struct_size, sizeof(lrelu_options_t)));
  }
  if (o.backend != LRELU_BACKEND_CPU) {
    return Fail(LRELU_STATUS_BACKEND_UNAVAILABLE,
                "PReLU runs on the CPU backend only (backend %s asked for)",
                lrelu_backend_name(o.backend));
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

// Below this many bytes per task another thread costs more than it saves
// (LeakyReLU's measured threshold, docs/performance.md).
constexpr int64_t kMinTaskBytes = int64_t{256} << 10;

// Calls fn(k, offsets...) for every alpha element k in order, with the
// element offset of its view start in each of the listed views.
template <typename Fn>
void ForEachAlpha(const PreluPlan& p, const std::vector<const View*>& views,
                  Fn fn) {
  const size_t na = p.alpha_axes.size();
  std::vector<int64_t> idx(na, 0);
  std::vector<int64_t> off(views.size() + 1, 0);  // last: alpha
  for (int64_t k = 0; k < p.alpha_count; ++k) {
    fn(k, off);
    // Odometer over alpha_axes, innermost last.
    for (size_t j = na; j-- > 0;) {
      const int axis = p.alpha_axes[j];
      auto step = [&](int64_t count) {
        for (size_t v = 0; v < views.size(); ++v) {
          off[v] += count * views[v]->strides[axis];
        }
        off[views.size()] += count * p.alpha_strides_x[axis];
      };
      if (++idx[j] < p.x.shape[axis]) {
        step(1);
        break;
      }
      step(-(p.x.shape[axis] - 1));
      idx[j] = 0;
    }
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
  std::vector<int64_t> shape = p.x.shape;
  for (int axis : p.alpha_axes) shape[axis] = 1;
  return shape;
}

// The value of one element of a 32/16-bit dtype as a float32 (exact).
float ValueF32(lrelu_dtype_t dtype, const char* p) {
  uint16_t h;
  switch (dtype) {
    case LRELU_DTYPE_FLOAT16:
      std::memcpy(&h, p, 2);
      return reference::HalfToFloat(h);
    case LRELU_DTYPE_BFLOAT16:
      std::memcpy(&h, p, 2);
      return reference::BFloat16ToFloat(h);
    default: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
  }
}

// Adds x * dy where x < 0 to the sums, for one element.
inline void AddTerm(lrelu_dtype_t dtype, const reference::Format& f,
                    size_t elem, const char* xp, const char* dyp,
                    reference::ExactSum* sum, reference::BinnedSum* bins) {
  if (dtype != LRELU_DTYPE_FLOAT64) {
    // The product of two float32 values is exact in float64.
    const float x = ValueF32(dtype, xp);
    if (!(x < 0)) return;
    const double product =
        static_cast<double>(x) * static_cast<double>(ValueF32(dtype, dyp));
    uint64_t bits;
    std::memcpy(&bits, &product, 8);
    if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) {
      sum->AddSpecial(product);
    } else {
      bins->Add(bits);
    }
    return;
  }
  // float64: the product needs 106 bits; the wide accumulator takes it.
  const reference::Decoded xd = reference::Decode(f, LoadBits(xp, elem));
  if (xd.negative && xd.kind != reference::Decoded::kNaN &&
      xd.kind != reference::Decoded::kZero) {
    sum->AddProduct(xd, reference::Decode(f, LoadBits(dyp, elem)));
  }
}

// dalpha for alpha elements [begin, end): exact sums over each view.
void SumRange(const PreluPlan& p, const std::vector<int64_t>& x_offsets,
              const std::vector<int64_t>& dy_offsets, int64_t begin,
              int64_t end, uint64_t* out) {
  cpu::DefaultFloatEnv env;  // no DAZ while widening subnormals
  // The view's dimensions of extent > 1; the last one is the inner loop.
  std::vector<int64_t> extent, xs, dys;
  const std::vector<int64_t> shape = ViewShape(p);
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] > 1) {
      extent.push_back(shape[k]);
      xs.push_back(p.x.strides[k]);
      dys.push_back(p.dy.strides[k]);
    }
  }
  if (extent.empty()) {
    extent.push_back(1);
    xs.push_back(0);
    dys.push_back(0);
  }
  const size_t outer = extent.size() - 1;
  const int64_t inner = extent[outer];
  const size_t elem = lrelu_dtype_size(p.dtype);
  const auto e = static_cast<int64_t>(elem);
  const int64_t xi = xs[outer] * e, dyi = dys[outer] * e;
  const reference::Format f = reference::FormatOf(p.dtype);
  const reference::Format fa = reference::FormatOf(p.dalpha.dtype);
  bool empty = false;
  for (int64_t d : shape) empty = empty || d == 0;
  int64_t rows = 1;
  for (size_t k = 0; k < outer; ++k) rows *= extent[k];
  std::vector<int64_t> idx(outer, 0);
  for (int64_t k = begin; k < end; ++k) {
    reference::ExactSum sum;
    reference::BinnedSum bins;
    if (!empty) {
      const char* xp = p.x.data + x_offsets[k] * e;
      const char* dyp = p.dy.data + dy_offsets[k] * e;
      std::fill(idx.begin(), idx.end(), 0);
      int64_t xo = 0, dyo = 0;  // bytes
      for (int64_t r = 0; r < rows; ++r) {
        const char* xr = xp + xo;
        const char* dyr = dyp + dyo;
        for (int64_t i = 0; i < inner; ++i) {
          AddTerm(p.dtype, f, elem, xr + i * xi, dyr + i * dyi, &sum, &bins);
        }
        for (size_t j = outer; j-- > 0;) {
          if (++idx[j] < extent[j]) {
            xo += xs[j] * e;
            dyo += dys[j] * e;
            break;
          }
          xo -= (extent[j] - 1) * xs[j] * e;
          dyo -= (extent[j] - 1) * dys[j] * e;
          idx[j] = 0;
        }
      }
    }
    bins.FlushInto(&sum);
    out[k] = sum.Round(fa);
  }
}

// dalpha when alpha varies along x's last axis only (NHWC per channel):
// rows in memory order, one sum per channel; each task sums its rows, and
// the exact partial sums are merged (order-independent).
struct RowSumJob {
  const PreluPlan* p;
  int64_t rows, per_task;
  std::vector<std::vector<reference::ExactSum>>* partial;  // [task][channel]
};

void SumRows(const RowSumJob& job, size_t task) {
  const PreluPlan& p = *job.p;
  const int64_t begin = static_cast<int64_t>(task) * job.per_task;
  const int64_t end = std::min(begin + job.per_task, job.rows);
  if (begin >= end) return;
  cpu::DefaultFloatEnv env;  // no DAZ while widening subnormals
  std::vector<reference::ExactSum>& sums = (*job.partial)[task];
  const size_t rank = p.x.shape.size();
  const int64_t channels = p.x.shape[rank - 1];
  std::vector<reference::BinnedSum> bins(static_cast<size_t>(channels));
  const size_t elem = lrelu_dtype_size(p.dtype);
  const auto e = static_cast<int64_t>(elem);
  const reference::Format f = reference::FormatOf(p.dtype);
  std::vector<int64_t> idx(rank - 1, 0);
  int64_t xo = 0, dyo = 0, r = begin;
  for (size_t k = rank - 1; k-- > 0;) {
    idx[k] = r % p.x.shape[k];
    r /= p.x.shape[k];
    xo += idx[k] * p.x.strides[k];
    dyo += idx[k] * p.dy.strides[k];
  }
  const int64_t xs = p.x.strides[rank - 1] * e,
                dys = p.dy.strides[rank - 1] * e;
  for (int64_t row = begin; row < end; ++row) {
    const char* xr = p.x.data + xo * e;
    const char* dyr = p.dy.data + dyo * e;
    for (int64_t c = 0; c < channels; ++c) {
      AddTerm(p.dtype, f, elem, xr + c * xs, dyr + c * dys,
              &sums[static_cast<size_t>(c)], &bins[static_cast<size_t>(c)]);
    }
    if (bins[0].count() > (uint64_t{1} << 40)) {
      for (int64_t c = 0; c < channels; ++c) {
        bins[static_cast<size_t>(c)].FlushInto(&sums[static_cast<size_t>(c)]);
      }
    }
    for (size_t k = rank - 1; k-- > 0;) {
      if (++idx[k] < p.x.shape[k]) {
        xo += p.x.strides[k];
        dyo += p.dy.strides[k];
        break;
      }
      xo -= (p.x.shape[k] - 1) * p.x.strides[k];
      dyo -= (p.x.shape[k] - 1) * p.dy.strides[k];
      idx[k] = 0;
    }
  }
  for (int64_t c = 0; c < channels; ++c) {
    bins[static_cast<size_t>(c)].FlushInto(&sums[static_cast<size_t>(c)]);
  }
}

// Fills dalpha (alpha's element order) for the last-axis-only case.
void SumByRows(const PreluPlan& p, const lrelu_thread_pool_t* pool,
               uint64_t* out) {
  const size_t rank = p.x.shape.size();
  const int64_t channels = p.x.shape[rank - 1];
  RowSumJob job{&p, p.x.n / channels, 0, nullptr};
  auto tasks =
      static_cast<int64_t>(p.threads != 0 ? p.threads : pool->concurrency);
  const int64_t bytes =
      p.x.n * static_cast<int64_t>(lrelu_dtype_size(p.dtype)) * 2;
  tasks =
      std::min({tasks, job.rows, std::max<int64_t>(1, bytes / kMinTaskBytes)});
  std::vector<std::vector<reference::ExactSum>> partial(
      static_cast<size_t>(tasks),
      std::vector<reference::ExactSum>(static_cast<size_t>(channels)));
  job.partial = &partial;
  job.per_task = (job.rows + tasks - 1) / tasks;
  if (tasks == 1) {
    SumRows(job, 0);
  } else {
    pool->parallel_for(
        pool->pool_context,
        [](void* ctx, size_t i) {
          SumRows(*static_cast<const RowSumJob*>(ctx), i);
        },
        &job, static_cast<size_t>(tasks));
  }
  const reference::Format fa = reference::FormatOf(p.dalpha.dtype);
  for (int64_t c = 0; c < channels; ++c) {
    for (size_t t = 1; t < partial.size(); ++t) {
      partial[0][static_cast<size_t>(c)].Merge(
          partial[t][static_cast<size_t>(c)]);
    }
    out[c] = partial[0][static_cast<size_t>(c)].Round(fa);
  }
}

struct SumTask {
  const PreluPlan* p;
  const std::vector<int64_t>* x_offsets;
  const std::vector<int64_t>* dy_offsets;
  uint64_t* out;
  int64_t per_task;
};

// Row mode: x, the other input and the output walked as rows of their
// merged last dimension (dimensions of extent 1 dropped, neighbours merged
// where every operand, alpha included, steps over the inner one exactly).
// A row with one alpha (alpha constant along it: NCHW per channel) runs
// LeakyReLU's contiguous kernel of the chosen target with that alpha; a row
// along which alpha varies (NHWC per channel, alpha as large as x) runs the
// per-element-alpha kernel, alpha's row rounded to the compute type once per
// distinct row. Rows split over the pool.
struct RowLayout {
  int rank = 0;  // merged dimensions; the last is the row
  int64_t extent[kMaxRank];
  int64_t xs[kMaxRank], vs[kMaxRank], os[kMaxRank], as[kMaxRank];
};

RowLayout MergedLayout(const PreluPlan& p, const View& v, const View& out) {
  RowLayout l;
  for (size_t k = 0; k < p.x.shape.size(); ++k) {
    if (p.x.shape[k] == 1) continue;
    const int64_t e = p.x.shape[k];
    if (l.rank > 0) {
      const int m = l.rank - 1;
      if (l.xs[m] == p.x.strides[k] * e && l.vs[m] == v.strides[k] * e &&
          l.os[m] == out.strides[k] * e &&
          l.as[m] == p.alpha_strides_x[k] * e) {
        l.extent[m] *= e;
        l.xs[m] = p.x.strides[k];
        l.vs[m] = v.strides[k];
        l.os[m] = out.strides[k];
        l.as[m] = p.alpha_strides_x[k];
        continue;
      }
    }
    l.extent[l.rank] = e;
    l.xs[l.rank] = p.x.strides[k];
    l.vs[l.rank] = v.strides[k];
    l.os[l.rank] = out.strides[k];
    l.as[l.rank] = p.alpha_strides_x[k];
    ++l.rank;
  }
  if (l.rank == 0) {  // one element
    l.rank = 1;
    l.extent[0] = 1;
    l.xs[0] = l.vs[0] = l.os[0] = 1;
    l.as[0] = 0;
  }
  return l;
}

struct RowJob {
  const PreluPlan* p;
  const View* v;    // x (forward) or dy
  const View* out;  // y or dx
  RowLayout layout;
  cpu::PreluRowKernel kernel;      // alpha varies along the row
  const cpu::KernelTable* scalar;  // alpha constant along the row
  bool reference;                  // variant "reference": the oracle
  int64_t rows;
  int64_t per_task;
};

void RunRows(const RowJob& job, int64_t begin, int64_t end) {
  const PreluPlan& p = *job.p;
  const RowLayout& l = job.layout;
  cpu::DefaultFloatEnv env;
  const int last = l.rank - 1;
  const int64_t length = l.extent[last];
  const size_t elem = lrelu_dtype_size(p.dtype);
  const auto e = static_cast<int64_t>(elem);
  const size_t alpha_elem = lrelu_dtype_size(p.alpha.dtype);
  const reference::Format af = reference::FormatOf(p.alpha.dtype);
  const bool wide = p.dtype == LRELU_DTYPE_FLOAT64;
  const bool per_element = l.as[last] != 0;
  const size_t buffered = per_element ? static_cast<size_t>(length) : 1;
  std::vector<float> a32(buffered);
  std::vector<double> a64(buffered);
  std::vector<int64_t> idx(static_cast<size_t>(last), 0);
  int64_t xo = 0, vo = 0, oo = 0, ao = 0;
  int64_t r = begin;
  for (int k = last; k-- > 0;) {
    idx[k] = r % l.extent[k];
    r /= l.extent[k];
    xo += idx[k] * l.xs[k];
    vo += idx[k] * l.vs[k];
    oo += idx[k] * l.os[k];
    ao += idx[k] * l.as[k];
  }
  const int64_t xs = l.xs[last], vs = l.vs[last], os = l.os[last],
                as = l.as[last];
  int64_t loaded = -1;  // alpha offset of the row in a32/a64
  for (int64_t row = begin; row < end; ++row) {
    if (ao != loaded) {
      for (size_t i = 0; i < buffered; ++i) {
        const double a = reference::ToDouble(
            af, LoadBits(p.alpha.data + (ao + static_cast<int64_t>(i) * as) *
                                            static_cast<int64_t>(alpha_elem),
                         alpha_elem));
        a64[i] = a;
        a32[i] = static_cast<float>(a);
      }
      loaded = ao;
    }
    char* xp = p.x.data + xo * e;
    char* vp = job.v->data + vo * e;
    char* op = job.out->data + oo * e;
    const bool dense = xs == 1 && vs == 1 && os == 1 &&
                       reinterpret_cast<uintptr_t>(xp) % elem == 0 &&
                       reinterpret_cast<uintptr_t>(vp) % elem == 0 &&
                       reinterpret_cast<uintptr_t>(op) % elem == 0;
    if (dense && !job.reference && per_element) {
      job.kernel({vp, xp, op, wide ? nullptr : a32.data(),
                  wide ? a64.data() : nullptr, static_cast<size_t>(length)});
    } else if (dense && !job.reference) {
      // finite_alpha kernels need alpha (as float32) finite and nonzero.
      const float a = a32[0];
      const bool finite =
          wide ? (a64[0] - a64[0] == 0 && a64[0] != 0) : (a - a == 0 && a != 0);
      const int d = cpu::DTypeIndex(p.dtype);
      const cpu::KernelFn k = p.backward ? job.scalar->backward[d][0][finite]
                                         : job.scalar->forward[d][0][finite];
      k({vp, xp, op, static_cast<size_t>(length), a, a64[0], p.dtype});
    } else {
      for (int64_t i = 0; i < length; ++i) {
        reference::Apply(p.dtype, vp + i * vs * e, xp + i * xs * e,
                         op + i * os * e, 1, a64[per_element ? i : 0]);
      }
    }
    for (int k = last; k-- > 0;) {
      if (++idx[k] < l.extent[k]) {
        xo += l.xs[k];
        vo += l.vs[k];
        oo += l.os[k];
        ao += l.as[k];
        break;
      }
      const int64_t back = l.extent[k] - 1;
      xo -= back * l.xs[k];
      vo -= back * l.vs[k];
      oo -= back * l.os[k];
      ao -= back * l.as[k];
      idx[k] = 0;
    }
  }
}

// True when the merged rows are unit-stride in x, the other input and the
// output (the kernels' case); otherwise the per-view LeakyReLU calls, whose
// strided variant handles any layout, serve better.
bool RowsAreDense(const RowLayout& l) {
  const int last = l.rank - 1;
  return l.xs[last] == 1 && l.vs[last] == 1 && l.os[last] == 1;
}

lrelu_status_t ExecuteRows(const PreluPlan& p, const View& v, const View& out,
                           const RowLayout& layout, const lrelu_options_t& o) {
  const std::vector<cpu::Target>& targets = cpu::RunnableTargets();
  const cpu::Target* target = &targets[0];
  for (const cpu::Target& t : targets) {
    if (p.has_target && p.cpu_target == t.name) target = &t;
  }
  RowJob job{&p, &v, &out, layout, nullptr, nullptr, false, 0, 0};
  job.reference = p.has_variant && p.variant == "reference";
  job.kernel =
      cpu::PreluRowsFor(target->bit).row[cpu::DTypeIndex(p.dtype)][p.backward];
  job.scalar = &cpu::KernelsFor(target->bit);
  job.rows = p.x.n / layout.extent[layout.rank - 1];
  const lrelu_thread_pool_t* pool =
      o.thread_pool != nullptr ? o.thread_pool : &cpu::OwnThreadPool();
  const auto bytes = p.x.n * static_cast<int64_t>(lrelu_dtype_size(p.dtype)) *
                     (p.backward ? 3 : 2);
  auto tasks =
      static_cast<int64_t>(p.threads != 0 ? p.threads : pool->concurrency);
  tasks =
      std::min({tasks, job.rows, std::max<int64_t>(1, bytes / kMinTaskBytes)});
  if (tasks <= 1) {
    RunRows(job, 0, job.rows);
    return LRELU_STATUS_OK;
  }
  job.per_task = (job.rows + tasks - 1) / tasks;
  pool->parallel_for(
      pool->pool_context,
      [](void* ctx, size_t i) {
        const auto& j = *static_cast<const RowJob*>(ctx);
        const int64_t b = static_cast<int64_t>(i) * j.per_task;
        const int64_t e = std::min(b + j.per_task, j.rows);
        if (b < e) RunRows(j, b, e);
      },
      &job, static_cast<size_t>(tasks));
  return LRELU_STATUS_OK;
}

lrelu_status_t ExecutePrelu(const Plan& plan, void*, size_t,
                            const lrelu_thread_pool_t* pool) {
  const auto& p = *static_cast<const PreluPlan*>(plan.extension.get());
  if (p.alpha.n == 0) return LRELU_STATUS_OK;  // then x is empty too
  // Read every alpha value before anything is written.
  const size_t alpha_elem = lrelu_dtype_size(p.alpha.dtype);
  const reference::Format af = reference::FormatOf(p.alpha.dtype);
  std::vector<double> alpha(static_cast<size_t>(p.alpha_count));
  std::vector<int64_t> x_off(alpha.size()), o_off(alpha.size()),
      v_off(alpha.size());
  const View& out = p.backward ? p.dx : p.y;
  const View& v = p.backward ? p.dy : p.x;
  const bool has_out = !p.backward || p.has_dx;
  std::vector<const View*> views = {&p.x, &v};
  if (has_out) views.push_back(&out);
  const size_t rank = p.x.shape.size();
  const lrelu_options_t o = ViewOptions(p, pool);
  const RowLayout layout = MergedLayout(p, v, has_out ? out : v);
  // Rows unless they are strided, or alpha is constant along them and a
  // variant other than the reference is forced (LeakyReLU's own plans serve
  // those, one view per alpha element).
  const bool forced =
      p.has_variant && p.variant != "auto" && p.variant != "reference";
  const bool row_mode = has_out && p.x.n > 0 && RowsAreDense(layout) &&
                        !(forced && layout.as[layout.rank - 1] == 0);
  if (row_mode && !(p.backward && p.has_dalpha)) {
    return ExecuteRows(p, v, out, layout, o);
  }
  ForEachAlpha(p, views, [&](int64_t k, const std::vector<int64_t>& off) {
    alpha[k] = reference::ToDouble(
        af,
        LoadBits(p.alpha.data + off.back() * static_cast<int64_t>(alpha_elem),
                 alpha_elem));
    x_off[k] = off[0];
    v_off[k] = off[1];
    o_off[k] = has_out ? off[2] : 0;
  });

  // dalpha first: it reads dy, which dx may overwrite (in place).
  std::vector<uint64_t> dalpha;
  if (p.backward && p.has_dalpha) {
    dalpha.resize(alpha.size());
    const lrelu_thread_pool_t* run_pool =
        o.thread_pool != nullptr ? o.thread_pool : &cpu::OwnThreadPool();
    size_t tasks = p.threads != 0 ? p.threads : run_pool->concurrency;
    const int64_t bytes =
        p.x.n * static_cast<int64_t>(lrelu_dtype_size(p.dtype)) * 2;
    tasks = std::min<size_t>(
        {tasks, alpha.size(),
         static_cast<size_t>(std::max<int64_t>(1, bytes / kMinTaskBytes))});
    if (p.alpha_axes.size() == 1 &&
        p.alpha_axes[0] == static_cast<int>(rank) - 1 && p.x.n > 0) {
      SumByRows(p, run_pool, dalpha.data());
    } else if (tasks <= 1) {
      SumRange(p, x_off, v_off, 0, p.alpha_count, dalpha.data());
    } else {
      SumTask t{&p, &x_off, &v_off, dalpha.data(),
                (p.alpha_count + static_cast<int64_t>(tasks) - 1) /
                    static_cast<int64_t>(tasks)};
      run_pool->parallel_for(
          run_pool->pool_context,
          [](void* ctx, size_t i) {
            const auto& task = *static_cast<SumTask*>(ctx);
            const int64_t b = static_cast<int64_t>(i) * task.per_task;
            const int64_t e = std::min(b + task.per_task, task.p->alpha_count);
            if (b < e) {
              SumRange(*task.p, *task.x_offsets, *task.dy_offsets, b, e,
                       task.out);
            }
          },
          &t, tasks);
    }
  }

  if (row_mode) {
    const lrelu_status_t status = ExecuteRows(p, v, out, layout, o);
    if (status != LRELU_STATUS_OK) return status;
  } else if (has_out && p.x.n > 0) {
    const std::vector<int64_t> shape = ViewShape(p);
    for (size_t k = 0; k < alpha.size(); ++k) {
      lrelu_tensor_t tx = SubView(p.x, x_off[k]);
      lrelu_tensor_t tv = SubView(v, v_off[k]);
      lrelu_tensor_t to = SubView(out, o_off[k]);
      tx.shape = tv.shape = to.shape = shape.data();
      const lrelu_status_t status =
          p.backward ? lrelu_leaky_relu_backward(&tv, &tx, alpha[k],
                                                 LRELU_GRAD_FROM_X, &to, &o)
                     : lrelu_leaky_relu(&tx, alpha[k], &to, &o);
      if (status != LRELU_STATUS_OK) return status;
    }
  }

  if (!dalpha.empty()) {
    const size_t elem = lrelu_dtype_size(p.dalpha.dtype);
    // dalpha's offsets: its own strides over alpha's axes.
    const size_t ar = p.dalpha.shape.size();
    std::vector<int64_t> idx(ar, 0);
    int64_t off = 0;
    for (size_t k = 0; k < dalpha.size(); ++k) {
      StoreBits(p.dalpha.data + off * static_cast<int64_t>(elem), elem,
                dalpha[k]);
      for (size_t j = ar; j-- > 0;) {
        if (++idx[j] < p.dalpha.shape[j]) {
          off += p.dalpha.strides[j];
          break;
        }
        off -= (p.dalpha.shape[j] - 1) * p.dalpha.strides[j];
        idx[j] = 0;
      }
    }
  }
  return LRELU_STATUS_OK;
}

lrelu_status_t PlanUnused(const lrelu_options_t&, Plan*) {
  return Fail(LRELU_STATUS_INTERNAL, "PReLU plans are built in api/prelu.cc");
}

const Backend kPreluBackend = {"cpu", PlanUnused, ExecutePrelu};

lrelu_status_t Finish(std::shared_ptr<PreluPlan> p, const char* target,
                      Plan* plan) {
  plan->backend = &kPreluBackend;
  plan->variant = p->alpha.n == 0 ? "empty" : "prelu";
  plan->simd_target = target != nullptr ? target : "";
  plan->device = CpuBackend().device_name(0);
  plan->tasks = 1;
  plan->workspace_size = 0;
  plan->has_pool = p->has_pool;
  if (p->has_pool) plan->pool = p->pool;
  plan->extension = std::move(p);
  return LRELU_STATUS_OK;
}

lrelu_status_t BuildForward(const lrelu_tensor_t* x,
                            const lrelu_tensor_t* alpha,
                            const lrelu_tensor_t* y,
                            const lrelu_options_t* options, Plan* plan) {
  auto p = std::make_shared<PreluPlan>();
  lrelu_status_t s;
  if ((s = CheckView(x, "x", &p->x)) != LRELU_STATUS_OK) return s;
  if ((s = CheckView(alpha, "alpha", &p->alpha)) != LRELU_STATUS_OK) return s;
  if ((s = CheckView(y, "y", &p->y)) != LRELU_STATUS_OK) return s;
  if ((s = CheckSameShape(p->x, "x", p->y, "y")) != LRELU_STATUS_OK) return s;
  if ((s = CheckAlpha(p.get())) != LRELU_STATUS_OK) return s;
  const char* target = nullptr;
  if ((s = TakeOptions(options, p.get(), &target)) != LRELU_STATUS_OK) return s;
  // x and y: LeakyReLU's checks (overlap, in place, strides).
  size_t ws;
  lrelu_executor_t* e = nullptr;
  if ((s = lrelu_leaky_relu_get_workspace_size(x, 0.0, y, options, &ws, &e)) !=
      LRELU_STATUS_OK) {
    return s;
  }
  lrelu_executor_destroy(e);
  if (!Disjoint(p->y, p->alpha)) {
    return Fail(LRELU_STATUS_OVERLAP, "y and alpha share memory");
  }
  p->dtype = x->dtype;
  return Finish(std::move(p), target, plan);
}

lrelu_status_t BuildBackward(const lrelu_tensor_t* dy, const lrelu_tensor_t* x,
                             const lrelu_tensor_t* alpha,
                             const lrelu_tensor_t* dx,
                             const lrelu_tensor_t* dalpha,
                             const lrelu_options_t* options, Plan* plan) {
  auto p = std::make_shared<PreluPlan>();
  p->backward = true;
  lrelu_status_t s;
  if (dx == nullptr && dalpha == nullptr) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "dx and dalpha are both NULL: ask for at least one");
  }
  if ((s = CheckView(dy, "dy", &p->dy)) != LRELU_STATUS_OK) return s;
  if ((s = CheckView(x, "x", &p->x)) != LRELU_STATUS_OK) return s;
  if ((s = CheckView(alpha, "alpha", &p->alpha)) != LRELU_STATUS_OK) return s;
  if ((s = CheckSameShape(p->dy, "dy", p->x, "x")) != LRELU_STATUS_OK) return s;
  if ((s = CheckAlpha(p.get())) != LRELU_STATUS_OK) return s;
  const char* target = nullptr;
  if ((s = TakeOptions(options, p.get(), &target)) != LRELU_STATUS_OK) return s;
  p->has_dx = dx != nullptr;
  p->has_dalpha = dalpha != nullptr;
  if (p->has_dx) {
    if ((s = CheckView(dx, "dx", &p->dx)) != LRELU_STATUS_OK) return s;
    if ((s = CheckSameShape(p->dx, "dx", p->dy, "dy")) != LRELU_STATUS_OK) {
      return s;
    }
    size_t ws;
    lrelu_executor_t* e = nullptr;
    if ((s = lrelu_leaky_relu_backward_get_workspace_size(
             dy, x, 0.0, LRELU_GRAD_FROM_X, dx, options, &ws, &e)) !=
        LRELU_STATUS_OK) {
      return s;
    }
    lrelu_executor_destroy(e);
    if (!Disjoint(p->dx, p->alpha)) {
      return Fail(LRELU_STATUS_OVERLAP, "dx and alpha share memory");
    }
  }
  if (p->has_dalpha) {
    if ((s = CheckView(dalpha, "dalpha", &p->dalpha)) != LRELU_STATUS_OK) {
      return s;
    }
    if ((s = CheckSameShape(p->dalpha, "dalpha", p->alpha, "alpha")) !=
        LRELU_STATUS_OK) {
      return s;
    }
    if (!WritesOnce(p->dalpha)) {
      return Fail(LRELU_STATUS_OVERLAP,
                  "dalpha has overlapping elements (a stride of 0 or "
                  "interleaved strides): an element would be written twice");
    }
    if (p->has_dx && !Disjoint(p->dalpha, p->dx)) {
      return Fail(LRELU_STATUS_OVERLAP, "dalpha and dx share memory");
    }
  }
  p->dtype = x->dtype;
  return Finish(std::move(p), target, plan);
}

}  // namespace
}  // namespace lrelu

extern "C" {

lrelu_status_t lrelu_prelu_get_workspace_size(const lrelu_tensor_t* x,
                                              const lrelu_tensor_t* alpha,
                                              const lrelu_tensor_t* y,
                                              const lrelu_options_t* options,
                                              size_t* workspace_size,
                                              lrelu_executor_t** executor) {
  lrelu::ClearError();
  lrelu_status_t s = lrelu::CheckExecutorOutputs(workspace_size, executor);
  if (s != LRELU_STATUS_OK) return s;
  lrelu::Plan plan;
  s = lrelu::BuildForward(x, alpha, y, options, &plan);
  if (s != LRELU_STATUS_OK) return s;
  return lrelu::NewExecutorFor(plan, workspace_size, executor);
}

lrelu_status_t lrelu_prelu(const lrelu_tensor_t* x, const lrelu_tensor_t* alpha,
                           const lrelu_tensor_t* y,
                           const lrelu_options_t* options) {
  lrelu::ClearError();
  lrelu::Plan plan;
  const lrelu_status_t s = lrelu::BuildForward(x, alpha, y, options, &plan);
  if (s != LRELU_STATUS_OK) return s;
  return plan.backend->execute(plan, nullptr, 0, nullptr);
}

lrelu_status_t lrelu_prelu_backward_get_workspace_size(
    const lrelu_tensor_t* dy, const lrelu_tensor_t* x,
    const lrelu_tensor_t* alpha, const lrelu_tensor_t* dx,
    const lrelu_tensor_t* dalpha, const lrelu_options_t* options,
    size_t* workspace_size, lrelu_executor_t** executor) {
  lrelu::ClearError();
  lrelu_status_t s = lrelu::CheckExecutorOutputs(workspace_size, executor);
  if (s != LRELU_STATUS_OK) return s;
  lrelu::Plan plan;
  s = lrelu::BuildBackward(dy, x, alpha, dx, dalpha, options, &plan);
  if (s != LRELU_STATUS_OK) return s;
  return lrelu::NewExecutorFor(plan, workspace_size, executor);
}

lrelu_status_t lrelu_prelu_backward(const lrelu_tensor_t* dy,
                                    const lrelu_tensor_t* x,
                                    const lrelu_tensor_t* alpha,
                                    const lrelu_tensor_t* dx,
                                    const lrelu_tensor_t* dalpha,
                                    const lrelu_options_t* options) {
  lrelu::ClearError();
  lrelu::Plan plan;
  const lrelu_status_t s =
      lrelu::BuildBackward(dy, x, alpha, dx, dalpha, options, &plan);
  if (s != LRELU_STATUS_OK) return s;
  return plan.backend->execute(plan, nullptr, 0, nullptr);
}

}  // extern "C"
