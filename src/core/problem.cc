#include "core/problem.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/float32.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace lrelu {
namespace {

std::string ShapeString(const lrelu_tensor_t* t) {
  std::string s = "[";
  for (int32_t i = 0; i < t->rank; ++i) {
    if (i > 0) s += ",";
    s += std::to_string(t->shape[i]);
  }
  return s + "]";
}

}  // namespace

lrelu_status_t CheckTensor(const lrelu_tensor_t* t, const char* name,
                           Checked* c) {
  c->t = t;
  c->name = name;
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
  if (t->rank < 0) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT, "%s has negative rank %d", name,
                t->rank);
  }
  if (t->rank > 0 && t->shape == nullptr) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "%s.shape is NULL but its rank is %d", name, t->rank);
  }
  bool empty = false;
  for (int32_t i = 0; i < t->rank; ++i) {
    if (t->shape[i] < 0) {
      return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                  "%s.shape[%d] is negative (%lld)", name, i,
                  static_cast<long long>(t->shape[i]));
    }
    if (t->shape[i] == 0) empty = true;
  }
  c->count = 0;
  c->n = empty ? 0 : 1;
  if (empty) return LRELU_STATUS_OK;
  // C-contiguous strides when none are given, computed innermost first.
  int64_t contiguous = 1;
  int64_t default_strides[kMaxDims];
  int non_unit = 0;
  for (int32_t i = t->rank - 1; i >= 0; --i) {
    const int64_t extent = t->shape[i];
    if (extent == 1) continue;
    if (non_unit == kMaxDims - 1 ||
        __builtin_mul_overflow(c->n, extent, &c->n)) {
      return Fail(LRELU_STATUS_SIZE_OVERFLOW,
                  "%s has shape %s: its element count overflows 64 bits", name,
                  ShapeString(t).c_str());
    }
    default_strides[non_unit] = contiguous;
    contiguous = c->n;
    c->dims[non_unit++] = i;
  }
  // Dimensions were collected innermost first; store them outermost first.
  c->count = non_unit;
  std::reverse(c->dims, c->dims + non_unit);
  for (int k = 0; k < non_unit; ++k) {
    c->strides[k] = t->strides != nullptr ? t->strides[c->dims[k]]
                                          : default_strides[non_unit - 1 - k];
  }
  int64_t total_bytes;
  if (__builtin_mul_overflow(c->n, static_cast<int64_t>(elem), &total_bytes)) {
    return Fail(LRELU_STATUS_SIZE_OVERFLOW,
                "%s has shape %s: its size in bytes overflows 64 bits", name,
                ShapeString(t).c_str());
  }
  if (t->data == nullptr) {
    return Fail(LRELU_STATUS_NULL_DATA,
                "%s.data is NULL but %s has %lld elements", name, name,
                static_cast<long long>(c->n));
  }
  // Byte extent of the view: every offset must fit, and so must the
  // addresses (no wrap around the address space).
  int64_t lo = 0, hi = 0;
  for (int k = 0; k < non_unit; ++k) {
    int64_t step, reach;
    if (__builtin_mul_overflow(c->strides[k], static_cast<int64_t>(elem),
                               &step) ||
        __builtin_mul_overflow(step, t->shape[c->dims[k]] - 1, &reach) ||
        __builtin_add_overflow(reach < 0 ? lo : hi, reach,
                               reach < 0 ? &lo : &hi)) {
      return Fail(LRELU_STATUS_SIZE_OVERFLOW,
                  "%s's strides reach beyond 64-bit byte offsets", name);
    }
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(t->data);
  if ((lo < 0 && base < static_cast<uintptr_t>(-(lo + 1)) + 1) ||
      (hi > 0 && UINTPTR_MAX - base < static_cast<uintptr_t>(hi) + elem - 1)) {
    return Fail(LRELU_STATUS_SIZE_OVERFLOW,
                "%s's strides reach outside the address space", name);
  }
  c->lo_bytes = lo;
  if (__builtin_add_overflow(hi, static_cast<int64_t>(elem) - 1,
                             &c->hi_bytes)) {
    return Fail(LRELU_STATUS_SIZE_OVERFLOW,
                "%s's strides reach beyond 64-bit byte offsets", name);
  }
  return LRELU_STATUS_OK;
}

