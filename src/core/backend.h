// What a backend is: one row of the table in api/backends.cc (indexed by
// lrelu_backend_t), which selection, the info entry points, the CLI's lists
// and `lrelu info` all read. A backend fills a Plan's backend fields in
// plan() and runs it in execute(); it never validates tensors (api/ has,
// with core/problem.cc) and never includes api/.
#ifndef LRELU_SRC_CORE_BACKEND_H_
#define LRELU_SRC_CORE_BACKEND_H_

#include <cstddef>
#include <memory>
#include <string>

#include "core/problem.h"
#include "lrelu/lrelu.h"

namespace lrelu {

struct Backend;

// Everything an executor holds: the problem and the backend's decisions.
struct Plan {
  Problem problem;
  const Backend* backend = nullptr;
  const char* variant = "empty";  // name reported to the caller
  const char* simd_target = "";   // CPU SIMD target; "" on a device backend
  const char* device = "";        // name of the device that runs the plan
  size_t tasks = 1;               // parallel tasks (1 = calling thread)
  size_t workspace_size = 0;      // bytes execute() needs
  bool has_pool = false;          // pool given in the options at plan time
  lrelu_thread_pool_t pool = {};  // copied: the caller's struct may go away
  alignas(16) unsigned char state[128];  // backend-private
  // Plans that need more than `state` (PReLU's views): owned by the plan,
  // released with the executor.
  std::shared_ptr<const void> extension;
};

// Where a backend's tensors live: host memory, or the device's memory
// (tensor.data are device pointers).
enum class PointerKind { kHost, kDevice };

struct Backend {
  const char* name;  // "cpu", "cuda", "opencl": lrelu_backend_name
  // Chooses variant, target and tiling for plan->problem; fills the fields
  // above. Must not touch tensor data. nullptr when the backend is not
  // compiled into this library (its not_built.cc row).
  lrelu_status_t (*plan)(const lrelu_options_t& options, Plan* plan);
  // Runs the plan. pool is never NULL here (api/ resolves the default).
  lrelu_status_t (*execute)(const Plan& plan, void* workspace,
                            size_t workspace_size,
                            const lrelu_thread_pool_t* pool);
  PointerKind pointers = PointerKind::kHost;
  // The variants options.variant can force, in the order tests run them;
  // nullptr-terminated (options.variant also takes "auto").
  const char* const* variants = nullptr;
  // Devices the backend sees now; 0 with the reason in *why (the driver's
  // own message) when there is none. Not called when plan is nullptr.
  int (*device_count)(std::string* why) = nullptr;
  // Name of device i (stable for the life of the process), nullptr when out
  // of range. Not called when plan is nullptr.
  const char* (*device_name)(int i) = nullptr;
  // For lrelu_executor_bind: called on a copy of the plan after new data
  // pointers were put into it (plan->problem, or a device PReLU plan's
  // extension) and checked as for every backend (NULL, address space, the
  // in-place or disjoint relation planned); re-derives what depends on the
  // pointers (device ownership, alignment, access width). nullptr when
  // nothing does (host memory read as plain memory).
  lrelu_status_t (*bind)(Plan* plan) = nullptr;
  // The one-shot call's short way: runs a validated dense run in the
  // calling thread, without a plan, when plan() with default options would
  // give it one task (for any thread count) -- the same kernel, the same
  // bits. False, nothing done, for anything else. nullptr when the backend
  // has none.
  bool (*run_unplanned)(const DenseRun& run) = nullptr;

  bool built() const { return plan != nullptr; }
};

// The rows, one per backend folder (cpu/backend.cc, cuda/backend.cu or
// cuda/not_built.cc, ...); api/backends.cc puts them in the table.
const Backend& CpuBackend();
const Backend& CudaBackend();
const Backend& OpenClBackend();

// PReLU forward on a device backend (api/prelu_device.cc): a Backend of its
// own whose plan/execute take PReLU's plan; nullptr when not built in.
const Backend* CudaPreluBackend();
const Backend* OpenClPreluBackend();

}  // namespace lrelu

#endif  // LRELU_SRC_CORE_BACKEND_H_
