// Fuzz target (c): argument validation of the C ABI. Each input decodes to
// one forward or gradient call (api_case.h) on tensors inside one arena:
// random rank, shape, strides, dtype, alpha, aliasing and options, on the
// CPU or OpenCL (PoCL here), two-stage calls sometimes bound to other places
// with lrelu_executor_bind before executing (Bind below). An
// independent model (api_model.h) says what must be accepted; the call must
// agree, and then
//   accepted: every output element is bit-exact against reference::Apply
//     (any NaN where the product makes one) and no other byte changed;
//   refused: a status the model allows, a one-line message, and no byte of
//     the arena changed.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "api_case.h"
#include "api_model.h"
#include "byte_reader.h"
#include "lrelu/lrelu.h"
#include "reference/reference.h"

namespace lrelu::fuzz {
namespace {

// What the inputs did, printed at exit when LRELU_FUZZ_STATS is set: a
// check that the decoding reaches accepted and refused calls alike.
struct Stats {
  size_t skipped = 0, accepted = 0, refused = 0, conservative = 0;
  size_t elements = 0, on_device = 0, bound = 0, bind_refused = 0;
  ~Stats() {
    if (std::getenv("LRELU_FUZZ_STATS") != nullptr) {
      std::fprintf(stderr,
                   "api_fuzzer: %zu accepted (%zu elements, %zu calls on "
                   "OpenCL), %zu refused (%zu conservatively), %zu not "
                   "called; executors bound elsewhere %zu, binds refused "
                   "%zu\n",
                   accepted, elements, on_device, refused, conservative,
                   skipped, bound, bind_refused);
    }
  }
};
Stats stats;

// LRELU_FUZZ_TOLERATE_KNOWN_BUGS=1: let the bugs listed in docs/errors.md
// pass, so that a fuzzing run can look beyond them before they are fixed.
bool TolerateKnownBugs() {
  static const bool tolerate =
      std::getenv("LRELU_FUZZ_TOLERATE_KNOWN_BUGS") != nullptr;
  return tolerate;
}

[[noreturn]] void Abort(const std::string& what) {
  std::fprintf(stderr, "api_fuzzer: %s\n", what.c_str());
  std::abort();
}

// A caller's pool that runs the tasks on the calling thread, in order or
// backwards, and checks that lrelu never asks for more tasks than allowed.
struct CallerPool {
  bool reverse = false;
  size_t limit = 0;  // 0: no limit known
  static void ParallelFor(void* context, lrelu_task_fn task, void* task_context,
                          size_t count) {
    auto* self = static_cast<CallerPool*>(context);
    if (count == 0 || (self->limit != 0 && count > self->limit)) {
      Abort("a pool got " + std::to_string(count) + " tasks, limit " +
            std::to_string(self->limit));
    }
    for (size_t i = 0; i < count; ++i) {
      task(task_context, self->reverse ? count - 1 - i : i);
    }
  }
};

void NoopParallelFor(void*, lrelu_task_fn, void*, size_t) {
  Abort("a pool without concurrency was used");
}

void MakePool(PoolKind kind, size_t concurrency, size_t limit,
              CallerPool* state, lrelu_thread_pool_t* pool) {
  state->reverse = kind == PoolKind::kReverse;
  state->limit = limit;
  pool->parallel_for = &CallerPool::ParallelFor;
  pool->pool_context = state;
  pool->concurrency = concurrency;
  if (kind == PoolKind::kNoFunction) pool->parallel_for = nullptr;
  if (kind == PoolKind::kNoConcurrency) {
    pool->parallel_for = &NoopParallelFor;
    pool->concurrency = 0;
  }
}

// The dtype table's bit tests (src/reference/dtype_traits.h).
using reference::IsNaNBits;
using reference::IsNegativeBits;

uint64_t Load(const unsigned char* p, size_t elem) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, elem);
  return bits;
}

// The options as the model reads them: the fields struct_size covers.
struct Effective {
  std::string variant;  // "" = auto
  std::string target;   // "" = best
  size_t task_limit;
  bool device;  // a device backend (OpenCL)
};