namespace {

lrelu_status_t CheckSameKind(const Checked& a, const Checked& b) {
  if (a.t->dtype != b.t->dtype) {
    return Fail(LRELU_STATUS_DTYPE_MISMATCH, "%s is %s but %s is %s", a.name,
                lrelu_dtype_name(a.t->dtype), b.name,
                lrelu_dtype_name(b.t->dtype));
  }
  bool same = a.t->rank == b.t->rank;
  for (int32_t i = 0; same && i < a.t->rank; ++i) {
    same = a.t->shape[i] == b.t->shape[i];
  }
  if (!same) {
    return Fail(LRELU_STATUS_SHAPE_MISMATCH,
                "%s has shape %s but %s has shape %s", a.name,
                ShapeString(a.t).c_str(), b.name, ShapeString(b.t).c_str());
  }
  return LRELU_STATUS_OK;
}

// An output must not write any element twice: with dimensions sorted by
// |stride|, each stride must step past everything the inner ones reach. (A
// few exotic interleavings that do not overlap are refused as well; that is
// an error, never a wrong answer.)
lrelu_status_t CheckNoSelfOverlap(const Checked& c) {
  int order[kMaxDims];
  for (int k = 0; k < c.count; ++k) order[k] = k;
  std::sort(order, order + c.count, [&c](int a, int b) {
    return std::llabs(c.strides[a]) < std::llabs(c.strides[b]);
  });
  int64_t reach = 0;  // largest element offset the inner dimensions reach
  for (int k = 0; k < c.count; ++k) {
    const int64_t stride = std::llabs(c.strides[order[k]]);
    if (stride <= reach) {
      return Fail(LRELU_STATUS_OVERLAP,
                  "%s has overlapping elements (a stride of 0 or interleaved "
                  "strides): an output element would be written twice",
                  c.name);
    }
    // Cannot overflow: CheckTensor bounded the byte extent.
    reach += stride * (c.t->shape[c.dims[order[k]]] - 1);
  }
  return LRELU_STATUS_OK;
}

bool SameView(const Checked& a, const Checked& b) {
  if (a.t->data != b.t->data || a.count != b.count) return false;
  for (int k = 0; k < a.count; ++k) {
    if (a.strides[k] != b.strides[k]) return false;
  }
  return true;
}

// out and an input either share no byte or are the same view (in-place).
lrelu_status_t CheckOverlap(const Checked& out, const Checked& in,
                            bool* same_view) {
  *same_view = false;
  if (out.n == 0) return LRELU_STATUS_OK;
  // Unsigned addresses: CheckTensor made sure base + lo and base + hi stay
  // inside the address space, so none of these wrap.
  const auto out_base = reinterpret_cast<uintptr_t>(out.t->data);
  const auto in_base = reinterpret_cast<uintptr_t>(in.t->data);
  // (Adding a negative offset as unsigned is modular, i.e. a subtraction.)
  const uintptr_t out_lo = out_base + static_cast<uintptr_t>(out.lo_bytes);
  const uintptr_t out_hi = out_base + static_cast<uintptr_t>(out.hi_bytes);
  const uintptr_t in_lo = in_base + static_cast<uintptr_t>(in.lo_bytes);
  const uintptr_t in_hi = in_base + static_cast<uintptr_t>(in.hi_bytes);
  if (out_hi < in_lo || in_hi < out_lo) return LRELU_STATUS_OK;
  if (SameView(out, in)) {
    *same_view = true;
    return LRELU_STATUS_OK;
  }
  return Fail(LRELU_STATUS_OVERLAP,
              "%s and %s partially overlap: they must share no memory or be "
              "the same view (in-place)",
              out.name, in.name);
}

// Fills the operand layout of *p from the checked tensors and normalises it.
void Normalize(const Checked& v, const Checked& s, const Checked& out,
               Problem* p) {
  const int64_t elem = static_cast<int64_t>(p->elem_size);
  auto* pv = static_cast<const char*>(v.t->data);
  auto* ps = static_cast<const char*>(s.t->data);
  auto* po = static_cast<char*>(out.t->data);
  int rank = out.count;
  for (int k = 0; k < rank; ++k) {
    p->shape[k] = out.t->shape[out.dims[k]];
    p->v_strides[k] = v.strides[k];
    p->s_strides[k] = s.strides[k];
    p->out_strides[k] = out.strides[k];
    // Elementwise: the order of visits is free, so turn every dimension
    // that runs backwards in the output around, in all operands at once.
    if (p->out_strides[k] < 0) {
      const int64_t last = p->shape[k] - 1;
      pv += last * p->v_strides[k] * elem;
      ps += last * p->s_strides[k] * elem;
      po += last * p->out_strides[k] * elem;
      p->v_strides[k] = -p->v_strides[k];
      p->s_strides[k] = -p->s_strides[k];
      p->out_strides[k] = -p->out_strides[k];
    }
  }
  // Outermost (largest output stride) first; insertion sort keeps ties in
  // their original order.
  for (int i = 1; i < rank; ++i) {
    for (int j = i; j > 0 && p->out_strides[j - 1] < p->out_strides[j]; --j) {
      std::swap(p->shape[j - 1], p->shape[j]);
      std::swap(p->v_strides[j - 1], p->v_strides[j]);
      std::swap(p->s_strides[j - 1], p->s_strides[j]);
      std::swap(p->out_strides[j - 1], p->out_strides[j]);
    }
  }
  // Merge dimension k into k + 1 when k steps exactly over all of k + 1 in
  // every operand.
  int merged = 0;
  for (int k = 0; k < rank; ++k) {
    if (merged > 0) {
      const int m = merged - 1;
      const int64_t inner = p->shape[k];
      if (p->v_strides[m] == p->v_strides[k] * inner &&
          p->s_strides[m] == p->s_strides[k] * inner &&
          p->out_strides[m] == p->out_strides[k] * inner) {
        p->shape[m] *= inner;
        p->v_strides[m] = p->v_strides[k];
        p->s_strides[m] = p->s_strides[k];
        p->out_strides[m] = p->out_strides[k];
        continue;
      }
    }
    p->shape[merged] = p->shape[k];
    p->v_strides[merged] = p->v_strides[k];
    p->s_strides[merged] = p->s_strides[k];
    p->out_strides[merged] = p->out_strides[k];
    ++merged;
  }
  rank = merged;
  p->rank = rank;
  const auto reach = [](const Checked& c, const char* base) {
    return Problem::Reach{base - static_cast<const char*>(c.t->data),
                          c.lo_bytes, c.hi_bytes};
  };
  p->v_reach = reach(v, pv);
  p->s_reach = reach(s, ps);
  p->out_reach = reach(out, po);
  p->v = pv;
  p->s = ps;
  p->out = po;
  p->dense = rank == 0 || (rank == 1 && p->v_strides[0] == 1 &&
                           p->s_strides[0] == 1 && p->out_strides[0] == 1);
}

void InitProblem(Op op, lrelu_dtype_t dtype, double alpha, int64_t n,
                 Problem* p) {
  p->op = op;
  p->dtype = dtype;
  p->elem_size = ElemSize(dtype);
  p->alpha = alpha;
  p->alpha32 = AlphaToFloat32(alpha);
  p->n = n;
  p->v = p->s = nullptr;
  p->out = nullptr;
  p->in_place = false;
  p->dense = true;
  p->rank = 0;
  p->v_reach = p->s_reach = p->out_reach = Problem::Reach{0, 0, 0};
  p->v_is_out = p->s_is_out = false;
}

}  // namespace

