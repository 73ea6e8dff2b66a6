// Fuzz target (d): PReLU's C ABI (lrelu_prelu, lrelu_prelu_backward and
// their two-stage forms). Each input decodes to one call on tensors inside
// one arena: random rank, shape, strides and dtypes, an alpha that mostly
// broadcasts to x (a suffix of x's shape with some extents 1) and sometimes
// not, outputs that alias the inputs or each other, options, the CPU or
// OpenCL (PoCL here), and for two-stage calls sometimes
// lrelu_executor_bind to other places before executing (Bind below).
// Without a model of every refusal, the call must
//   - refuse with a status below INTERNAL, a one-line message and no byte
//     of the arena changed, where lrelu.h says the call is invalid: a bad
//     dtype, a negative rank or extent, a size that overflows, NULL data,
//     shapes or dtypes that do not match, alpha that does not broadcast,
//     an output element written twice, y or dx sharing memory with alpha,
//     or with x or dy other than as the same view;
//   - accept every plain call: dense tensors inside the arena, apart from
//     one another (y may be x, dx may be dy), alpha broadcastable, default
//     options (or a thread count, a caller's pool, "reference", a target);
//   - when it accepts, give every output element the oracle's bits:
//     reference::Apply with the element's alpha for y and dx (any NaN where
//     the product makes one), the GMP oracle (tests/prelu/exact_oracle.h)
//     for dalpha; and change no other byte of the arena.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "api_case.h"
#include "byte_reader.h"
#include "lrelu/lrelu.h"
#include "prelu/exact_oracle.h"
#include "reference/reference.h"