Effective EffectiveOptions(const ApiCase& c) {
  Effective e{"", "", 0, false};
  size_t concurrency = lrelu_hardware_threads();
  size_t threads = 0;
  if (!c.null_options) {
    auto covers = [&](size_t offset, size_t size) {
      return c.struct_size >= offset + size;
    };
    threads = c.threads;
    if (covers(offsetof(lrelu_options_t, thread_pool), sizeof(void*)) &&
        c.pool != PoolKind::kNone) {
      concurrency = c.pool_concurrency;
    }
    if (covers(offsetof(lrelu_options_t, variant), sizeof(void*)) &&
        c.has_variant && c.variant != "auto") {
      e.variant = c.variant;
    }
    if (covers(offsetof(lrelu_options_t, cpu_target), sizeof(void*)) &&
        c.has_cpu_target) {
      e.target = c.cpu_target;
    }
    e.device = covers(offsetof(lrelu_options_t, backend), sizeof(int)) &&
               c.backend != LRELU_BACKEND_CPU;
  }
  e.task_limit = threads != 0 ? threads : concurrency;
  return e;
}

void CheckRefusal(int status, const Verdict& v,
                  const std::vector<unsigned char>& arena,
                  const std::vector<unsigned char>& before) {
  if (v.required.count(status) == 0 && v.permitted.count(status) == 0) {
    Abort("refused with status " + std::to_string(status) + " (" +
          lrelu_last_error() + "), which the model does not allow");
  }
  const std::string fault = RefusalFault("call", status, arena, before);
  if (!fault.empty()) Abort(fault);
}

void CheckResult(const ApiCase& c, const Verdict& v,
                 const std::vector<lrelu_tensor_t>& tensors,
                 const std::vector<unsigned char>& arena,
                 const std::vector<unsigned char>& before) {
  const size_t out = tensors.size() - 1;
  const size_t vi = 0;
  const size_t si = c.backward ? 1 : 0;
  const auto dtype = tensors[out].dtype;
  const size_t elem = v.elem;
  std::vector<bool> written(arena.size(), false);
  const auto offset_in_arena = [&](size_t t, int64_t i) {
    const auto* data = static_cast<const unsigned char*>(tensors[t].data);
    return static_cast<size_t>(data - arena.data()) +
           static_cast<size_t>(v.elements[t].offsets[static_cast<size_t>(i)] *
                               static_cast<int64_t>(elem));
  };
  for (int64_t i = 0; i < v.n; ++i) {
    const size_t vo = offset_in_arena(vi, i);
    const size_t so = offset_in_arena(si, i);
    const size_t oo = offset_in_arena(out, i);
    unsigned char expected[8] = {};
    reference::Apply(dtype, &before[vo], &before[so], expected, 1, c.alpha);
    const uint64_t want = Load(expected, elem);
    const uint64_t got = Load(&arena[oo], elem);
    const uint64_t s_bits = Load(&before[so], elem);
    const bool nan_ok = IsNegativeBits(dtype, s_bits) &&
                        IsNaNBits(dtype, want) && IsNaNBits(dtype, got);
    // Known bug (docs/errors.md): clang builds quiet signalling NaNs that
    // should pass through. Tolerated only when asked, to fuzz past it.
    const uint64_t quiet_bit = elem == 8   ? uint64_t{1} << 51
                               : elem == 4 ? uint64_t{1} << 22
                                           : 0;
    const bool known_bug = TolerateKnownBugs() && quiet_bit != 0 &&
                           IsNaNBits(dtype, want) && (want | quiet_bit) == got;
    if (got != want && !nan_ok && !known_bug) {
      const Effective eff = EffectiveOptions(c);
      char line[320];
      std::snprintf(line, sizeof line,
                    "%s %s n=%lld dense=%d variant='%s' target='%s' alpha=%a: "
                    "element %lld: v %llx s %llx expected %llx got %llx",
                    c.backward ? "backward" : "forward",
                    lrelu_dtype_name(dtype), static_cast<long long>(v.n),
                    v.dense ? 1 : 0, eff.variant.c_str(), eff.target.c_str(),
                    c.alpha, static_cast<long long>(i),
                    static_cast<unsigned long long>(Load(&before[vo], elem)),
                    static_cast<unsigned long long>(s_bits),
                    static_cast<unsigned long long>(want),
                    static_cast<unsigned long long>(got));
      Abort(line);
    }
    for (size_t b = 0; b < elem; ++b) written[oo + b] = true;
  }
  for (size_t b = 0; b < arena.size(); ++b) {
    if (!written[b] && arena[b] != before[b]) {
      Abort("byte " + std::to_string(b) + " outside the output changed");
    }
  }
}