// RoundToFloat32 in software costs more than a small call's validation; the
// hardware conversion gives the same bits when it rounds to nearest (the
// caller's MXCSR says how it rounds) and the result is a normal float32
// (FTZ and DAZ then change nothing). Anything else takes the software path.
float AlphaToFloat32(double alpha) {
#if defined(__x86_64__) && defined(__SSE2__)
  const float f = static_cast<float>(alpha);
  const float magnitude = std::fabs(f);
  if ((_mm_getcsr() & 0x6000u) == 0 && magnitude >= FLT_MIN &&
      magnitude <= FLT_MAX) {
    return f;
  }
#endif
  return RoundToFloat32(alpha);
}

void BuildDenseForward(const DenseRun& run, Problem* p) {
  InitProblem(Op::kForward, run.dtype, run.alpha, run.n, p);
  const auto bytes =
      static_cast<int64_t>(static_cast<size_t>(run.n) * ElemSize(run.dtype));
  p->v = p->s = run.v;
  p->out = run.out;
  p->in_place = run.v == run.out;
  p->v_is_out = p->s_is_out = p->in_place;
  p->v_reach = p->s_reach = p->out_reach = Problem::Reach{0, 0, bytes - 1};
  p->rank = 1;
  p->shape[0] = run.n;
  p->v_strides[0] = p->s_strides[0] = p->out_strides[0] = 1;
}

