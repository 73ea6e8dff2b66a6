// The CPU backend: picks the variant (reference, contiguous, strided), the
// SIMD target and the tiling, and runs the tasks on a thread pool.
#include "core/backend.h"

#include <cstring>
#include <new>
#include <string>

#include "core/error.h"
#include "core/float32.h"
#include "cpu/float_env.h"
#include "cpu/kernels.h"
#include "cpu/stream_bytes.h"
#include "cpu/strided.h"
#include "cpu/thread_pool.h"
#include "cpu/tiling.h"
#include "cpu/unaligned.h"
#include "reference/reference.h"

namespace lrelu {
namespace {

using cpu::KernelArgs;
using cpu::KernelFn;

enum class Variant { kEmpty, kReference, kContiguous, kStrided };

// Tile edges: one cache line (cpu::kLineBytes); one page for streamed
// outputs, so that no two threads write into the same page at the seams.
constexpr size_t kPageBytes = 4096;

// Nothing here depends on the data pointers (lrelu_executor_bind may change
// them): what the output's address decides is decided in CpuExecute.
struct CpuState {
  Variant variant = Variant::kEmpty;
  KernelFn kernel;         // regular stores
  KernelFn stream_kernel;  // non-temporal stores; kernel when not worth it
  KernelArgs args;         // alpha, dtype; pointers filled per task
  size_t block;            // elements per tile edge (cache line or page)
  size_t pieces;           // tasks on the own pool (cpu/tiling.h ChoosePieces)
};

// What execution decides from the pointers: the kernel and the head.
struct TaskState {
  KernelFn kernel;
  size_t head;  // elements before the first tile edge of out
};
static_assert(sizeof(CpuState) <= sizeof(Plan::state), "Plan::state too small");

void ReferenceKernel(const KernelArgs& a) {
  reference::Apply(a.dtype, a.v, a.s, a.out, a.n, a.alpha);
}

const char* VariantName(Variant v) {
  switch (v) {
    case Variant::kEmpty:
      return "empty";
    case Variant::kReference:
      return "reference";
    case Variant::kContiguous:
      return "contiguous";
    case Variant::kStrided:
      return "strided";
  }
  return "";
}

// The best target and its kernels, looked up once: small calls would pay
// for std::call_once and a vector lookup every time otherwise.
struct BestTarget {
  const cpu::Target* target;
  const cpu::KernelTable* kernels;
};
const BestTarget& Best() {
  static const BestTarget best = [] {
    const cpu::Target* t = &cpu::RunnableTargets().front();
    return BestTarget{t, &cpu::KernelsFor(t->bit)};
  }();
  return best;
}

const cpu::KernelTable& TableFor(const cpu::Target& target) {
  const BestTarget& best = Best();
  return &target == best.target ? *best.kernels : cpu::KernelsFor(target.bit);
}

lrelu_status_t FindTarget(const char* name, const cpu::Target** target) {
  if (name == nullptr || name[0] == '\0') {
    *target = Best().target;
    return LRELU_STATUS_OK;
  }
  const auto& targets = cpu::RunnableTargets();
  for (const auto& t : targets) {
    if (std::strcmp(t.name, name) == 0) {
      *target = &t;
      return LRELU_STATUS_OK;
    }
  }
  // The list is only for the message, so it is built only on failure.
  std::string available;
  for (const auto& t : targets) {
    available += available.empty() ? "" : ", ";
    available += t.name;
  }
  return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
              "cpu target '%s' is not compiled in or not supported by this "
              "CPU (available: %s)",
              name, available.c_str());
}

lrelu_status_t ChooseVariant(const char* name, const Problem& p,
                             Variant* variant) {
  const bool automatic =
      name == nullptr || name[0] == '\0' || std::strcmp(name, "auto") == 0;
  Variant wanted;
  if (automatic) {
    wanted = p.dense ? Variant::kContiguous : Variant::kStrided;
  } else if (std::strcmp(name, "reference") == 0) {
    wanted = Variant::kReference;
  } else if (std::strcmp(name, "contiguous") == 0) {
    wanted = Variant::kContiguous;
  } else if (std::strcmp(name, "strided") == 0) {
    wanted = Variant::kStrided;
  } else {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "unknown variant '%s' (use auto, reference, contiguous or "
                "strided)",
                name);
  }
  if (wanted == Variant::kContiguous && !p.dense) {
    return Fail(LRELU_STATUS_UNSUPPORTED_VARIANT,
                "variant 'contiguous' needs every operand to be one dense run; "
                "these views are strided (use 'strided' or 'auto')");
  }
  *variant = p.n == 0 ? Variant::kEmpty : wanted;
  return LRELU_STATUS_OK;
}

