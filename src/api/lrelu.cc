// The C ABI entry points: resolve options, validate and plan through
// problem.cc and the backend, keep executors, report errors.
#include "lrelu/lrelu.h"

#include <cmath>
#include <cstddef>
#include <cstring>
#include <new>

#include "api/backends.h"
#include "api/executors.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/problem.h"
#include "cpu/kernels.h"
#include "cpu/thread_pool.h"
#include "reference/dtype_traits.h"

namespace lrelu {
namespace {

// Whether executor is live; if not, the calling thread's message says why.
bool LiveExecutor(const lrelu_executor* executor) {
  if (IsLiveExecutor(executor)) return true;
  Fail(LRELU_STATUS_INVALID_EXECUTOR,
       "executor is NULL, destroyed or not from lrelu_*_get_workspace_size");
  return false;
}

// The backend options.backend names (api/backends.cc's table); nullptr
// when it names none or is not built in.
const Backend* SelectBackend(const lrelu_options_t& options) {
  const Backend* backend = BackendAt(options.backend);
  return backend != nullptr && backend->built() ? backend : nullptr;
}

lrelu_status_t CheckOptions(const lrelu_options_t* options);

// Copies the caller's options, field by field as far as its struct_size
// reaches, over the defaults; then checks them.
lrelu_status_t ResolveOptions(const lrelu_options_t* given,
                              lrelu_options_t* options) {
  if (given != nullptr && given->struct_size == sizeof(lrelu_options_t)) {
    // This header's struct (the common case): whole fields, nothing unknown.
    *options = *given;
    return CheckOptions(options);
  }
  lrelu_options_init(options);
  if (given == nullptr) return LRELU_STATUS_OK;
  // Copy whole fields only: a struct_size that ends inside a field (a
  // garbled or foreign struct) would otherwise copy half a pointer. Sizes of
  // older versions (ending after any field, padding included) are fine. A
  // larger struct (a newer header) is accepted when the fields this library
  // does not know are zero, i.e. left at their defaults.
  struct Field {
    size_t offset, size;
  };
  static constexpr Field kFields[] = {
      {offsetof(lrelu_options_t, threads), sizeof(size_t)},
      {offsetof(lrelu_options_t, thread_pool), sizeof(void*)},
      {offsetof(lrelu_options_t, variant), sizeof(void*)},
      {offsetof(lrelu_options_t, cpu_target), sizeof(void*)},
      {offsetof(lrelu_options_t, backend), sizeof(lrelu_backend_t)},
      {offsetof(lrelu_options_t, stream), sizeof(void*)},
      {offsetof(lrelu_options_t, device), sizeof(int32_t)}};
  const size_t size = given->struct_size;
  // Bounded before anything past the known fields is read: a garbled size
  // (0xffffffff) must not make the library read gigabytes past the struct.
  if (size > LRELU_OPTIONS_MAX_STRUCT_SIZE) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "options.struct_size is %zu, more than "
                "LRELU_OPTIONS_MAX_STRUCT_SIZE (%d): initialise options with "
                "lrelu_options_init()",
                size, LRELU_OPTIONS_MAX_STRUCT_SIZE);
  }
  // (This header's own size took the early return above.)
  bool boundary = size >= kFields[0].offset + kFields[0].size;
  for (const Field& f : kFields) {
    if (size > f.offset && size < f.offset + f.size) boundary = false;
  }
  if (size > sizeof(lrelu_options_t)) {
    const auto* extra =
        reinterpret_cast<const unsigned char*>(given) + sizeof(lrelu_options_t);
    for (size_t i = 0; i < size - sizeof(lrelu_options_t); ++i) {
      if (extra[i] != 0) boundary = false;
    }
  }
  if (!boundary) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "options.struct_size is %u, which is not the size of any "
                "version of lrelu_options_t this library knows (or sets "
                "unknown fields): initialise options with lrelu_options_init()",
                given->struct_size);
  }
  std::memcpy(options, given, std::min<size_t>(size, sizeof(lrelu_options_t)));
  options->struct_size = sizeof(lrelu_options_t);
  return CheckOptions(options);
}

// Checks the fields of a resolved options struct.
lrelu_status_t CheckOptions(const lrelu_options_t* options) {
  if (SelectBackend(*options) == nullptr) {
    const char* name = lrelu_backend_name(options->backend);
    if (name == nullptr) {
      return Fail(LRELU_STATUS_BACKEND_UNAVAILABLE,
                  "backend %d is not built into this library (backends: %s)",
                  static_cast<int>(options->backend), BackendList().c_str());
    }
    return Fail(LRELU_STATUS_BACKEND_UNAVAILABLE,
                "backend %s is not built into this library", name);
  }
  if (options->device < 0) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT, "options.device is %d",
                static_cast<int>(options->device));
  }
  // The CPU is one device (lrelu_device_count says 1); any other index is
  // refused as the device backends refuse theirs.
  if (options->backend == LRELU_BACKEND_CPU && options->device != 0) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "options.device is %d but the cpu backend has 1 device (0)",
                static_cast<int>(options->device));
  }
  const lrelu_thread_pool_t* pool = options->thread_pool;
  if (pool != nullptr &&
      (pool->parallel_for == nullptr || pool->concurrency == 0)) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "options.thread_pool needs a parallel_for function and a "
                "concurrency of at least 1");
  }
  return LRELU_STATUS_OK;
}