namespace lrelu::fuzz {
namespace {

// What the inputs did, printed at exit when LRELU_FUZZ_STATS is set: a
// check that the decoding reaches accepted and refused calls alike.
struct Stats {
  size_t skipped = 0, accepted = 0, refused = 0, elements = 0, on_device = 0;
  size_t bound = 0, bind_refused = 0;
  ~Stats() {
    if (std::getenv("LRELU_FUZZ_STATS") != nullptr) {
      std::fprintf(stderr,
                   "prelu_fuzzer: %zu accepted (%zu elements, %zu calls on "
                   "OpenCL), %zu refused, %zu not called; executors bound "
                   "elsewhere %zu, binds refused %zu\n",
                   accepted, elements, on_device, refused, skipped, bound,
                   bind_refused);
    }
  }
};
Stats stats;

// The call being checked, for Abort's report.
std::string call;

[[noreturn]] void Abort(const std::string& what) {
  std::fprintf(stderr, "prelu_fuzzer: %s\n%s", what.c_str(), call.c_str());
  std::abort();
}

// The tensors of a call, in argument order.
enum Role { kX, kAlpha, kY, kDy, kDx, kDalpha, kRoles };

struct PreluCase {
  bool backward = false;
  bool two_stage = false;
  size_t arena_bytes = 0;
  uint64_t fill_seed = 0;
  TensorSpec tensor[kRoles];
  bool given[kRoles] = {};  // passed to the call (else not an argument)
  bool null_options = true;
  size_t threads = 0;
  PoolKind pool = PoolKind::kNone;
  size_t pool_concurrency = 1;
  const char* variant = nullptr;
  const char* cpu_target = nullptr;
  bool bad_target = false;
  lrelu_backend_t backend = LRELU_BACKEND_CPU;
  int32_t device = 0;
  // Two-stage: lrelu_executor_bind to other places in the arena before
  // executing (the same layouts; an output where it was planned in place
  // mostly stays on its input), a pointer NULL, or a wrong count.
  bool bind = false;
  size_t bind_offset[kRoles] = {};
  bool bind_null[kRoles] = {};
  size_t bind_count_error = 0;  // added to the right count
};

// alpha for x: mostly a suffix of x's shape with some extents 1 (per
// channel, per element, a scalar), x's dtype or float64; sometimes any
// tensor at all.
TensorSpec DecodeAlphaTensor(ByteReader& in, const TensorSpec& x,
                             size_t arena_bytes) {
  if (in.Chance(8)) return DecodeTensor(in, false, arena_bytes);
  TensorSpec a;
  a.null_tensor = in.Chance(64);
  const uint32_t pick = in.Below(8);
  a.dtype = pick == 0  ? DecodeDType(in)
            : pick < 3 ? LRELU_DTYPE_FLOAT64
                       : x.dtype;
  const int32_t rank_x = std::max<int32_t>(0, std::min<int32_t>(x.rank, 8));
  a.rank = static_cast<int32_t>(in.Below(static_cast<uint32_t>(rank_x) + 1));
  if (in.Chance(16)) ++a.rank;  // one more than x has: no broadcast
  for (int32_t k = 0; k < a.rank; ++k) {
    const int32_t xk = rank_x - a.rank + k;
    const int64_t extent =
        xk >= 0 && static_cast<size_t>(xk) < x.shape.size() ? x.shape[xk] : 1;
    a.shape.push_back(in.Chance(2)    ? 1
                      : in.Chance(16) ? DecodeDim(in)
                                      : extent);
  }
  a.null_shape = a.rank > 0 && in.Chance(64);
  a.null_strides = !in.Chance(3);
  if (!a.null_strides) {
    for (int32_t k = 0; k < a.rank; ++k) a.strides.push_back(DecodeStride(in));
  }
  a.null_data = in.Chance(64);
  a.offset = static_cast<size_t>(in.Bytes(3) % arena_bytes);
  return a;
}

PreluCase DecodePreluCase(ByteReader& in) {
  PreluCase c;
  const uint8_t flags = in.U8();
  c.backward = (flags & 1) != 0;
  c.two_stage = (flags & 2) != 0;
  c.null_options = (flags & 4) == 0;
  c.arena_bytes = 64 + in.Bytes(2) % 8192;
  c.fill_seed = in.Bytes(4);
  TensorSpec& x = c.tensor[kX];
  x = DecodeTensor(in, false, c.arena_bytes);
  c.tensor[kAlpha] = DecodeAlphaTensor(in, x, c.arena_bytes);
  c.given[kX] = c.given[kAlpha] = true;
  if (!c.backward) {
    c.tensor[kY] = DecodeRelated(in, x, false, c.arena_bytes);
    c.given[kY] = true;
  } else {
    c.tensor[kDy] = DecodeRelated(in, x, false, c.arena_bytes);
    c.given[kDy] = true;
    // dx mostly dy itself or elsewhere, dalpha alpha's shape elsewhere;
    // either may be left out (NULL), both rarely.
    c.given[kDx] = !in.Chance(4);
    c.given[kDalpha] = !in.Chance(3);
    if (!c.given[kDx] && !c.given[kDalpha] && !in.Chance(8)) {
      c.given[kDalpha] = true;
    }
    c.tensor[kDx] = DecodeRelated(in, c.tensor[kDy], false, c.arena_bytes);
    TensorSpec& da = c.tensor[kDalpha];
    da = c.tensor[kAlpha];
    da.null_tensor = in.Chance(64);
    if (in.Chance(4)) {
      da = DecodeRelated(in, c.tensor[kAlpha], false, c.arena_bytes);
    } else {
      da.null_strides = true;
      da.strides.clear();
      da.offset = static_cast<size_t>(in.Bytes(3) % c.arena_bytes);
    }
  }
  if (!c.null_options) {
    const uint8_t t = in.U8();
    c.threads = t < 240 ? t % 5 : 1000;
    c.pool = DecodePool(in);
    if (c.pool == PoolKind::kNoFunction || c.pool == PoolKind::kNoConcurrency) {
      c.pool = PoolKind::kNone;
    }
    c.pool_concurrency = 1 + in.Below(4);
    const char* variants[] = {"auto", "reference", "contiguous", "strided",
                              "bogus"};
    const uint32_t v = in.Below(10);
    if (v >= 5) c.variant = variants[v - 5];
    const uint32_t target = in.Below(8);
    if (target == 5) c.bad_target = true;
    if (target >= 6) {
      c.cpu_target = lrelu_cpu_target_name(in.U8() % lrelu_cpu_target_count());
    }
  }
  // The backend comes last, so that the inputs from before it decode as
  // they did (past the end every byte is 0: the CPU). OpenCL (PoCL on the
  // CPU here) with its variants and device indices, some out of range.
  const uint8_t backend = in.U8();
  if (backend >= 128) {
    c.backend = LRELU_BACKEND_OPENCL;
    c.device = backend < 248 ? 0 : backend == 255 ? -1 : backend - 247;
    const uint32_t v = in.Below(8);
    if (v >= 4) {
      const char* variants[] = {nullptr, "auto", "scalar", "vec4"};
      c.variant = variants[v - 4];
    }
  }
  // Binding comes after the backend, for the same reason.
  c.bind = c.two_stage && in.U8() >= 128;
  if (c.bind) {
    for (int r = 0; r < kRoles; ++r) {
      const uint32_t how = in.Below(8);
      c.bind_offset[r] = how < 2 ? c.tensor[r].offset  // where it was
                         : how < 6
                             ? static_cast<size_t>(in.Bytes(3) % c.arena_bytes)
                             : c.tensor[r].offset + how - 5;  // shifted
      c.bind_null[r] = in.Chance(64);
    }
    // Mostly in place again where it was planned in place.
    const Role out = c.backward ? kDx : kY, in_role = c.backward ? kDy : kX;
    if (c.tensor[out].offset == c.tensor[in_role].offset && !in.Chance(4)) {
      c.bind_offset[out] = c.bind_offset[in_role];
    }
    c.bind_count_error = in.Chance(32) ? 1 + in.Below(3) : 0;
  }
  return c;
}

bool ValidDType(int d) { return d >= 1 && d <= 4; }

// What a tensor argument is, worked out here from lrelu.h alone.
enum class Kind {
  kInvalid,   // a bad dtype, negative rank or extent, NULL shape: refused
  kOverflow,  // its size or reach overflows: must be refused
  kNullData,  // NULL data, not empty: must be refused
  kEmpty,     // no elements
  kInside,    // every element inside the arena: enumerated
  kOutside,   // reaches outside the arena: the call is not made
};

constexpr int64_t kMaxElements = int64_t{1} << 14;

struct Shape {
  Kind kind = Kind::kInvalid;
  std::vector<int64_t> shape;
  int64_t n = 0;
  size_t elem = 0;
  std::vector<size_t> at;  // byte offset in the arena of each element, C order
};

// t (decoded as s) against the arena: its kind, and where it is inside the
// arena its elements' byte offsets.
Shape Classify(const TensorSpec& s, const lrelu_tensor_t& t, size_t arena_bytes,
               const unsigned char* arena) {
  Shape r;
  if (!ValidDType(s.dtype) || s.rank < 0 || (s.rank > 0 && s.null_shape)) {
    return r;
  }
  r.elem = lrelu_dtype_size(static_cast<lrelu_dtype_t>(s.dtype));
  r.shape = s.shape;
  __int128 n = 1;
  for (int64_t d : s.shape) {
    if (d < 0) return r;
    n *= d;
    if (n > (__int128{1} << 62)) n = __int128{1} << 62;
  }
  if (n == 0) {
    r.kind = Kind::kEmpty;
    return r;
  }
  if (n * static_cast<__int128>(r.elem) > std::numeric_limits<int64_t>::max()) {
    r.kind = Kind::kOverflow;
    return r;
  }
  // Reach in bytes from data: the lowest and highest element.
  __int128 low = 0, high = 0;
  const int64_t rank = s.rank;
  std::vector<int64_t> strides(static_cast<size_t>(rank));
  int64_t step = 1;
  for (int64_t k = rank - 1; k >= 0; --k) {
    strides[static_cast<size_t>(k)] =
        s.null_strides ? step : s.strides[static_cast<size_t>(k)];
    step = s.shape[static_cast<size_t>(k)] > 0
               ? static_cast<int64_t>(std::min<__int128>(
                     __int128{step} * s.shape[static_cast<size_t>(k)],
                     std::numeric_limits<int64_t>::max() / 2))
               : step;
  }
  for (int64_t k = 0; k < rank; ++k) {
    const __int128 span = __int128{strides[static_cast<size_t>(k)]} *
                          (s.shape[static_cast<size_t>(k)] - 1) *
                          static_cast<__int128>(r.elem);
    (span < 0 ? low : high) += span;
  }
  const __int128 limit = std::numeric_limits<int64_t>::max();
  if (high > limit || low < -limit) {
    r.kind = Kind::kOverflow;
    return r;
  }
  if (t.data == nullptr) {
    r.kind = Kind::kNullData;
    return r;
  }
  const auto base =
      static_cast<__int128>(static_cast<const unsigned char*>(t.data) - arena);
  if (base + low < 0 ||
      base + high + static_cast<__int128>(r.elem) >
          static_cast<__int128>(arena_bytes) ||
      n > kMaxElements) {
    r.kind = Kind::kOutside;
    return r;
  }
  r.kind = Kind::kInside;
  r.n = static_cast<int64_t>(n);
  r.at.reserve(static_cast<size_t>(n));
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t i = 0; i < r.n; ++i) {
    __int128 offset = base;
    for (int64_t k = 0; k < rank; ++k) {
      offset += __int128{index[static_cast<size_t>(k)]} *
                strides[static_cast<size_t>(k)] * static_cast<__int128>(r.elem);
    }
    r.at.push_back(static_cast<size_t>(offset));
    for (int64_t k = rank - 1; k >= 0; --k) {
      if (++index[static_cast<size_t>(k)] < s.shape[static_cast<size_t>(k)]) {
        break;
      }
      index[static_cast<size_t>(k)] = 0;
    }
  }
  return r;
}

// alpha's element (C order) for each of x's, by ONNX's unidirectional rule
// (into *of unless it is NULL); false where alpha does not broadcast to x.
bool Broadcast(const std::vector<int64_t>& x, const std::vector<int64_t>& a,
               std::vector<int64_t>* of) {
  if (a.size() > x.size()) return false;
  const size_t lead = x.size() - a.size();
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k] != 1 && a[k] != x[lead + k]) return false;
  }
  if (of == nullptr) return true;
  int64_t n = 1;
  for (int64_t d : x) n *= d;
  of->assign(static_cast<size_t>(n), 0);
  std::vector<int64_t> index(x.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t j = 0;
    for (size_t k = 0; k < a.size(); ++k) {
      j = j * a[k] + (a[k] == 1 ? 0 : index[lead + k]);
    }
    (*of)[static_cast<size_t>(i)] = j;
    for (size_t k = x.size(); k-- > 0;) {
      if (++index[k] < x[k]) break;
      index[k] = 0;
    }
  }
  return true;
}

