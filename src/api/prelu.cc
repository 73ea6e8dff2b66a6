// PReLU (contract ai.onnx.PRelu v1): alpha is a tensor broadcast to x.
// Validation and planning here; execution splits x into one view per alpha
// element (the axes alpha varies along fixed, the broadcast axes free) and
// runs LeakyReLU's planned kernels on each view with that element's alpha,
// so every element follows LeakyReLU's exact rule on every target, thread
// count and layout. dalpha is an exact sum (reference/exact_sum.h) per alpha
// element, rounded once.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/executors.h"
#include "api/prelu_dalpha.h"
#include "api/prelu_device.h"
#include "api/prelu_plan.h"
#include "api/prelu_rows.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/problem.h"
#include "cpu/thread_pool.h"
#include "lrelu/lrelu.h"
#include "reference/exact_sum.h"

namespace lrelu {
namespace {

using namespace prelu_impl;  // NOLINT: this file's own implementation parts

// v's elements in C order: fn(element's offset in elements).
template <typename Fn>
void ForEachElement(const View& v, Fn&& fn) {
  const size_t rank = v.shape.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < v.n; ++i) {
    fn(off);
    // Only steps that land on an element (a stride over an extent of 1 may
    // be anything, INT64_MAX: the prelu fuzzer).
    for (size_t k = rank; k-- > 0;) {
      if (++idx[k] < v.shape[k]) {
        off += v.strides[k];
        break;
      }
      off -= v.strides[k] * (v.shape[k] - 1);
      idx[k] = 0;
    }
  }
}

// dalpha's values (bits, C order) into its view.
void StoreDalpha(const View& d, const std::vector<uint64_t>& bits) {
  const size_t elem = lrelu_dtype_size(d.dtype);
  // Per channel (one axis longer than 1, a [C, 1, 1] dalpha): one stride,
  // no odometer.
  int axes = 0;
  int64_t step = 0;
  for (size_t j = 0; j < d.shape.size(); ++j) {
    if (d.shape[j] > 1) {
      ++axes;
      step = d.strides[j];
    }
  }
  if (axes <= 1) {
    StoreStrided(d.data, elem, step, bits.data(), bits.size());
    return;
  }
  size_t k = 0;
  ForEachElement(d, [&](int64_t off) {
    StoreBits(d.data + off * static_cast<int64_t>(elem), elem, bits[k++]);
  });
}

lrelu_status_t ExecutePlan(const PreluPlan& p,
                           const lrelu_thread_pool_t* pool) {
  if (p.x.n == 0) {
    // Nothing to read; dalpha's elements are empty sums, +0 (all bits
    // clear). Before any layout work: an empty view's strides are
    // unchecked, and merging them could overflow (the prelu fuzzer: a
    // stride of 2^61 times an extent of 4).
    if (p.backward && p.has_dalpha) {
      StoreDalpha(p.dalpha,
                  std::vector<uint64_t>(static_cast<size_t>(p.dalpha.n), 0));
    }
    return LRELU_STATUS_OK;
  }
  const View& out = p.backward ? p.dx : p.y;
  const View& v = p.backward ? p.dy : p.x;
  const bool has_out = !p.backward || p.has_dx;
  const lrelu_options_t o = ViewOptions(p, pool);
  const RowLayout layout = MergedLayout(p, v, has_out ? out : v);
  // Rows unless they are strided, or alpha is constant along them and a
  // variant other than the reference is forced (LeakyReLU's own plans serve
  // those, one view per alpha element).
  const bool forced = p.has_variant && !p.variant.empty() &&
                      p.variant != "auto" && p.variant != "reference";
  const bool row_mode = has_out && p.x.n > 0 && RowsAreDense(layout) &&
                        !(forced && layout.as[layout.rank - 1] == 0);
  if (row_mode && !(p.backward && p.has_dalpha)) {
    return ExecuteRows(OperandsOf(p, v, out), layout, o.thread_pool);
  }
  // Read every alpha value before anything is written, where the per-view
  // calls below need them (row mode reads alpha itself; dalpha alone needs
  // none: reading them cost a 512-channel call ~10 % of its time).
  const bool per_view = has_out && !row_mode && p.x.n > 0;
  const size_t alpha_elem = lrelu_dtype_size(p.alpha.dtype);
  const reference::Format af = reference::FormatOf(p.alpha.dtype);
  const auto count = static_cast<size_t>(p.alpha_count);
  std::vector<double> alpha(per_view ? count : 0);
  const bool offsets =
      per_view || (p.backward && p.has_dalpha && !DalphaByRows(p));
  // Only what is read: dalpha by rows takes none, dalpha alone no o_off.
  std::vector<int64_t> x_off(offsets ? count : 0), v_off(x_off.size()),
      o_off(has_out ? x_off.size() : 0);
  std::vector<const View*> views = {&p.x, &v};
  if (has_out) views.push_back(&out);
  if (offsets && !per_view && p.alpha_axes.size() == 1) {
    // One axis (per channel, dalpha alone): each view's offsets step by
    // its stride, without ForEachAlpha's odometer and calls.
    const int axis = p.alpha_axes[0];
    const int64_t sx = p.x.strides[axis], sv = v.strides[axis],
                  so = has_out ? out.strides[axis] : 0;
    for (size_t k = 0; k < count; ++k) {
      const auto i = static_cast<int64_t>(k);
      x_off[k] = i * sx;
      v_off[k] = i * sv;
      if (has_out) o_off[k] = i * so;
    }
  } else if (offsets) {
    ForEachAlpha(p, views, [&](int64_t k, const std::vector<int64_t>& off) {
      if (per_view) {
        alpha[k] = reference::ToDouble(
            af, LoadBits(p.alpha.data +
                             off.back() * static_cast<int64_t>(alpha_elem),
                         alpha_elem));
      }
      x_off[k] = off[0];
      v_off[k] = off[1];
      if (has_out) o_off[k] = off[2];
    });
  }

  // dalpha first: it reads dy, which dx may overwrite (in place).
  std::vector<uint64_t> dalpha;
  if (p.backward && p.has_dalpha) {
    dalpha.resize(count);
    SumDalpha(p, x_off, v_off,
              o.thread_pool != nullptr ? o.thread_pool : &cpu::OwnThreadPool(),
              dalpha.data());
  }

  if (row_mode) {
    const lrelu_status_t status =
        ExecuteRows(OperandsOf(p, v, out), layout, o.thread_pool);
    if (status != LRELU_STATUS_OK) return status;
  } else if (per_view) {
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

  if (!dalpha.empty()) StoreDalpha(p.dalpha, dalpha);
  return LRELU_STATUS_OK;
}

// Whether v's elements lie off their dtype's alignment (lrelu.h takes data
// at any byte address; strides are whole elements, so all or none do).
bool Misaligned(const View& v) {
  return reinterpret_cast<uintptr_t>(v.data) % lrelu_dtype_size(v.dtype) != 0;
}

// v's elements in C order, copied bytewise to `out`; returns v over them.
View Compact(const View& v, char* out) {
  const auto elem = static_cast<int64_t>(lrelu_dtype_size(v.dtype));
  int64_t i = 0;
  ForEachElement(v, [&](int64_t off) {
    std::memcpy(out + i++ * elem, v.data + off * elem,
                static_cast<size_t>(elem));
  });
  const size_t rank = v.shape.size();
  View w = v;
  w.data = out;
  int64_t step = 1;
  for (size_t k = rank; k-- > 0;) {
    w.strides[k] = step;
    step *= v.shape[k];
  }
  w.lo_bytes = 0;
  w.hi_bytes = (v.n - 1) * elem;
  return w;
}

lrelu_status_t ExecutePrelu(const Plan& plan, void*, size_t,
                            const lrelu_thread_pool_t* pool) {
  const auto& p = *static_cast<const PreluPlan*>(plan.extension.get());
  // dalpha's kernels read x and dy as arrays of their type: x or dy off
  // that alignment (a float32 at an odd address) is read from compact
  // aligned copies of both, made before anything is written (dx may be
  // dy). The prelu fuzzer's first find: the typed loads of misaligned data
  // were undefined behaviour (UBSan, tests/fuzz/regressions/prelu/).
  if (p.backward && p.has_dalpha && p.x.n > 0 &&
      (Misaligned(p.x) || Misaligned(p.dy))) {
    const size_t words =
        (static_cast<size_t>(p.x.n) * lrelu_dtype_size(p.dtype) + 7) / 8;
    const std::unique_ptr<uint64_t[]> copies(new uint64_t[2 * words]);
    PreluPlan aligned = p;
    auto* base = reinterpret_cast<char*>(copies.get());
    aligned.x = Compact(p.x, base);
    aligned.dy = Compact(p.dy, base + 8 * words);
    return ExecutePlan(aligned, pool);
  }
  return ExecutePlan(p, pool);
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

// The PReLU plan a Plan refers to: for one-shot calls the caller's `stack`
// (no allocation: a shared_ptr that owns nothing), for executors (stack is
// NULL) one on the heap that the executor owns. Only executors keep the
// checked problem (lrelu_executor_bind needs it).
std::shared_ptr<PreluPlan> NewPreluPlan(PreluPlan* stack) {
  if (stack == nullptr) return std::make_shared<PreluPlan>();
  return std::shared_ptr<PreluPlan>(std::shared_ptr<PreluPlan>(), stack);
}

lrelu_status_t BuildForward(const lrelu_tensor_t* x,
                            const lrelu_tensor_t* alpha,
                            const lrelu_tensor_t* y,
                            const lrelu_options_t* options, PreluPlan* stack,
                            Plan* plan) {
  const bool for_executor = stack == nullptr;
  std::shared_ptr<PreluPlan> p = NewPreluPlan(stack);
  lrelu_status_t s;
  if ((s = CheckView(x, "x", &p->x)) != LRELU_STATUS_OK) return s;
  if ((s = CheckView(alpha, "alpha", &p->alpha)) != LRELU_STATUS_OK) return s;
  if ((s = CheckView(y, "y", &p->y)) != LRELU_STATUS_OK) return s;
  if ((s = CheckSameShape(p->x, "x", p->y, "y")) != LRELU_STATUS_OK) return s;
  if ((s = CheckAlpha(p.get())) != LRELU_STATUS_OK) return s;
  // Device backends: api/prelu_device.cc.
  if (PreluWantsDevice(options)) {
    return PlanPreluOnDevice(x, alpha, y, options, plan);
  }
  // x and y: LeakyReLU's checks (overlap, in place, strides), with the
  // options'.
  Plan checked;
  if ((s = BuildForwardProblem(x, 0.0, y, &checked.problem)) !=
      LRELU_STATUS_OK) {
    return s;
  }
  const char* target = nullptr;
  if ((s = TakeOptions(options, &checked, p.get(), &target)) !=
      LRELU_STATUS_OK) {
    return s;
  }
  if (!Disjoint(p->y, p->alpha)) {
    return Fail(LRELU_STATUS_OVERLAP, "y and alpha share memory");
  }
  if (for_executor) {
    p->checked = std::make_shared<const Problem>(checked.problem);
  }
  p->dtype = x->dtype;
  return Finish(std::move(p), target, plan);
}

lrelu_status_t BuildBackward(const lrelu_tensor_t* dy, const lrelu_tensor_t* x,
                             const lrelu_tensor_t* alpha,
                             const lrelu_tensor_t* dx,
                             const lrelu_tensor_t* dalpha,
                             const lrelu_options_t* options, PreluPlan* stack,
                             Plan* plan) {
  const bool for_executor = stack == nullptr;
  std::shared_ptr<PreluPlan> p = NewPreluPlan(stack);
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
  p->has_dx = dx != nullptr;
  p->has_dalpha = dalpha != nullptr;
  if (p->has_dx) {
    if ((s = CheckView(dx, "dx", &p->dx)) != LRELU_STATUS_OK) return s;
    if ((s = CheckSameShape(p->dx, "dx", p->dy, "dy")) != LRELU_STATUS_OK) {
      return s;
    }
  }
  // dy, x and dx: LeakyReLU's checks, with the options'. Without dx, a
  // one-element problem checks the options alone (x may be any view then).
  Plan checked;
  float dummy_x = 0, dummy_y = 0;
  const lrelu_tensor_t tx = {&dummy_x, LRELU_DTYPE_FLOAT32, 0, nullptr,
                             nullptr};
  const lrelu_tensor_t ty = {&dummy_y, LRELU_DTYPE_FLOAT32, 0, nullptr,
                             nullptr};
  s = p->has_dx ? BuildBackwardProblem(dy, x, 0.0, LRELU_GRAD_FROM_X, dx,
                                       &checked.problem)
                : BuildForwardProblem(&tx, 0.0, &ty, &checked.problem);
  if (s != LRELU_STATUS_OK) return s;
  const char* target = nullptr;
  if ((s = TakeOptions(options, &checked, p.get(), &target)) !=
      LRELU_STATUS_OK) {
    return s;
  }
  if (for_executor) {
    p->checked = std::make_shared<const Problem>(checked.problem);
  }
  if (p->has_dx) {
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

// The common one-shot call of the forward pass (v is x, out is y) or of
// dx alone (v is dy, out is dx), checked in one pass and run in row mode
// without a plan: x, v, out and alpha of one dtype without strides, x's
// extents positive and at most 2^40 elements, rank <= kQuickRank, v and out
// of x's shape, alpha broadcasting to x, out identical to x or v or
// disjoint from each, and disjoint from alpha; CpuDefaultOptions. Returns
// false for anything else, valid or not, having written nothing: the
// general path then checks (and words any error). The general path's two
// layers of checks, its plan and views cost a 64-element call ~0.3 us
// against LeakyReLU's 0.05.
constexpr int kQuickRank = 8;

bool QuickRows(bool backward, const lrelu_tensor_t* x, const lrelu_tensor_t* v,
               const lrelu_tensor_t* alpha, const lrelu_tensor_t* out,
               const lrelu_options_t* options, lrelu_status_t* status) {
  if (x == nullptr || v == nullptr || alpha == nullptr || out == nullptr) {
    return false;
  }
  if (!CpuDefaultOptions(options)) return false;
  const lrelu_thread_pool_t* pool =
      options != nullptr ? options->thread_pool : nullptr;
  const size_t threads = options != nullptr ? options->threads : 0;
  if (pool != nullptr &&
      (pool->parallel_for == nullptr || pool->concurrency == 0)) {
    return false;
  }
  const lrelu_dtype_t dtype = x->dtype;
  const int rank = x->rank;
  if (x->strides != nullptr || v->strides != nullptr ||
      out->strides != nullptr || alpha->strides != nullptr ||
      x->data == nullptr || v->data == nullptr || out->data == nullptr ||
      alpha->data == nullptr || v->dtype != dtype || out->dtype != dtype ||
      alpha->dtype != dtype || rank < 1 || rank > kQuickRank ||
      v->rank != rank || out->rank != rank || alpha->rank < 0 ||
      alpha->rank > rank || x->shape == nullptr || v->shape == nullptr ||
      out->shape == nullptr || (alpha->rank > 0 && alpha->shape == nullptr)) {
    return false;
  }
  const size_t elem = lrelu_dtype_size(dtype);
  if (elem == 0) return false;
  // C-contiguous strides of x (and y), and alpha's aligned to x's axes.
  constexpr uint64_t kLimit = uint64_t{1} << 40;
  int64_t xs[kQuickRank], as[kQuickRank];
  uint64_t n = 1, an = 1;
  const int skipped = rank - alpha->rank;  // x's axes alpha does not have
  for (int i = rank - 1; i >= 0; --i) {
    const int64_t d = x->shape[i];
    if (d <= 0 || d != v->shape[i] || d != out->shape[i]) return false;
    xs[i] = static_cast<int64_t>(n);
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n) || n > kLimit) {
      return false;
    }
    as[i] = 0;
    if (i >= skipped) {
      const int64_t e = alpha->shape[i - skipped];
      if (e != 1) {
        if (e != d) return false;
        as[i] = static_cast<int64_t>(an);
        an *= static_cast<uint64_t>(e);  // at most n
      }
    }
  }
  const uint64_t bytes = n * elem, alpha_bytes = an * elem;
  const auto xa = reinterpret_cast<uintptr_t>(x->data);
  const auto va = reinterpret_cast<uintptr_t>(v->data);
  const auto oa = reinterpret_cast<uintptr_t>(out->data);
  const auto aa = reinterpret_cast<uintptr_t>(alpha->data);
  if (UINTPTR_MAX - xa < bytes || UINTPTR_MAX - va < bytes ||
      UINTPTR_MAX - oa < bytes || UINTPTR_MAX - aa < alpha_bytes) {
    return false;
  }
  // out: each input exactly, or none of its bytes; never alpha's.
  const auto apart = [](uintptr_t a, uint64_t a_bytes, uintptr_t b,
                        uint64_t b_bytes) {
    return a + a_bytes <= b || b + b_bytes <= a;
  };
  if ((oa != xa && !apart(oa, bytes, xa, bytes)) ||
      (oa != va && !apart(oa, bytes, va, bytes)) ||
      !apart(oa, bytes, aa, alpha_bytes)) {
    return false;
  }
  const RowLayout layout = MergeRows(rank, x->shape, xs, xs, xs, as);
  RowOperands ops;
  ops.dtype = dtype;
  ops.backward = backward;
  ops.x = static_cast<const char*>(x->data);
  ops.v = static_cast<const char*>(v->data);
  ops.out = static_cast<char*>(out->data);
  ops.alpha = static_cast<const char*>(alpha->data);
  ops.alpha_dtype = dtype;
  ops.n = static_cast<int64_t>(n);
  ops.threads = threads;
  ops.cpu_target = nullptr;
  ops.reference = false;
  *status = ExecuteRows(ops, layout, pool);
  return true;
}

}  // namespace

bool IsPreluPlan(const Plan& plan) { return plan.backend == &kPreluBackend; }

lrelu_status_t RebindPrelu(Plan* plan, void* const* data, size_t count) {
  const auto& old = *static_cast<const PreluPlan*>(plan->extension.get());
  const size_t expected = old.backward ? 5 : 3;
  if (data == nullptr || count != expected) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "lrelu_executor_bind needs %zu data pointers for this PReLU "
                "executor (%s), got %zu%s",
                expected,
                old.backward ? "dy, x, alpha, dx, dalpha" : "x, alpha, y",
                count, data == nullptr ? " (data is NULL)" : "");
  }
  if (old.backward && ((!old.has_dx && data[3] != nullptr) ||
                       (!old.has_dalpha && data[4] != nullptr))) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "this executor was planned without %s: pass NULL for it "
                "(or plan again)",
                !old.has_dx && data[3] != nullptr ? "dx" : "dalpha");
  }
  auto p = std::make_shared<PreluPlan>(old);
  if (old.checked == nullptr) {
    return Fail(LRELU_STATUS_INTERNAL, "PReLU executor without its problem");
  }
  Problem problem = *old.checked;
  lrelu_status_t s = LRELU_STATUS_OK;
  if (!old.backward) {
    // x and y as LeakyReLU's executors check them (NULL, address space, in
    // place or disjoint as planned).
    s = RebindProblem(data[0], data[0], data[2], &problem);
    p->x.data = static_cast<char*>(data[0]);
    p->alpha.data = static_cast<char*>(data[1]);
    p->y.data = static_cast<char*>(data[2]);
  } else {
    if (old.has_dx) s = RebindProblem(data[0], data[1], data[3], &problem);
    p->dy.data = static_cast<char*>(data[0]);
    p->x.data = static_cast<char*>(data[1]);
    p->alpha.data = static_cast<char*>(data[2]);
    if (old.has_dx) p->dx.data = static_cast<char*>(data[3]);
    if (old.has_dalpha) p->dalpha.data = static_cast<char*>(data[4]);
  }
  if (s != LRELU_STATUS_OK) return s;
  if ((s = CheckPlaced(p->x, "x")) != LRELU_STATUS_OK ||
      (s = CheckPlaced(p->alpha, "alpha")) != LRELU_STATUS_OK) {
    return s;
  }
  if (!old.backward) {
    if (!Disjoint(p->y, p->alpha)) {
      return Fail(LRELU_STATUS_OVERLAP, "y and alpha share memory");
    }
  } else {
    if ((s = CheckPlaced(p->dy, "dy")) != LRELU_STATUS_OK) return s;
    if (old.has_dx && !Disjoint(p->dx, p->alpha)) {
      return Fail(LRELU_STATUS_OVERLAP, "dx and alpha share memory");
    }
    if (old.has_dalpha) {
      if ((s = CheckPlaced(p->dalpha, "dalpha")) != LRELU_STATUS_OK) return s;
      if (old.has_dx && !Disjoint(p->dalpha, p->dx)) {
        return Fail(LRELU_STATUS_OVERLAP, "dalpha and dx share memory");
      }
    }
  }
  plan->extension = std::move(p);
  return LRELU_STATUS_OK;
}

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
  s = lrelu::BuildForward(x, alpha, y, options, nullptr, &plan);
  if (s != LRELU_STATUS_OK) return s;
  return lrelu::NewExecutorFor(plan, workspace_size, executor);
}

lrelu_status_t lrelu_prelu(const lrelu_tensor_t* x, const lrelu_tensor_t* alpha,
                           const lrelu_tensor_t* y,
                           const lrelu_options_t* options) {
  lrelu::ClearError();
  lrelu_status_t quick;
  if (lrelu::QuickRows(false, x, x, alpha, y, options, &quick)) return quick;
  lrelu::prelu_impl::PreluPlan stack;
  lrelu::Plan plan;
  const lrelu_status_t s =
      lrelu::BuildForward(x, alpha, y, options, &stack, &plan);
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
  s = lrelu::BuildBackward(dy, x, alpha, dx, dalpha, options, nullptr, &plan);
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
  lrelu_status_t quick;
  if (dalpha == nullptr &&
      lrelu::QuickRows(true, x, dy, alpha, dx, options, &quick)) {
    return quick;
  }
  lrelu::prelu_impl::PreluPlan stack;
  lrelu::Plan plan;
  const lrelu_status_t s =
      lrelu::BuildBackward(dy, x, alpha, dx, dalpha, options, &stack, &plan);
  if (s != LRELU_STATUS_OK) return s;
  return plan.backend->execute(plan, nullptr, 0, nullptr);
}

}  // extern "C"