bool Unnamed(const char* name) { return name == nullptr || name[0] == '\0'; }

// A one-shot call's dense run without a plan where the CPU backend takes
// it (Backend::run_unplanned): validation is all a small call then pays.
// Only with the default options and no pool (any thread count: the short
// way runs only what is one task for every count).
bool RunUnplanned(const lrelu_options_t* options, const DenseRun& run) {
  const Backend& cpu = CpuBackend();
  return CpuDefaultOptions(options) &&
         (options == nullptr || options->thread_pool == nullptr) &&
         cpu.run_unplanned != nullptr && cpu.run_unplanned(run);
}

lrelu_status_t Execute(const Plan& plan, void* workspace, size_t workspace_size,
                       const lrelu_thread_pool_t* pool) {
  if (workspace_size < plan.workspace_size) {
    return Fail(LRELU_STATUS_WORKSPACE_TOO_SMALL,
                "workspace is %zu bytes but the plan needs %zu", workspace_size,
                plan.workspace_size);
  }
  if (plan.workspace_size > 0 && workspace == nullptr) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "workspace is NULL but the plan needs %zu bytes",
                plan.workspace_size);
  }
  if (pool != nullptr &&
      (pool->parallel_for == nullptr || pool->concurrency == 0)) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "thread_pool needs a parallel_for function and a concurrency "
                "of at least 1");
  }
  if (pool == nullptr && plan.has_pool) pool = &plan.pool;
  return plan.backend->execute(plan, workspace, workspace_size, pool);
}

// Stage one for both passes: plan into a new executor.
lrelu_status_t NewExecutor(const Plan& plan, size_t* workspace_size,
                           lrelu_executor_t** executor) {
  lrelu_executor* e = CreateExecutor(plan);
  if (e == nullptr) return Fail(LRELU_STATUS_OUT_OF_MEMORY, "out of memory");
  *workspace_size = plan.workspace_size;
  *executor = e;
  return LRELU_STATUS_OK;
}

// A one-shot call's plan for plan->problem, then its execution: the calls
// without an executor, which have no workspace to give.
lrelu_status_t RunOneShot(const lrelu_options_t* options, Plan* plan) {
  lrelu_status_t status = PlanOnBackend(options, plan);
  if (status == LRELU_STATUS_OK && plan->workspace_size > 0) {
    status = Fail(LRELU_STATUS_INTERNAL,
                  "plan needs a workspace; use the two-stage call");
  }
  if (status != LRELU_STATUS_OK) return status;
  return Execute(*plan, nullptr, 0, nullptr);
}

lrelu_status_t CheckOutputs(size_t* workspace_size,
                            lrelu_executor_t** executor) {
  if (workspace_size == nullptr || executor == nullptr) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "workspace_size and executor must not be NULL");
  }
  *executor = nullptr;
  *workspace_size = 0;
  return LRELU_STATUS_OK;
}

}  // namespace
}  // namespace lrelu

using lrelu::Plan;