uint64_t Load(const unsigned char* p, size_t elem) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, elem);
  return bits;
}

// Whether two tensors share a byte.
bool Overlap(const Shape& a, const Shape& b) {
  if (a.kind != Kind::kInside || b.kind != Kind::kInside) return false;
  std::vector<size_t> p = a.at, q = b.at;
  std::sort(p.begin(), p.end());
  std::sort(q.begin(), q.end());
  for (size_t i = 0, j = 0; i < p.size() && j < q.size();) {
    if (p[i] + a.elem <= q[j]) {
      ++i;
    } else if (q[j] + b.elem <= p[i]) {
      ++j;
    } else {
      return true;
    }
  }
  return false;
}

bool Dense(const TensorSpec& s) { return s.null_strides; }

// Whether a tensor inside the arena is one dense run in some order: what a
// device backend needs of x and y (lrelu.h).
bool DenseRun(const Shape& s) {
  std::vector<size_t> p = s.at;
  std::sort(p.begin(), p.end());
  for (size_t i = 1; i < p.size(); ++i) {
    if (p[i] != p[i - 1] + s.elem) return false;
  }
  return true;
}

// The pairs whose relation planning checks and lrelu_executor_bind must
// keep (lrelu.h): y or dx with x and dy (the same view, in place, or apart),
// with alpha (apart), and dalpha with dx (apart).
struct Pair {
  Role out, other;
  bool may_be_same;
};
constexpr Pair kPairs[] = {{kY, kX, true},       {kY, kAlpha, false},
                           {kDx, kDy, true},     {kDx, kX, true},
                           {kDx, kAlpha, false}, {kDalpha, kDx, false}};

