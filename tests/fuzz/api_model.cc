#include "api_model.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "reference/dtype_traits.h"

namespace lrelu::fuzz {
namespace {

using Int = __int128;
constexpr Int kInt64Max = std::numeric_limits<int64_t>::max();
constexpr Int kInt64Min = std::numeric_limits<int64_t>::min();
// Tensors with more elements are never enumerated (they cannot fit the
// arena anyway); overlap questions about them stay undecided.
constexpr int64_t kEnumerateLimit = int64_t{1} << 20;

// From the dtype table the oracle and the tests read, not from the
// library's validation that the model checks; 0 for an unknown dtype.
size_t ElementBytes(int dtype) {
  for (const reference::DTypeTraits& t : reference::kDTypes) {
    if (static_cast<int>(t.tag) == dtype) return t.size;
  }
  return 0;
}

// What one tensor argument is, on its own.
struct Facts {
  int status = LRELU_STATUS_OK;
  int64_t n = 0;
  size_t elem = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // effective (C-contiguous when NULL)
  Int lo = 0;                    // bytes relative to data; the elements occupy
  Int hi = 0;                    // [data + lo, data + hi + elem)
  Int base = 0;
};

Facts Examine(const lrelu_tensor_t* t) {
  Facts f;
  if (t == nullptr) {
    f.status = LRELU_STATUS_INVALID_ARGUMENT;
    return f;
  }
  // Read as int: a caller may store any int there, and loading a negative
  // one as lrelu_dtype_t is undefined in C++ (UBSan's -fsanitize=enum).
  int dtype;
  std::memcpy(&dtype, &t->dtype, sizeof dtype);
  f.elem = ElementBytes(dtype);
  if (f.elem == 0) {
    f.status = LRELU_STATUS_UNSUPPORTED_DTYPE;
    return f;
  }
  if (t->rank < 0 || (t->rank > 0 && t->shape == nullptr)) {
    f.status = LRELU_STATUS_INVALID_ARGUMENT;
    return f;
  }
  f.shape.assign(t->shape, t->shape + t->rank);
  for (int64_t d : f.shape) {
    if (d < 0) {
      f.status = LRELU_STATUS_INVALID_ARGUMENT;
      return f;
    }
  }
  if (std::count(f.shape.begin(), f.shape.end(), 0) > 0) return f;  // empty
  Int count = 1;
  for (int64_t d : f.shape) {
    count *= d;
    if (count > kInt64Max) {
      f.status = LRELU_STATUS_SIZE_OVERFLOW;
      return f;
    }
  }
  if (count * static_cast<Int>(f.elem) > kInt64Max) {
    f.status = LRELU_STATUS_SIZE_OVERFLOW;
    return f;
  }
  f.n = static_cast<int64_t>(count);
  if (t->data == nullptr) {
    f.status = LRELU_STATUS_NULL_DATA;
    return f;
  }
  f.strides.resize(f.shape.size());
  Int contiguous = 1;
  for (size_t k = f.shape.size(); k-- > 0;) {
    f.strides[k] = t->strides != nullptr ? t->strides[k]
                                         : static_cast<int64_t>(contiguous);
    contiguous *= f.shape[k];
  }
  for (size_t k = 0; k < f.shape.size(); ++k) {
    if (f.shape[k] == 1) continue;  // never stepped: any stride is fine
    const Int reach = static_cast<Int>(f.strides[k]) * (f.shape[k] - 1);
    // |reach| < 2^126 here; beyond 2^64 it overflows whatever elem is.
    if (reach > kInt64Max || reach < kInt64Min) {
      f.status = LRELU_STATUS_SIZE_OVERFLOW;
      return f;
    }
    (reach < 0 ? f.lo : f.hi) += reach * static_cast<Int>(f.elem);
  }
  f.base = static_cast<Int>(reinterpret_cast<uintptr_t>(t->data));
  if (f.lo < kInt64Min || f.hi > kInt64Max || f.base + f.lo < 0 ||
      f.base + f.hi + static_cast<Int>(f.elem) - 1 >
          static_cast<Int>(UINTPTR_MAX)) {
    f.status = LRELU_STATUS_SIZE_OVERFLOW;
  }
  return f;
}

Elements Enumerate(const Facts& f) {
  Elements e;
  if (f.n > kEnumerateLimit) return e;
  e.known = true;
  e.offsets.reserve(static_cast<size_t>(f.n));
  std::vector<int64_t> index(f.shape.size(), 0);
  for (int64_t i = 0; i < f.n; ++i) {
    int64_t offset = 0;
    for (size_t k = 0; k < index.size(); ++k) offset += index[k] * f.strides[k];
    e.offsets.push_back(offset);
    for (size_t k = index.size(); k-- > 0;) {
      if (++index[k] < f.shape[k]) break;
      index[k] = 0;
    }
  }
  return e;
}

bool SameKind(const lrelu_tensor_t* a, const lrelu_tensor_t* b, Verdict* v) {
  // Both dtypes are valid here (Examine accepted them).
  if (a->dtype != b->dtype) {
    v->required.insert(LRELU_STATUS_DTYPE_MISMATCH);
    return false;
  }
  if (a->rank != b->rank ||
      !std::equal(a->shape, a->shape + a->rank, b->shape)) {
    v->required.insert(LRELU_STATUS_SHAPE_MISMATCH);
    return false;
  }
  return true;
}

// The same view: the same address for every element.
bool SameView(const Facts& a, const Facts& b) {
  if (a.base != b.base) return false;
  for (size_t k = 0; k < a.shape.size(); ++k) {
    if (a.shape[k] > 1 && a.strides[k] != b.strides[k]) return false;
  }
  return true;
}

// Some byte of one element of `a` is a byte of an element of `b`.
bool ShareBytes(const Facts& fa, const Elements& a, const Facts& fb,
                const Elements& b) {
  std::vector<Int> starts;
  starts.reserve(a.offsets.size());
  for (int64_t o : a.offsets) {
    starts.push_back(fa.base + static_cast<Int>(o) * static_cast<Int>(fa.elem));
  }
  std::sort(starts.begin(), starts.end());
  const Int elem = static_cast<Int>(fa.elem);
  for (int64_t o : b.offsets) {
    const Int start = fb.base + static_cast<Int>(o) * elem;
    // Equal element sizes: two elements share a byte iff they start
    // less than one element apart.
    auto it = std::lower_bound(starts.begin(), starts.end(), start - elem + 1);
    if (it != starts.end() && *it < start + elem) return true;
  }
  return false;
}

// The library's documented, conservative test for an output: with
// dimensions sorted by |stride|, each must step past all inner ones.
bool PassesStrideChain(const Facts& f) {
  std::vector<std::pair<Int, int64_t>> dims;  // |stride|, extent
  for (size_t k = 0; k < f.shape.size(); ++k) {
    if (f.shape[k] > 1) {
      const Int s = f.strides[k];
      dims.push_back({s < 0 ? -s : s, f.shape[k]});
    }
  }
  std::sort(dims.begin(), dims.end());
  Int reach = 0;
  for (const auto& [stride, extent] : dims) {
    if (stride <= reach) return false;
    reach += stride * (extent - 1);
  }
  return true;
}

// One dense run, decided from shape and strides alone (no enumeration, so
// it holds for any element count): the dimensions of size > 1, sorted by
// |stride|, step 1, then the product of the inner extents, each in turn.
// Such offsets are n distinct values spanning n - 1: every element of
// [min, max] exactly once, whatever the signs.
bool DenseRun(const Facts& f) {
  std::vector<std::pair<Int, Int>> dims;  // |stride|, extent
  for (size_t k = 0; k < f.shape.size(); ++k) {
    if (f.shape[k] > 1) {
      const Int s = f.strides[k];
      dims.push_back({s < 0 ? -s : s, f.shape[k]});
    }
  }
  std::sort(dims.begin(), dims.end());
  Int step = 1;
  for (const auto& [stride, extent] : dims) {
    if (stride != step) return false;
    step *= extent;
  }
  return true;
}

// Element i of `a` is at the same offset as element i of `b`, for all i.
bool InStep(const Facts& a, const Facts& b) {
  for (size_t k = 0; k < a.shape.size(); ++k) {
    if (a.shape[k] > 1 && a.strides[k] != b.strides[k]) return false;
  }
  return true;
}

bool InArena(const Facts& f, const unsigned char* arena, size_t bytes) {
  if (f.n == 0) return true;  // nothing is read or written
  const Int begin = static_cast<Int>(reinterpret_cast<uintptr_t>(arena));
  return f.base + f.lo >= begin && f.base + f.hi + static_cast<Int>(f.elem) <=
                                       begin + static_cast<Int>(bytes);
}

bool IsRunnableTarget(const std::string& name) {
  for (size_t i = 0; i < lrelu_cpu_target_count(); ++i) {
    if (name == lrelu_cpu_target_name(i)) return true;
  }
  return false;
}

// Options: the fields the caller's struct_size covers; the rest default.
void CheckOptions(const ApiCase& c, bool problem_ok, bool dense, int64_t n,
                  Verdict* v) {
  if (c.null_options) return;
  if (c.struct_size < offsetof(lrelu_options_t, threads) + sizeof(size_t) ||
      c.struct_size > LRELU_OPTIONS_MAX_STRUCT_SIZE) {
    v->required.insert(LRELU_STATUS_INVALID_ARGUMENT);
    return;
  }
  auto covers = [&](size_t offset, size_t size) {
    return c.struct_size >= offset + size;
  };
  // A size that ends inside a field is no struct's size (half a pointer).
  const std::pair<size_t, size_t> fields[] = {
      {offsetof(lrelu_options_t, threads), sizeof(size_t)},
      {offsetof(lrelu_options_t, thread_pool), sizeof(void*)},
      {offsetof(lrelu_options_t, variant), sizeof(void*)},
      {offsetof(lrelu_options_t, cpu_target), sizeof(void*)},
      {offsetof(lrelu_options_t, backend), sizeof(int)},
      {offsetof(lrelu_options_t, stream), sizeof(void*)},
      {offsetof(lrelu_options_t, device), sizeof(int32_t)}};
  for (const auto& [offset, size] : fields) {
    if (c.struct_size > offset && c.struct_size < offset + size) {
      v->required.insert(LRELU_STATUS_INVALID_ARGUMENT);
      return;
    }
  }
  const bool has_pool =
      covers(offsetof(lrelu_options_t, thread_pool), sizeof(void*));
  const bool has_variant =
      covers(offsetof(lrelu_options_t, variant), sizeof(void*));
  const bool has_target =
      covers(offsetof(lrelu_options_t, cpu_target), sizeof(void*));
  const bool has_backend =
      covers(offsetof(lrelu_options_t, backend), sizeof(int));
  const bool has_device =
      covers(offsetof(lrelu_options_t, device), sizeof(int32_t));
  // OpenCL where PoCL (or another platform) gives it a device; every other
  // backend is unavailable to this fuzzer.
  const bool opencl = has_backend && c.backend == LRELU_BACKEND_OPENCL &&
                      lrelu_backend_available(LRELU_BACKEND_OPENCL) != 0;
  if (has_backend && c.backend != LRELU_BACKEND_CPU && !opencl) {
    v->required.insert(LRELU_STATUS_BACKEND_UNAVAILABLE);
  }
  if (opencl && has_device &&
      c.device >= lrelu_device_count(LRELU_BACKEND_OPENCL)) {
    v->required.insert(LRELU_STATUS_INVALID_ARGUMENT);
  }
  if (has_device && c.device < 0)
    v->required.insert(LRELU_STATUS_INVALID_ARGUMENT);
  // The CPU backend has one device, 0.
  if (has_device && c.device != 0 &&
      (!has_backend || c.backend == LRELU_BACKEND_CPU)) {
    v->required.insert(LRELU_STATUS_INVALID_ARGUMENT);
  }
  if (has_pool &&
      (c.pool == PoolKind::kNoFunction || c.pool == PoolKind::kNoConcurrency)) {
    v->required.insert(LRELU_STATUS_INVALID_ARGUMENT);
  }
  // A device runs no SIMD target: the name is not looked at there.
  if (!opencl && has_target && c.has_cpu_target && !c.cpu_target.empty() &&
      !IsRunnableTarget(c.cpu_target)) {
    v->required.insert(LRELU_STATUS_UNSUPPORTED_VARIANT);
  }
  if (opencl) {
    // lrelu.h: a device's variants are vec4 and scalar; every operand one
    // dense run.
    const std::string& name = c.variant;
    if (has_variant && c.has_variant && name != "" && name != "auto" &&
        name != "vec4" && name != "scalar") {
      v->required.insert(LRELU_STATUS_INVALID_ARGUMENT);
    }
    if (problem_ok && n > 0 && !dense) {
      v->required.insert(LRELU_STATUS_UNSUPPORTED_VARIANT);
    }
  } else if (has_variant && c.has_variant) {
    const std::string& name = c.variant;
    if (name != "" && name != "auto" && name != "reference" &&
        name != "contiguous" && name != "strided") {
      v->required.insert(LRELU_STATUS_INVALID_ARGUMENT);
    } else if (name == "contiguous" && problem_ok && n > 0 && !dense) {
      v->required.insert(LRELU_STATUS_UNSUPPORTED_VARIANT);
    }
  }
}

}  // namespace

const char* BestTarget() { return lrelu_cpu_target_name(0); }

Verdict Predict(const ApiCase& c,
                const std::vector<const lrelu_tensor_t*>& tensors,
                const unsigned char* arena, size_t arena_bytes) {
  Verdict v;
  if (c.two_stage && c.null_workspace_size) {
    v.required.insert(LRELU_STATUS_INVALID_ARGUMENT);
  }
  if (c.backward && c.source != LRELU_GRAD_FROM_X &&
      c.source != LRELU_GRAD_FROM_Y) {
    v.required.insert(LRELU_STATUS_INVALID_ARGUMENT);
  }
  std::vector<Facts> facts;
  bool all_ok = true;
  for (const lrelu_tensor_t* t : tensors) {
    facts.push_back(Examine(t));
    if (facts.back().status != LRELU_STATUS_OK) {
      v.required.insert(facts.back().status);
      all_ok = false;
    }
  }
  const size_t out = tensors.size() - 1;
  if (all_ok) {
    for (size_t i = 0; i < out; ++i) {
      all_ok = SameKind(tensors[i], tensors[out], &v) && all_ok;
    }
  }
  if (c.backward && c.source == LRELU_GRAD_FROM_Y && !(c.alpha > 0)) {
    v.required.insert(LRELU_STATUS_INVALID_ALPHA);
  }
  const int64_t n = all_ok ? facts[out].n : 0;
  bool in_arena = true;
  for (const Facts& f : facts) {
    in_arena = in_arena && f.status == LRELU_STATUS_OK &&
               InArena(f, arena, arena_bytes);
  }
  bool undecided = false;
  bool dense = true;
  if (all_ok && n > 0) {
    for (const Facts& f : facts) v.elements.push_back(Enumerate(f));
    const Facts& fo = facts[out];
    const Elements& eo = v.elements[out];
    // The output must not write an element twice.
    if (!PassesStrideChain(fo)) v.permitted.insert(LRELU_STATUS_OVERLAP);
    if (eo.known) {
      std::vector<int64_t> sorted = eo.offsets;
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
        v.required.insert(LRELU_STATUS_OVERLAP);
      }
    } else if (!PassesStrideChain(fo)) {
      undecided = true;  // may or may not write an element twice
    }
    dense = DenseRun(fo);
    // Each input shares no byte with the output, or is the same view.
    for (size_t i = 0; i < out; ++i) {
      const Facts& fi = facts[i];
      if (SameView(fi, fo)) continue;
      const Int elem = static_cast<Int>(fo.elem);
      const bool ranges_meet = !(fo.base + fo.hi + elem <= fi.base + fi.lo ||
                                 fi.base + fi.hi + elem <= fo.base + fo.lo);
      if (!ranges_meet) continue;
      v.permitted.insert(LRELU_STATUS_OVERLAP);
      if (eo.known && v.elements[i].known) {
        if (ShareBytes(fo, eo, fi, v.elements[i])) {
          v.required.insert(LRELU_STATUS_OVERLAP);
        }
      } else {
        undecided = true;
      }
    }
    // Dense: one run in the output, every input in step with it.
    for (size_t i = 0; i < out && dense; ++i) dense = InStep(facts[i], fo);
  }
  CheckOptions(c, all_ok, dense, n, &v);
  v.dense = dense;
  v.n = n;
  v.elem = all_ok ? facts[out].elem : 0;
  // A call that may be accepted runs only inside the arena (and decided).
  // One the model refuses but that reaches outside the arena is only
  // planned, never executed: planning reads no tensor data, so a library
  // that wrongly accepts it is reported, not run over foreign memory.
  bool enumerated = true;  // CheckResult walks every element
  for (const Elements& e : v.elements) enumerated = enumerated && e.known;
  v.callable = in_arena && !undecided && enumerated;
  v.plan_only = !v.callable && !v.required.empty();
  return v;
}

}  // namespace lrelu::fuzz