extern "C" {

void lrelu_options_init(lrelu_options_t* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->backend = LRELU_BACKEND_CPU;
}

lrelu_status_t lrelu_leaky_relu_get_workspace_size(
    const lrelu_tensor_t* x, double alpha, const lrelu_tensor_t* y,
    const lrelu_options_t* options, size_t* workspace_size,
    lrelu_executor_t** executor) {
  lrelu_status_t status = lrelu::CheckOutputs(workspace_size, executor);
  if (status != LRELU_STATUS_OK) return status;
  Plan plan;
  status = lrelu::BuildForwardProblem(x, alpha, y, &plan.problem);
  if (status == LRELU_STATUS_OK) status = lrelu::PlanOnBackend(options, &plan);
  if (status != LRELU_STATUS_OK) return status;
  return lrelu::NewExecutor(plan, workspace_size, executor);
}

lrelu_status_t lrelu_leaky_relu(const lrelu_tensor_t* x, double alpha,
                                const lrelu_tensor_t* y,
                                const lrelu_options_t* options) {
  lrelu::DenseRun run;
  const bool dense = lrelu::DenseForwardRun(x, alpha, y, &run);
  if (dense && lrelu::RunUnplanned(options, run)) return LRELU_STATUS_OK;
  Plan plan;
  if (dense) {
    lrelu::BuildDenseForward(run, &plan.problem);
  } else {
    const lrelu_status_t status =
        lrelu::BuildForwardProblem(x, alpha, y, &plan.problem);
    if (status != LRELU_STATUS_OK) return status;
  }
  return lrelu::RunOneShot(options, &plan);
}

lrelu_status_t lrelu_leaky_relu_backward_get_workspace_size(
    const lrelu_tensor_t* dy, const lrelu_tensor_t* s, double alpha,
    lrelu_grad_source_t source, const lrelu_tensor_t* dx,
    const lrelu_options_t* options, size_t* workspace_size,
    lrelu_executor_t** executor) {
  lrelu_status_t status = lrelu::CheckOutputs(workspace_size, executor);
  if (status != LRELU_STATUS_OK) return status;
  Plan plan;
  status = lrelu::BuildBackwardProblem(dy, s, alpha, source, dx, &plan.problem);
  if (status == LRELU_STATUS_OK) status = lrelu::PlanOnBackend(options, &plan);
  if (status != LRELU_STATUS_OK) return status;
  return lrelu::NewExecutor(plan, workspace_size, executor);
}

lrelu_status_t lrelu_leaky_relu_backward(const lrelu_tensor_t* dy,
                                         const lrelu_tensor_t* s, double alpha,
                                         lrelu_grad_source_t source,
                                         const lrelu_tensor_t* dx,
                                         const lrelu_options_t* options) {
  Plan plan;
  const lrelu_status_t status =
      lrelu::BuildBackwardProblem(dy, s, alpha, source, dx, &plan.problem);
  if (status != LRELU_STATUS_OK) return status;
  const lrelu::Problem& p = plan.problem;
  if (p.dense && lrelu::RunUnplanned(
                     options, {p.op, p.dtype, p.v, p.s, p.out, p.n, p.alpha})) {
    return LRELU_STATUS_OK;
  }
  return lrelu::RunOneShot(options, &plan);
}

lrelu_status_t lrelu_execute(void* workspace, size_t workspace_size,
                             lrelu_executor_t* executor,
                             const lrelu_thread_pool_t* thread_pool) {
  if (!lrelu::LiveExecutor(executor)) return LRELU_STATUS_INVALID_EXECUTOR;
  return lrelu::Execute(executor->plan, workspace, workspace_size, thread_pool);
}

lrelu_status_t lrelu_executor_bind(lrelu_executor_t* executor,
                                   void* const* data, size_t count) {
  if (!lrelu::LiveExecutor(executor)) return LRELU_STATUS_INVALID_EXECUTOR;
  Plan& plan = executor->plan;
  if (lrelu::IsPreluPlan(plan)) return lrelu::RebindPrelu(&plan, data, count);
  if (lrelu::IsPreluDevicePlan(plan)) {
    return lrelu::RebindPreluOnDevice(&plan, data, count);
  }
  const bool forward = plan.problem.op == lrelu::Op::kForward;
  const size_t expected = forward ? 2 : 3;
  if (data == nullptr || count != expected) {
    return lrelu::Fail(LRELU_STATUS_INVALID_ARGUMENT,
                       "lrelu_executor_bind needs %zu data pointers for this "
                       "executor (%s), got %zu%s",
                       expected, forward ? "x, y" : "dy, x or y, dx", count,
                       data == nullptr ? " (data is NULL)" : "");
  }
  void* const v = data[0];
  void* const s = forward ? data[0] : data[1];
  void* const out = forward ? data[1] : data[2];
  if (plan.backend->bind == nullptr) {
    return lrelu::RebindProblem(v, s, out, &plan.problem);
  }
  // The backend re-checks the new pointers on a copy: on failure the
  // executor keeps its previous ones.
  lrelu::Plan trial = plan;
  lrelu_status_t status = lrelu::RebindProblem(v, s, out, &trial.problem);
  if (status == LRELU_STATUS_OK) status = plan.backend->bind(&trial);
  if (status == LRELU_STATUS_OK) plan = trial;
  return status;
}

const char* lrelu_executor_variant(const lrelu_executor_t* executor) {
  if (!lrelu::LiveExecutor(executor)) return nullptr;
  return executor->plan.variant;
}

const char* lrelu_executor_cpu_target(const lrelu_executor_t* executor) {
  if (!lrelu::LiveExecutor(executor)) return nullptr;
  return executor->plan.simd_target;
}

const char* lrelu_executor_device(const lrelu_executor_t* executor) {
  if (!lrelu::LiveExecutor(executor)) return nullptr;
  return executor->plan.device;
}

size_t lrelu_executor_tasks(const lrelu_executor_t* executor) {
  if (!lrelu::LiveExecutor(executor)) return 0;
  return executor->plan.tasks;
}

void lrelu_executor_destroy(lrelu_executor_t* executor) {
  if (executor == nullptr) return;
  // A handle that is not live (double destroy) is ignored, not freed again.
  lrelu::DestroyExecutor(executor);
}

const char* lrelu_last_error(void) { return lrelu::LastError(); }

const char* lrelu_status_string(lrelu_status_t status) {
  switch (status) {
    case LRELU_STATUS_OK:
      return "LRELU_STATUS_OK";
    case LRELU_STATUS_INVALID_ARGUMENT:
      return "LRELU_STATUS_INVALID_ARGUMENT";
    case LRELU_STATUS_UNSUPPORTED_DTYPE:
      return "LRELU_STATUS_UNSUPPORTED_DTYPE";
    case LRELU_STATUS_DTYPE_MISMATCH:
      return "LRELU_STATUS_DTYPE_MISMATCH";
    case LRELU_STATUS_SHAPE_MISMATCH:
      return "LRELU_STATUS_SHAPE_MISMATCH";
    case LRELU_STATUS_SIZE_OVERFLOW:
      return "LRELU_STATUS_SIZE_OVERFLOW";
    case LRELU_STATUS_OVERLAP:
      return "LRELU_STATUS_OVERLAP";
    case LRELU_STATUS_NULL_DATA:
      return "LRELU_STATUS_NULL_DATA";
    case LRELU_STATUS_WORKSPACE_TOO_SMALL:
      return "LRELU_STATUS_WORKSPACE_TOO_SMALL";
    case LRELU_STATUS_INVALID_ALPHA:
      return "LRELU_STATUS_INVALID_ALPHA";
    case LRELU_STATUS_UNSUPPORTED_VARIANT:
      return "LRELU_STATUS_UNSUPPORTED_VARIANT";
    case LRELU_STATUS_BACKEND_UNAVAILABLE:
      return "LRELU_STATUS_BACKEND_UNAVAILABLE";
    case LRELU_STATUS_OUT_OF_MEMORY:
      return "LRELU_STATUS_OUT_OF_MEMORY";
    case LRELU_STATUS_INVALID_EXECUTOR:
      return "LRELU_STATUS_INVALID_EXECUTOR";
    case LRELU_STATUS_INTERNAL:
      return "LRELU_STATUS_INTERNAL";
    default:
      break;
  }
  return "LRELU_STATUS_UNKNOWN";
}

const char* lrelu_dtype_name(lrelu_dtype_t dtype) {
  const lrelu::reference::DTypeTraits* t = lrelu::reference::FindDType(dtype);
  return t != nullptr ? t->name : nullptr;
}

size_t lrelu_dtype_size(lrelu_dtype_t dtype) {
  const lrelu::reference::DTypeTraits* t = lrelu::reference::FindDType(dtype);
  return t != nullptr ? t->size : 0;
}

const char* lrelu_version(void) { return LRELU_VERSION_STRING; }

int lrelu_contract_version(void) { return LRELU_CONTRACT_VERSION; }

size_t lrelu_cpu_target_count(void) {
  return lrelu::cpu::RunnableTargets().size();
}

const char* lrelu_cpu_target_name(size_t i) {
  const auto& targets = lrelu::cpu::RunnableTargets();
  return i < targets.size() ? targets[i].name : nullptr;
}

const char* lrelu_cpu_targets_compiled(void) {
  return lrelu::cpu::CompiledTargetNames();
}

size_t lrelu_hardware_threads(void) { return lrelu::cpu::HardwareThreads(); }

}  // extern "C"