// The CPU is one device: the host.
int CpuDeviceCount(std::string*) { return 1; }

const char* CpuDeviceName(int i) { return i == 0 ? "host CPU" : nullptr; }

constexpr const char* kCpuVariants[] = {"reference", "contiguous", "strided",
                                        nullptr};

lrelu_status_t CpuPlan(const lrelu_options_t& options, Plan* plan) {
  const Problem& p = plan->problem;
  const cpu::Target* target = nullptr;
  lrelu_status_t status = FindTarget(options.cpu_target, &target);
  if (status != LRELU_STATUS_OK) return status;
  Variant variant = Variant::kEmpty;
  status = ChooseVariant(options.variant, p, &variant);
  if (status != LRELU_STATUS_OK) return status;

  // Built in place, every field set once: zeroing a local first (a string
  // store) and copying it into the plan (wide loads of narrow stores still
  // in flight) stalls the small call's path on store forwarding.
  CpuState& state = *new (plan->state) CpuState;
  state.variant = variant;
  state.args =
      KernelArgs{nullptr, nullptr, nullptr, 0, p.alpha32, p.alpha, p.dtype};
  plan->variant = VariantName(variant);
  plan->simd_target = target->name;
  plan->device = CpuDeviceName(0);
  plan->workspace_size = 0;
  plan->tasks = 1;

  const size_t n = static_cast<size_t>(p.n);
  const size_t out_bytes = n * p.elem_size;
  const size_t operands = p.op == Op::kForward ? 2 : 3;
  const size_t max_tasks =
      options.threads != 0
          ? options.threads
          : (plan->has_pool ? plan->pool.concurrency : cpu::HardwareThreads());
  const size_t min_task_bytes = cpu::MinTaskBytes(p.dtype);
  state.pieces = 1;
  if (variant != Variant::kEmpty && max_tasks > 1) {
    plan->tasks =
        cpu::ChooseTasks(out_bytes * operands, max_tasks, min_task_bytes);
  }
  const bool stream = variant == Variant::kContiguous && !p.in_place &&
                      out_bytes >= cpu::StreamBytes(plan->tasks);
  if (plan->tasks > 1) {
    state.pieces =
        cpu::ChoosePieces(out_bytes * operands, plan->tasks, min_task_bytes);
  }
  // Tile edges: pages when the output may be streamed (decided per call from
  // its address), cache lines otherwise. Powers of two: no division.
  state.block =
      (stream ? kPageBytes : cpu::kLineBytes) >> __builtin_ctzll(p.elem_size);
  const int dtype = cpu::DTypeIndex(p.dtype);
  const bool finite = p.dtype == LRELU_DTYPE_FLOAT64
                          ? IsFiniteNonZero(p.alpha)
                          : IsFiniteNonZero(p.alpha32);
  const cpu::KernelTable& kernels = TableFor(*target);
  if (variant == Variant::kReference) {
    state.kernel = state.stream_kernel = &ReferenceKernel;
  } else {
    const auto& table =
        p.op == Op::kForward ? kernels.forward : kernels.backward;
    state.kernel = table[dtype][0][finite ? 1 : 0];
    state.stream_kernel = table[dtype][stream ? 1 : 0][finite ? 1 : 0];
  }
  return LRELU_STATUS_OK;
}

struct TaskContext {
  const Plan* plan;
  CpuState state;
  TaskState task;
  size_t tasks;  // the plan's tasks, or the own pool's pieces
};

void RunTask(void* context, size_t index) {
  const auto& c = *static_cast<const TaskContext*>(context);
  const Problem& p = c.plan->problem;
  cpu::DefaultFloatEnv env;
  const size_t n = static_cast<size_t>(p.n);
  if (p.dense) {
    const size_t block = c.state.block;
    const cpu::Range r = cpu::SplitRange(n, c.task.head, block, c.tasks, index);
    if (r.begin >= r.end) return;
    KernelArgs args = c.state.args;
    const size_t offset = r.begin * p.elem_size;
    args.v = static_cast<const char*>(p.v) + offset;
    args.s = static_cast<const char*>(p.s) + offset;
    args.out = static_cast<char*>(p.out) + offset;
    args.n = r.end - r.begin;
    cpu::RunContiguous(c.task.kernel, args, p.elem_size);
  } else {
    const cpu::Range r = cpu::SplitRange(n, 0, 1, c.tasks, index);
    cpu::RunStrided(p, c.state.kernel, c.state.args,
                    static_cast<int64_t>(r.begin), static_cast<int64_t>(r.end));
  }
}