void CheckExecutor(const ApiCase& c, const Verdict& v, lrelu_executor_t* e) {
  const Effective eff = EffectiveOptions(c);
  std::string variant = eff.variant;
  if (v.n == 0) {
    variant = "empty";
  } else if (eff.device) {
    variant = variant == "scalar" ? "scalar" : "vec4";
  } else if (variant.empty()) {
    variant = v.dense ? "contiguous" : "strided";
  }
  const char* got = lrelu_executor_variant(e);
  if (got == nullptr || variant != got) {
    Abort("executor variant " + std::string(got ? got : "NULL") +
          ", expected " + variant);
  }
  const std::string target = eff.device           ? ""
                             : eff.target.empty() ? BestTarget()
                                                  : eff.target;
  const char* got_target = lrelu_executor_cpu_target(e);
  if (got_target == nullptr || target != got_target) {
    Abort("executor target " + std::string(got_target ? got_target : "NULL"));
  }
  const size_t tasks = lrelu_executor_tasks(e);
  if (tasks == 0 || tasks > (eff.task_limit > 0 ? eff.task_limit : 1)) {
    Abort("executor plans " + std::to_string(tasks) + " tasks");
  }
}

// lrelu_executor_bind to the tensors at c.bind_offset (the same layouts):
// it must refuse what lrelu.h says it checks (a wrong count, NULL data with
// elements, an output no longer in place of the input it was planned in
// place of, or sharing memory with one it was planned apart from) with a
// clear status and no byte changed, and must accept a plain rebinding
// (every pointer given, in place again where planned so, byte ranges apart
// elsewhere). Accepted: the tensors point at their new places, where the
// caller checks the results; refused: the executor keeps its pointers.
void Bind(const ApiCase& c, const Verdict& v, lrelu_executor_t* e,
          const std::vector<unsigned char>& arena,
          std::vector<lrelu_tensor_t>& tensors) {
  const size_t count = tensors.size(), out = count - 1;
  std::vector<void*> data(count + 3, nullptr);
  // Each tensor's element bytes in the arena, as planned and as bound.
  std::vector<std::vector<size_t>> planned(count), bound(count);
  std::string must_refuse;
  const auto refuse = [&](const std::string& why) {
    if (must_refuse.empty()) must_refuse = why;
  };
  bool plain = true;
  for (size_t i = 0; i < count; ++i) {
    if (c.bind_null[i]) {
      if (v.n > 0) refuse("NULL data");
      plain = false;
      continue;
    }
    data[i] = const_cast<unsigned char*>(arena.data()) + c.bind_offset[i];
    if (v.n == 0) continue;
    const auto at = static_cast<size_t>(
        static_cast<const unsigned char*>(tensors[i].data) - arena.data());
    for (const int64_t o : v.elements[i].offsets) {
      const int64_t offset = o * static_cast<int64_t>(v.elem);
      const int64_t moved = static_cast<int64_t>(c.bind_offset[i]) + offset;
      // Outside the arena: the call is not made (the caller's bug).
      if (moved < 0 || static_cast<size_t>(moved) + v.elem > arena.size()) {
        return;
      }
      planned[i].push_back(
          static_cast<size_t>(static_cast<int64_t>(at) + offset));
      bound[i].push_back(static_cast<size_t>(moved));
    }
  }
  const auto bytes = [&](const std::vector<size_t>& elements) {
    std::vector<size_t> b;
    for (size_t p : elements) {
      for (size_t k = 0; k < v.elem; ++k) b.push_back(p + k);
    }
    std::sort(b.begin(), b.end());
    return b;
  };
  if (v.n > 0 && data[out] != nullptr) {
    const std::vector<size_t> out_bytes = bytes(bound[out]);
    for (size_t i = 0; i < out; ++i) {
      if (data[i] == nullptr) continue;
      if (planned[i] == planned[out]) {
        if (bound[i] != bound[out]) refuse("in place no longer");
        continue;
      }
      const std::vector<size_t> in_bytes = bytes(bound[i]);
      std::vector<size_t> shared;
      std::set_intersection(out_bytes.begin(), out_bytes.end(),
                            in_bytes.begin(), in_bytes.end(),
                            std::back_inserter(shared));
      if (!shared.empty()) refuse("apart no longer");
      plain = plain && (out_bytes.back() < in_bytes.front() ||
                        in_bytes.back() < out_bytes.front());
    }
  }
  if (c.bind_count_error != 0) refuse("a wrong count");
  plain = plain && must_refuse.empty();
  const std::vector<unsigned char> before = arena;
  const int status =
      lrelu_executor_bind(e, data.data(), count + c.bind_count_error);
  if (status != LRELU_STATUS_OK) {
    const std::string fault = RefusalFault("bind", status, arena, before);
    if (!fault.empty()) Abort(fault);
    if (plain) {
      Abort("bind refused a plain rebinding: " +
            std::string(lrelu_last_error()));
    }
    stats.bind_refused++;
    return;
  }
  if (!must_refuse.empty()) {
    Abort("bind accepted what lrelu.h says it refuses: " + must_refuse);
  }
  for (size_t i = 0; i < count; ++i) tensors[i].data = data[i];
  stats.bound++;
}