// Small calls are dominated by this cost, so it is one pass.
bool DenseForwardRun(const lrelu_tensor_t* x, double alpha,
                     const lrelu_tensor_t* y, DenseRun* run) {
  if (x == nullptr || y == nullptr || x->strides != nullptr ||
      y->strides != nullptr || x->dtype != y->dtype || x->rank != y->rank ||
      x->rank < 0 || x->data == nullptr || y->data == nullptr) {
    return false;
  }
  const size_t elem = ElemSize(x->dtype);
  if (elem == 0 ||
      (x->rank > 0 && (x->shape == nullptr || y->shape == nullptr))) {
    return false;
  }
  // Up to 2^40 elements here, checked before each multiply; larger
  // tensors take the general path.
  constexpr uint64_t kLimit = uint64_t{1} << 40;
  uint64_t n = 1;
  for (int32_t i = 0; i < x->rank; ++i) {
    const int64_t d = x->shape[i];
    // A multiply and a compare, not a division: small calls feel it.
    if (d <= 0 || d != y->shape[i] ||
        __builtin_mul_overflow(n, static_cast<uint64_t>(d), &n) || n > kLimit) {
      return false;
    }
  }
  const auto xa = reinterpret_cast<uintptr_t>(x->data);
  const auto ya = reinterpret_cast<uintptr_t>(y->data);
  const uint64_t bytes = n * elem;
  if (xa != ya && xa < ya + bytes && ya < xa + bytes) return false;
  if (UINTPTR_MAX - xa < bytes || UINTPTR_MAX - ya < bytes) return false;
  *run = DenseRun{Op::kForward, x->dtype, x->data,
                  x->data,      y->data,  static_cast<int64_t>(n),
                  alpha};
  return true;
}

lrelu_status_t BuildForwardProblem(const lrelu_tensor_t* x, double alpha,
                                   const lrelu_tensor_t* y, Problem* p) {
  DenseRun run;
  if (DenseForwardRun(x, alpha, y, &run)) {
    BuildDenseForward(run, p);
    return LRELU_STATUS_OK;
  }
  Checked cx, cy;
  lrelu_status_t status;
  if ((status = CheckTensor(x, "x", &cx)) != LRELU_STATUS_OK) return status;
  if ((status = CheckTensor(y, "y", &cy)) != LRELU_STATUS_OK) return status;
  if ((status = CheckSameKind(cx, cy)) != LRELU_STATUS_OK) return status;
  InitProblem(Op::kForward, x->dtype, alpha, cx.n, p);
  if (cx.n == 0) return LRELU_STATUS_OK;
  if ((status = CheckNoSelfOverlap(cy)) != LRELU_STATUS_OK) return status;
  bool same = false;
  if ((status = CheckOverlap(cy, cx, &same)) != LRELU_STATUS_OK) return status;
  p->in_place = same;
  p->v_is_out = p->s_is_out = same;
  Normalize(cx, cx, cy, p);
  return LRELU_STATUS_OK;
}

lrelu_status_t BuildBackwardProblem(const lrelu_tensor_t* dy,
                                    const lrelu_tensor_t* s, double alpha,
                                    lrelu_grad_source_t source,
                                    const lrelu_tensor_t* dx, Problem* p) {
  if (source != LRELU_GRAD_FROM_X && source != LRELU_GRAD_FROM_Y) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "source is %d; use LRELU_GRAD_FROM_X or LRELU_GRAD_FROM_Y",
                static_cast<int>(source));
  }
  const char* s_name = source == LRELU_GRAD_FROM_X ? "x" : "y";
  Checked cdy, cs, cdx;
  lrelu_status_t status;
  if ((status = CheckTensor(dy, "dy", &cdy)) != LRELU_STATUS_OK) return status;
  if ((status = CheckTensor(s, s_name, &cs)) != LRELU_STATUS_OK) return status;
  if ((status = CheckTensor(dx, "dx", &cdx)) != LRELU_STATUS_OK) return status;
  if ((status = CheckSameKind(cdy, cdx)) != LRELU_STATUS_OK) return status;
  if ((status = CheckSameKind(cs, cdx)) != LRELU_STATUS_OK) return status;
  if (source == LRELU_GRAD_FROM_Y && !IsPositive(alpha)) {
    return Fail(LRELU_STATUS_INVALID_ALPHA,
                "the gradient from y needs alpha > 0 (alpha is %g): with "
                "alpha <= 0, y < 0 no longer tells where x < 0; pass x instead",
                alpha);
  }
  InitProblem(Op::kBackward, dy->dtype, alpha, cdy.n, p);
  if (cdy.n == 0) return LRELU_STATUS_OK;
  if ((status = CheckNoSelfOverlap(cdx)) != LRELU_STATUS_OK) return status;
  bool same_dy = false, same_s = false;
  if ((status = CheckOverlap(cdx, cdy, &same_dy)) != LRELU_STATUS_OK) {
    return status;
  }
  if ((status = CheckOverlap(cdx, cs, &same_s)) != LRELU_STATUS_OK) {
    return status;
  }
  p->in_place = same_dy || same_s;
  p->v_is_out = same_dy;
  p->s_is_out = same_s;
  Normalize(cdy, cs, cdx, p);
  return LRELU_STATUS_OK;
}