bool SameView(const Shape& a, const Shape& b) {
  return a.kind == Kind::kInside && b.kind == Kind::kInside &&
         a.elem == b.elem && a.at == b.at;
}

// Whether the byte ranges (lowest to highest byte) of two tensors are apart:
// what a conservative check may still refuse short of.
bool RangesApart(const Shape& a, const Shape& b) {
  if (a.kind != Kind::kInside || b.kind != Kind::kInside) return true;
  const auto [a_lo, a_hi] = std::minmax_element(a.at.begin(), a.at.end());
  const auto [b_lo, b_hi] = std::minmax_element(b.at.begin(), b.at.end());
  return *a_hi + a.elem <= *b_lo || *b_hi + b.elem <= *a_lo;
}

struct CallerPool {
  bool reverse = false;
  static void ParallelFor(void* context, lrelu_task_fn task, void* task_context,
                          size_t count) {
    const auto* self = static_cast<const CallerPool*>(context);
    for (size_t i = 0; i < count; ++i) {
      task(task_context, self->reverse ? count - 1 - i : i);
    }
  }
};

// lrelu_executor_bind to the tensors at c.bind_offset: it must refuse
// what lrelu.h says it checks (a wrong count, a pointer for an output the
// plan was made without, NULL data with elements, a pair's relation not
// kept) with a clear status and no byte changed, and must accept a plain
// rebinding (every pointer given, inside the arena, in place again where
// planned so, byte ranges apart elsewhere). Accepted: t and shape become
// the new tensors, which the caller then checks against the oracle;
// refused: the executor keeps its pointers, so they stay.
void Bind(const PreluCase& c, lrelu_executor_t* e,
          const std::vector<unsigned char>& arena,
          const std::vector<unsigned char>& before,
          const lrelu_tensor_t* const* arg, lrelu_tensor_t* t, Shape* shape) {
  lrelu_tensor_t bound[kRoles] = {};
  Shape bound_shape[kRoles];
  void* data[kRoles] = {};
  std::string must_refuse;
  const auto refuse = [&](const std::string& why) {
    if (must_refuse.empty()) must_refuse = why;
  };
  bool plain = true;
  const Role forward[] = {kX, kAlpha, kY};  // the stage-one call's order
  const Role backward[] = {kDy, kX, kAlpha, kDx, kDalpha};
  const size_t roles = c.backward ? 5 : 3;
  for (size_t i = 0; i < roles; ++i) {
    const Role r = c.backward ? backward[i] : forward[i];
    const bool given = arg[r] != nullptr;
    const bool passes = given ? !c.bind_null[r] : c.bind_null[r];
    if (passes) {
      data[r] = const_cast<unsigned char*>(arena.data()) + c.bind_offset[r];
    }
    if (!given) {
      if (passes) refuse("a pointer for a tensor the plan was made without");
      continue;
    }
    if (!passes) {
      if (shape[r].kind != Kind::kEmpty) refuse("NULL data");
      plain = false;
    }
    // NULL data keeps the layout (an empty tensor stays one).
    bound[r] = t[r];
    bound[r].data = data[r];
    bound_shape[r] =
        Classify(c.tensor[r], bound[r], arena.size(), arena.data());
    // Not inside the arena: the call is not made (the caller's bug).
    if (bound_shape[r].kind == Kind::kOutside) return;
  }
  for (const Pair& pair : kPairs) {
    if (arg[pair.out] == nullptr || arg[pair.other] == nullptr ||
        data[pair.out] == nullptr || data[pair.other] == nullptr) {
      continue;
    }
    const Shape &out = bound_shape[pair.out], &other = bound_shape[pair.other];
    if (pair.may_be_same && SameView(shape[pair.out], shape[pair.other])) {
      if (!SameView(out, other)) refuse("in place no longer");
    } else {
      if (Overlap(out, other)) refuse("a pair planned apart shares memory");
      plain = plain && RangesApart(out, other);
    }
  }
  const size_t count = roles + c.bind_count_error;
  if (c.bind_count_error != 0) refuse("a wrong count");
  plain = plain && must_refuse.empty();
  void* order[8] = {};
  for (size_t i = 0; i < roles; ++i) {
    order[i] = data[c.backward ? backward[i] : forward[i]];
  }
  const int status = lrelu_executor_bind(e, order, count);
  if (status != LRELU_STATUS_OK) {
    const std::string message = lrelu_last_error();
    const std::string fault = RefusalFault("bind", status, arena, before);
    if (!fault.empty()) Abort(fault);
    if (plain) Abort("bind refused a plain rebinding: " + message);
    stats.bind_refused++;
    if (std::getenv("LRELU_FUZZ_DUMP") != nullptr) {
      std::fprintf(stderr, "bind refused: %s\n", message.c_str());
    }
    return;
  }
  if (!must_refuse.empty()) {
    Abort("bind accepted what lrelu.h says it refuses: " + must_refuse);
  }
  for (int r = 0; r < kRoles; ++r) {
    if (arg[r] == nullptr) continue;
    t[r] = bound[r];
    shape[r] = bound_shape[r];
  }
  call += "  bound to new places\n";
  stats.bound++;
}