int Run(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  const ApiCase c = DecodeApiCase(in);
  std::vector<unsigned char> arena(c.arena_bytes);
  FillArena(arena, c.fill_seed);

  std::vector<TensorSpec> specs = c.tensors;
  std::vector<lrelu_tensor_t> tensors(specs.size());
  std::vector<const lrelu_tensor_t*> args;
  for (size_t i = 0; i < specs.size(); ++i) {
    TensorSpec& s = specs[i];
    if (!s.null_strides) s.strides.resize(s.shape.size(), 1);
    lrelu_tensor_t& t = tensors[i];
    t.data = s.null_data ? nullptr : arena.data() + s.offset;
    t.dtype = static_cast<lrelu_dtype_t>(s.dtype);
    t.rank = s.rank;
    t.shape = s.null_shape ? nullptr : s.shape.data();
    t.strides = s.null_strides ? nullptr : s.strides.data();
    args.push_back(s.null_tensor ? nullptr : &t);
  }
  const Verdict v = Predict(c, args, arena.data(), arena.size());
  if (!v.callable && !v.plan_only) {
    stats.skipped++;
    return 0;
  }

  const Effective eff = EffectiveOptions(c);
  CallerPool pool_state;
  lrelu_thread_pool_t pool{};
  MakePool(c.pool, c.pool_concurrency, eff.task_limit, &pool_state, &pool);
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.threads = c.threads;
  options.thread_pool = c.pool == PoolKind::kNone ? nullptr : &pool;
  options.variant = c.has_variant ? c.variant.c_str() : nullptr;
  options.cpu_target = c.has_cpu_target ? c.cpu_target.c_str() : nullptr;
  options.backend = static_cast<lrelu_backend_t>(c.backend);
  options.device = c.device;
  options.struct_size = c.struct_size;
  // The options at the front of a zeroed buffer as large as struct_size
  // says (up to a bit past the documented maximum, beyond which the library
  // must not read): a newer caller's struct with unknown fields zero.
  std::vector<unsigned char> options_buffer(std::max<size_t>(
      sizeof(options),
      std::min<size_t>(c.struct_size, LRELU_OPTIONS_MAX_STRUCT_SIZE + 16)));
  std::memcpy(options_buffer.data(), &options, sizeof(options));
  const auto* opts =
      c.null_options
          ? nullptr
          : reinterpret_cast<const lrelu_options_t*>(options_buffer.data());
  if (v.plan_only) {
    // Outside the arena: only the planning call, which must refuse.
    size_t workspace = 0;
    size_t* ws = c.two_stage && c.null_workspace_size ? nullptr : &workspace;
    lrelu_executor_t* e = nullptr;
    const auto source = static_cast<lrelu_grad_source_t>(c.source);
    const int status =
        c.backward
            ? lrelu_leaky_relu_backward_get_workspace_size(
                  args[0], args[1], c.alpha, source, args[2], opts, ws, &e)
            : lrelu_leaky_relu_get_workspace_size(args[0], c.alpha, args[1],
                                                  opts, ws, &e);
    if (status == LRELU_STATUS_OK) {
      lrelu_executor_destroy(e);
      Abort("planned, but the model requires a refusal (status " +
            std::to_string(*v.required.begin()) + ")");
    }
    CheckRefusal(status, v, arena, arena);
    stats.refused++;
    return 0;
  }

  const std::vector<unsigned char> before = arena;
  const auto source = static_cast<lrelu_grad_source_t>(c.source);
  int status;
  if (!c.two_stage) {
    status = c.backward ? lrelu_leaky_relu_backward(args[0], args[1], c.alpha,
                                                    source, args[2], opts)
                        : lrelu_leaky_relu(args[0], c.alpha, args[1], opts);
  } else {
    size_t workspace = 777;
    auto* e = reinterpret_cast<lrelu_executor_t*>(&workspace);
    size_t* ws = c.null_workspace_size ? nullptr : &workspace;
    status = c.backward
                 ? lrelu_leaky_relu_backward_get_workspace_size(
                       args[0], args[1], c.alpha, source, args[2], opts, ws, &e)
                 : lrelu_leaky_relu_get_workspace_size(args[0], c.alpha,
                                                       args[1], opts, ws, &e);
    if (status != LRELU_STATUS_OK && ws != nullptr && e != nullptr) {
      Abort("a refused plan returned an executor");
    }
    if (status == LRELU_STATUS_OK) {
      if (e == nullptr || workspace != 0) Abort("plan: executor or workspace");
      if (arena != before) Abort("planning touched tensor data");
      CheckExecutor(c, v, e);
      if (c.bind) Bind(c, v, e, arena, tensors);
      CallerPool exec_state;
      lrelu_thread_pool_t exec_pool{};
      MakePool(c.execute_pool, c.pool_concurrency, 0, &exec_state, &exec_pool);
      if (c.execute_pool == PoolKind::kNoFunction) {
        if (lrelu_execute(nullptr, c.workspace_given, e, &exec_pool) !=
                LRELU_STATUS_INVALID_ARGUMENT ||
            arena != before) {
          Abort("execute accepted a pool without parallel_for");
        }
      }
      // A pool given at execution replaces the planned one; the plan's task
      // count may exceed its concurrency (it only bounds planning).
      const bool use_exec_pool = c.execute_pool == PoolKind::kSerial ||
                                 c.execute_pool == PoolKind::kReverse;
      status = lrelu_execute(nullptr, c.workspace_given, e,
                             use_exec_pool ? &exec_pool : nullptr);
      lrelu_executor_destroy(e);
      if (lrelu_execute(nullptr, 0, e, nullptr) !=
          LRELU_STATUS_INVALID_EXECUTOR) {
        Abort("a destroyed executor ran");
      }
    }
  }
  if (status != LRELU_STATUS_OK) {
    CheckRefusal(status, v, arena, before);
    stats.refused++;
    if (v.required.empty()) stats.conservative++;
    return 0;
  }
  if (!v.required.empty()) {
    Abort("accepted, but the model requires a refusal (status " +
          std::to_string(*v.required.begin()) + ")");
  }
  CheckResult(c, v, tensors, arena, before);
  stats.accepted++;
  if (eff.device) stats.on_device++;
  stats.elements += static_cast<size_t>(v.n);
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