lrelu_status_t CheckPlacement(const char* name, uintptr_t data, int64_t n,
                              int64_t lo_bytes, int64_t hi_bytes) {
  if (n == 0) return LRELU_STATUS_OK;
  if (data == 0) {
    return Fail(LRELU_STATUS_NULL_DATA,
                "%s is NULL but the executor's %s has %lld elements", name,
                name, static_cast<long long>(n));
  }
  if ((lo_bytes < 0 && data < static_cast<uintptr_t>(-(lo_bytes + 1)) + 1) ||
      (hi_bytes > 0 && UINTPTR_MAX - data < static_cast<uintptr_t>(hi_bytes))) {
    return Fail(LRELU_STATUS_SIZE_OVERFLOW,
                "%s's strides reach outside the address space", name);
  }
  return LRELU_STATUS_OK;
}

lrelu_status_t PlaceBound(const char* name, const void* data, int64_t n,
                          int64_t lo_bytes, int64_t hi_bytes, Bound* b) {
  const auto address = reinterpret_cast<uintptr_t>(data);
  const lrelu_status_t status =
      CheckPlacement(name, address, n, lo_bytes, hi_bytes);
  if (status != LRELU_STATUS_OK) return status;
  *b = {name, address, address + static_cast<uintptr_t>(lo_bytes),
        address + static_cast<uintptr_t>(hi_bytes)};
  return LRELU_STATUS_OK;
}

lrelu_status_t CheckRelation(const Bound& in, const Bound& out, bool same) {
  if (same && in.data != out.data) {
    return Fail(LRELU_STATUS_OVERLAP,
                "the executor was planned with %s in place of %s, but they "
                "now differ: plan again for disjoint tensors",
                out.name, in.name);
  }
  if (!same && !(out.hi < in.lo || in.hi < out.lo)) {
    return Fail(LRELU_STATUS_OVERLAP,
                "the executor was planned with %s and %s disjoint, but they "
                "now share memory: plan again (in place needs the same "
                "view)",
                out.name, in.name);
  }
  return LRELU_STATUS_OK;
}

namespace {

lrelu_status_t CheckBound(const char* name, const void* data,
                          const Problem::Reach& reach, int64_t n, Bound* b) {
  return PlaceBound(name, data, n, reach.lo_bytes, reach.hi_bytes, b);
}

}  // namespace

lrelu_status_t RebindProblem(const void* v, const void* s, void* out,
                             Problem* p) {
  const bool forward = p->op == Op::kForward;
  if (p->n > 0) {
    Bound bv, bs, bo;
    lrelu_status_t status;
    if ((status = CheckBound(forward ? "x" : "dy", v, p->v_reach, p->n, &bv)) !=
            LRELU_STATUS_OK ||
        (status = CheckBound("the gradient's x (or y)", s, p->s_reach, p->n,
                             &bs)) != LRELU_STATUS_OK ||
        (status = CheckBound(forward ? "y" : "dx", out, p->out_reach, p->n,
                             &bo)) != LRELU_STATUS_OK) {
      return status;
    }
    if ((status = CheckRelation(bv, bo, p->v_is_out)) != LRELU_STATUS_OK) {
      return status;
    }
    if (!forward &&
        (status = CheckRelation(bs, bo, p->s_is_out)) != LRELU_STATUS_OK) {
      return status;
    }
  }
  p->v = static_cast<const char*>(v) + p->v_reach.base_bytes;
  p->s = static_cast<const char*>(s) + p->s_reach.base_bytes;
  p->out = static_cast<char*>(out) + p->out_reach.base_bytes;
  return LRELU_STATUS_OK;
}

}  // namespace lrelu