namespace lrelu {

bool CpuDefaultOptions(const lrelu_options_t* o) {
  return o == nullptr ||
         (o->struct_size == sizeof(lrelu_options_t) &&
          o->backend == LRELU_BACKEND_CPU && o->device == 0 &&
          (Unnamed(o->variant) || std::strcmp(o->variant, "auto") == 0) &&
          Unnamed(o->cpu_target) && o->stream == nullptr);
}

lrelu_status_t PlanOnBackend(const lrelu_options_t* given, Plan* plan) {
  lrelu_options_t options;
  lrelu_status_t status = ResolveOptions(given, &options);
  if (status != LRELU_STATUS_OK) return status;
  plan->backend = SelectBackend(options);
  plan->has_pool = options.thread_pool != nullptr;
  if (plan->has_pool) plan->pool = *options.thread_pool;
  return plan->backend->plan(options, plan);
}

lrelu_status_t NewExecutorFor(const Plan& plan, size_t* workspace_size,
                              lrelu_executor_t** executor) {
  return NewExecutor(plan, workspace_size, executor);
}

lrelu_status_t CheckExecutorOutputs(size_t* workspace_size,
                                    lrelu_executor_t** executor) {
  return CheckOutputs(workspace_size, executor);
}

}  // namespace lrelu