int Run(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  PreluCase c = DecodePreluCase(in);
  call = std::string(c.backward ? "backward" : "forward") +
         (c.two_stage ? ", two-stage" : "") + ", arena " +
         std::to_string(c.arena_bytes) + ", backend " +
         lrelu_backend_name(c.backend) + " device " + std::to_string(c.device) +
         ", variant " + (c.variant != nullptr ? c.variant : "(none)") + "\n";
  std::vector<unsigned char> arena(c.arena_bytes);
  FillArena(arena, c.fill_seed);

  lrelu_tensor_t t[kRoles] = {};
  const lrelu_tensor_t* arg[kRoles] = {};
  Shape shape[kRoles];
  for (int r = 0; r < kRoles; ++r) {
    TensorSpec& s = c.tensor[r];
    if (!c.given[r] || s.null_tensor) continue;
    if (!s.null_strides) s.strides.resize(s.shape.size(), 1);
    t[r].data = s.null_data ? nullptr : arena.data() + s.offset;
    t[r].dtype = static_cast<lrelu_dtype_t>(s.dtype);
    t[r].rank = s.rank;
    t[r].shape = s.null_shape ? nullptr : s.shape.data();
    t[r].strides = s.null_strides ? nullptr : s.strides.data();
    arg[r] = &t[r];
    shape[r] = Classify(s, t[r], arena.size(), arena.data());
    const char* names[] = {"x", "alpha", "y", "dy", "dx", "dalpha"};
    call += std::string("  ") + names[r] + ": dtype " +
            std::to_string(s.dtype) + " rank " + std::to_string(s.rank) +
            " shape [";
    for (int64_t d : s.shape) call += std::to_string(d) + ",";
    call += "] strides [";
    for (int64_t d : s.strides) call += std::to_string(d) + ",";
    call += "] offset " + std::to_string(s.offset) +
            (s.null_data ? " NULL data" : "") +
            (s.null_shape ? " NULL shape" : "") + " kind " +
            std::to_string(static_cast<int>(shape[r].kind)) + "\n";
    if (shape[r].kind == Kind::kOutside) {
      stats.skipped++;
      return 0;
    }
  }

  // Must the call be refused? Only what lrelu.h states plainly.
  const Role out_first = c.backward ? kDx : kY;
  const Role in_first = c.backward ? kDy : kX;
  std::string must_refuse;  // why the call must be refused, if it must
  const auto refuse = [&](const std::string& why) {
    if (must_refuse.empty()) must_refuse = why;
  };
  for (int r = 0; r < kRoles; ++r) {
    if (!c.given[r]) continue;
    if (arg[r] == nullptr) {
      // NULL x, alpha, y or dy; dx and dalpha may be NULL, not both.
      if (r != kDx && r != kDalpha) refuse("a NULL tensor");
      continue;
    }
    const Kind k = shape[r].kind;
    if (k == Kind::kInvalid) refuse("a bad dtype, rank or extent");
    if (k == Kind::kOverflow) refuse("a size that overflows");
    if (k == Kind::kNullData) refuse("NULL data");
  }
  if (c.backward && arg[kDx] == nullptr && arg[kDalpha] == nullptr) {
    refuse("neither dx nor dalpha");
  }
  const auto valid = [&](int r) {
    return arg[r] != nullptr && shape[r].kind != Kind::kInvalid &&
           shape[r].kind != Kind::kOverflow;
  };
  const auto same = [&](int a, int b) {
    return t[a].dtype == t[b].dtype && shape[a].shape == shape[b].shape;
  };
  std::vector<int64_t> alpha_of;
  bool broadcasts = false;
  if (valid(kX) && valid(kAlpha)) {
    const lrelu_dtype_t xd = t[kX].dtype, ad = t[kAlpha].dtype;
    const bool alpha_dtype =
        ad == xd || (ad == LRELU_DTYPE_FLOAT64 && xd != LRELU_DTYPE_FLOAT64);
    const bool listed = shape[kX].kind == Kind::kInside;
    broadcasts = Broadcast(shape[kX].shape, shape[kAlpha].shape,
                           listed ? &alpha_of : nullptr);
    if (!alpha_dtype) refuse("alpha's dtype");
    if (!broadcasts) refuse("alpha does not broadcast");
  }
  for (int r : {kY, kDy, kDx}) {
    if (valid(r) && valid(kX) && !same(r, kX)) refuse("a dtype or shape");
  }
  if (valid(kDalpha) && valid(kAlpha) && !same(kDalpha, kAlpha)) {
    refuse("dalpha's dtype or shape");
  }
  // An output that writes an element twice, or two outputs that share one.
  std::vector<size_t> written;
  for (int r : {kY, kDx, kDalpha}) {
    if (arg[r] == nullptr || shape[r].kind != Kind::kInside) continue;
    for (size_t p : shape[r].at) {
      for (size_t b = 0; b < shape[r].elem; ++b) written.push_back(p + b);
    }
  }
  std::sort(written.begin(), written.end());
  if (std::adjacent_find(written.begin(), written.end()) != written.end()) {
    refuse("an output element written twice");
  }
  // y and dx must not share memory with alpha, nor with x or dy unless they
  // are the same view (in place).
  const auto same_view = [&](int a, int b) {
    return shape[a].kind == Kind::kInside && shape[b].kind == Kind::kInside &&
           shape[a].elem == shape[b].elem && shape[a].at == shape[b].at;
  };
  for (int r : {kY, kDx}) {
    if (arg[r] == nullptr) continue;
    if (Overlap(shape[r], shape[kAlpha])) refuse("an output inside alpha");
    for (int input : {kX, kDy}) {
      if (arg[input] != nullptr && Overlap(shape[r], shape[input]) &&
          !same_view(r, input)) {
        refuse("an output partly over x or dy");
      }
    }
  }

  // A device backend: the forward pass only, alpha of x's dtype, x and y
  // dense, a device that exists (lrelu.h).
  const bool device = c.backend != LRELU_BACKEND_CPU;
  if (device) {
    if (c.backward) refuse("the gradient on a device backend");
    if (valid(kX) && valid(kAlpha) && t[kAlpha].dtype != t[kX].dtype) {
      refuse("alpha's dtype on a device backend");
    }
    for (int r : {kX, kY}) {
      if (arg[r] != nullptr && shape[r].kind == Kind::kInside &&
          !DenseRun(shape[r])) {
        refuse("a strided x or y on a device backend");
      }
    }
    if (c.device < 0 || c.device >= lrelu_device_count(c.backend)) {
      refuse("a device index out of range");
    }
  }

  // A plain call must be accepted. The variants each backend names: the
  // CPU's "reference", the devices' "scalar" (lrelu_backend_variant).
  const auto named = [&](const char* v) {
    return c.variant != nullptr && std::strcmp(c.variant, v) == 0;
  };
  bool plain = must_refuse.empty() && !c.bad_target && c.threads <= 4 &&
               (c.variant == nullptr || named("auto") ||
                named(device ? "scalar" : "reference")) &&
               (!device || (lrelu_backend_available(c.backend) != 0 &&
                            c.cpu_target == nullptr));
  for (int r = 0; r < kRoles && plain; ++r) {
    if (arg[r] == nullptr) continue;
    plain = Dense(c.tensor[r]) &&
            (shape[r].kind == Kind::kInside || shape[r].kind == Kind::kEmpty);
  }
  for (int a = 0; a < kRoles && plain; ++a) {
    for (int b = a + 1; b < kRoles && plain; ++b) {
      if (arg[a] == nullptr || arg[b] == nullptr) continue;
      const bool in_place =
          a == in_first && b == out_first && t[a].data == t[b].data;
      const bool inputs = a != kY && a != kDx && a != kDalpha && b != kY &&
                          b != kDx && b != kDalpha;
      if (!in_place && !inputs && Overlap(shape[a], shape[b])) plain = false;
    }
  }

  CallerPool pool_state;
  pool_state.reverse = c.pool == PoolKind::kReverse;
  lrelu_thread_pool_t pool{&CallerPool::ParallelFor, &pool_state,
                           c.pool_concurrency};
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.threads = c.threads;
  options.thread_pool = c.pool == PoolKind::kNone ? nullptr : &pool;
  options.variant = c.variant;
  options.cpu_target = c.bad_target ? "NOPE" : c.cpu_target;
  options.backend = c.backend;
  options.device = c.device;
  const lrelu_options_t* opts = c.null_options && !device ? nullptr : &options;

  // LRELU_FUZZ_DUMP: print each call (to read a crash input).
  if (std::getenv("LRELU_FUZZ_DUMP") != nullptr) {
    std::fprintf(stderr, "%s", call.c_str());
  }
  const std::vector<unsigned char> before = arena;
  int status;
  if (!c.two_stage) {
    status = c.backward ? lrelu_prelu_backward(arg[kDy], arg[kX], arg[kAlpha],
                                               arg[kDx], arg[kDalpha], opts)
                        : lrelu_prelu(arg[kX], arg[kAlpha], arg[kY], opts);
  } else {
    size_t workspace = 0;
    lrelu_executor_t* e = nullptr;
    status = c.backward
                 ? lrelu_prelu_backward_get_workspace_size(
                       arg[kDy], arg[kX], arg[kAlpha], arg[kDx], arg[kDalpha],
                       opts, &workspace, &e)
                 : lrelu_prelu_get_workspace_size(arg[kX], arg[kAlpha], arg[kY],
                                                  opts, &workspace, &e);
    if (status == LRELU_STATUS_OK) {
      if (e == nullptr) Abort("a plan without an executor");
      if (arena != before) Abort("planning touched tensor data");
      if (c.bind) Bind(c, e, arena, before, arg, t, shape);
      std::vector<unsigned char> space(workspace);
      status = lrelu_execute(space.data(), workspace, e, nullptr);
      lrelu_executor_destroy(e);
    } else if (e != nullptr) {
      Abort("a refused plan returned an executor");
    }
  }

  if (status != LRELU_STATUS_OK) {
    const std::string message = lrelu_last_error();
    const std::string fault = RefusalFault("call", status, arena, before);
    if (!fault.empty()) Abort(fault);
    if (plain) {
      Abort("refused a plain call (status " + std::to_string(status) +
            "): " + message);
    }
    stats.refused++;
    return 0;
  }
  if (!must_refuse.empty()) {
    Abort("accepted a call lrelu.h says it must refuse: " + must_refuse);
  }

  // Accepted: every output element against the oracle, from the bytes as
  // they were before the call.
  const lrelu_dtype_t dtype = t[kX].dtype;
  const size_t elem = shape[kX].elem;
  const int64_t n = shape[kX].kind == Kind::kInside ? shape[kX].n : 0;
  const auto alpha_value = [&](int64_t i) {
    const Shape& a = shape[kAlpha];
    const size_t at =
        a.at[static_cast<size_t>(alpha_of[static_cast<size_t>(i)])];
    return testing::ValueOf(t[kAlpha].dtype, Load(&before[at], a.elem));
  };
  const auto check = [&](const char* what, int64_t i, uint64_t s_bits,
                         uint64_t want, uint64_t got) {
    if (!reference::ElementMatches(dtype, s_bits, want, got)) {
      char line[200];
      std::snprintf(line, sizeof line,
                    "%s %s n=%lld element %lld: s %llx expected %llx got %llx",
                    what, lrelu_dtype_name(dtype), static_cast<long long>(n),
                    static_cast<long long>(i),
                    static_cast<unsigned long long>(s_bits),
                    static_cast<unsigned long long>(want),
                    static_cast<unsigned long long>(got));
      Abort(line);
    }
  };
  const Role out = c.backward ? kDx : kY;
  if (arg[out] != nullptr && n > 0) {
    for (int64_t i = 0; i < n; ++i) {
      const size_t xo = shape[kX].at[static_cast<size_t>(i)];
      const size_t vo = c.backward ? shape[kDy].at[static_cast<size_t>(i)] : xo;
      unsigned char want[8] = {};
      reference::Apply(dtype, &before[vo], &before[xo], want, 1,
                       alpha_value(i));
      check(c.backward ? "dx" : "y", i, Load(&before[xo], elem),
            Load(want, elem),
            Load(&arena[shape[out].at[static_cast<size_t>(i)]], elem));
    }
  }
  if (c.backward && arg[kDalpha] != nullptr &&
      shape[kDalpha].kind == Kind::kInside) {
    const Shape& da = shape[kDalpha];
    std::vector<std::vector<uint64_t>> xs(static_cast<size_t>(da.n)),
        dys(static_cast<size_t>(da.n));
    for (int64_t i = 0; i < n; ++i) {
      const auto j = static_cast<size_t>(alpha_of[static_cast<size_t>(i)]);
      xs[j].push_back(
          Load(&before[shape[kX].at[static_cast<size_t>(i)]], elem));
      dys[j].push_back(
          Load(&before[shape[kDy].at[static_cast<size_t>(i)]], elem));
    }
    for (int64_t j = 0; j < da.n; ++j) {
      const uint64_t want =
          testing::ExactDalpha(dtype, xs[static_cast<size_t>(j)],
                               dys[static_cast<size_t>(j)], t[kDalpha].dtype);
      const uint64_t got = Load(&arena[da.at[static_cast<size_t>(j)]], da.elem);
      if (got != want) {
        Abort("dalpha element " + std::to_string(j) + ": expected " +
              std::to_string(want) + " got " + std::to_string(got));
      }
    }
  }
  // The outputs' bytes where they are now (a bind may have moved them).
  std::vector<bool> is_output(arena.size(), false);
  for (int r : {kY, kDx, kDalpha}) {
    if (arg[r] == nullptr || shape[r].kind != Kind::kInside) continue;
    for (size_t p : shape[r].at) {
      for (size_t b = 0; b < shape[r].elem; ++b) is_output[p + b] = true;
    }
  }
  for (size_t b = 0; b < arena.size(); ++b) {
    if (!is_output[b] && arena[b] != before[b]) {
      Abort("byte " + std::to_string(b) + " outside the outputs changed");
    }
  }
  stats.accepted++;
  stats.elements += static_cast<size_t>(n);
  if (device) stats.on_device++;
  return 0;
}

}  // namespace
}  // namespace lrelu::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  lrelu::fuzz::StartOpenCl();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return lrelu::fuzz::Run(data, size);
}