lrelu_status_t CpuExecute(const Plan& plan, void*, size_t,
                          const lrelu_thread_pool_t* pool) {
  // The state CpuPlan built in place, read field by field (a copy's wide
  // loads would stall on the narrow stores of a plan made just before).
  const CpuState& state =
      *std::launder(reinterpret_cast<const CpuState*>(plan.state));
  if (state.variant == Variant::kEmpty) return LRELU_STATUS_OK;
  // Streaming stores need element-aligned output. Element sizes are powers
  // of two: masks, not divisions, on the small call's path.
  const Problem& p = plan.problem;
  const auto out_address = reinterpret_cast<uintptr_t>(p.out);
  const bool element_aligned = (out_address & (p.elem_size - 1)) == 0;
  const KernelFn kernel = element_aligned ? state.stream_kernel : state.kernel;
  if (plan.tasks <= 1 && p.dense) {
    // The small call's path: no task split, no context indirection.
    cpu::DefaultFloatEnv env;
    KernelArgs args = state.args;
    args.v = p.v;
    args.s = p.s;
    args.out = p.out;
    args.n = static_cast<size_t>(p.n);
    cpu::RunContiguous(kernel, args, p.elem_size);
    return LRELU_STATUS_OK;
  }
  TaskContext context{&plan, state, {kernel, 0}, plan.tasks};
  // The head aligns task boundaries to the output's tile edges.
  if (state.variant == Variant::kContiguous && element_aligned) {
    const size_t edge = state.block * p.elem_size;
    context.task.head = (edge - out_address % edge) % edge / p.elem_size;
  }
  if (plan.tasks <= 1) {
    RunTask(&context, 0);
  } else if (pool == nullptr) {
    // The own pool runs pieces, still on at most plan.tasks threads; a
    // caller's pool gets one task per thread, as its concurrency was planned.
    context.tasks = context.state.pieces;
    cpu::OwnParallelFor(&RunTask, &context, context.tasks, plan.tasks);
  } else {
    pool->parallel_for(pool->pool_context, &RunTask, &context, plan.tasks);
  }
  return LRELU_STATUS_OK;
}

// What CpuPlan and CpuExecute do for a dense run of one task (its bytes
// below two tasks' minimum, so ChooseTasks gives 1 for any thread count;
// its output then below one task's minimum, so below any streaming
// threshold: regular stores), without the plan.
bool CpuRunUnplanned(const DenseRun& run) {
  constexpr int64_t kMaxElements = int64_t{1} << 20;  // no overflow below
  if (run.n <= 0 || run.n >= kMaxElements) return false;
  const size_t elem = ElemSize(run.dtype);
  const size_t operands = run.op == Op::kForward ? 2 : 3;
  const auto n = static_cast<size_t>(run.n);
  static_assert(cpu::kTaskBytes <= cpu::kMinStreamBytes);
  if (n * elem * operands >= 2 * cpu::MinTaskBytes(run.dtype)) return false;
  cpu::DefaultFloatEnv env;
#if defined(__x86_64__)
  // SSE rounds to nearest without flushing now, whatever the caller set:
  // the hardware conversion is alpha rounded to float32 once
  // (AlphaToFloat32 would read the MXCSR a second time).
  const auto alpha32 = static_cast<float>(run.alpha);
#else
  const float alpha32 = AlphaToFloat32(run.alpha);
#endif
  const bool finite = run.dtype == LRELU_DTYPE_FLOAT64
                          ? IsFiniteNonZero(run.alpha)
                          : IsFiniteNonZero(alpha32);
  const cpu::KernelTable& kernels = *Best().kernels;
  const auto& table =
      run.op == Op::kForward ? kernels.forward : kernels.backward;
  const KernelFn kernel = table[cpu::DTypeIndex(run.dtype)][0][finite ? 1 : 0];
  const KernelArgs args{run.v,   run.s,     run.out,  n,
                        alpha32, run.alpha, run.dtype};
  cpu::RunContiguous(kernel, args, elem);
  return true;
}

}  // namespace

const Backend& CpuBackend() {
  static const Backend backend = {"cpu",
                                  &CpuPlan,
                                  &CpuExecute,
                                  PointerKind::kHost,
                                  kCpuVariants,
                                  &CpuDeviceCount,
                                  &CpuDeviceName,
                                  /*bind=*/nullptr,
                                  &CpuRunUnplanned};
  return backend;
}

}  // namespace lrelu
