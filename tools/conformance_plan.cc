#include "conformance_plan.h"

#include <algorithm>

#include "backends.h"
#include "errors.h"

namespace lrelu_cli {
namespace {

// The layouts a variant can serve: "contiguous" is by definition one dense
// run, so a strided view is a different (refused) call, not a test of it.
std::vector<lrelu::CaseLayout> CpuLayouts(const std::string& variant) {
  if (variant == "contiguous") return {lrelu::CaseLayout::kContiguous};
  return {lrelu::CaseLayout::kContiguous, lrelu::CaseLayout::kStrided};
}

std::string Detail(lrelu::CaseLayout layout, bool in_place) {
  return std::string(layout == lrelu::CaseLayout::kStrided ? "strided"
                                                           : "contiguous") +
         " layout, " + (in_place ? "in place" : "out of place");
}

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// The requested variants this backend has ("auto" belongs to all).
std::vector<std::string> VariantsFor(lrelu_backend_t backend,
                                     const std::vector<std::string>& wanted) {
  const std::vector<std::string> own = BackendVariants(backend);
  if (wanted.empty()) return own;
  std::vector<std::string> variants;
  for (const std::string& v : wanted) {
    if (v == "auto" || Contains(own, v)) variants.push_back(v);
  }
  return variants;
}

void CheckVariants(const PlanRequest& request) {
  for (const std::string& v : request.variants) {
    bool known = v == "auto";
    std::string names;
    for (lrelu_backend_t backend : request.backends) {
      for (const std::string& own : BackendVariants(backend)) {
        known = known || own == v;
        if (names.find(own) == std::string::npos) {
          names += (names.empty() ? "" : ", ") + own;
        }
      }
    }
    if (!known) {
      throw UsageError("--variant " + Quote(v, 40) +
                       " is not a variant of the chosen backends (" + names +
                       ", auto)");
    }
  }
}

void AddRun(ConformancePlan* plan, const std::string& name,
            const lrelu::Options& options, lrelu::CaseLayout layout) {
  for (bool in_place : {false, true}) {
    ConformanceRun run;
    run.name = name;
    run.detail = Detail(layout, in_place);
    run.options.options = options;
    run.options.layout = layout;
    run.options.in_place = in_place;
    plan->runs.push_back(run);
  }
}

}  // namespace

ConformancePlan PlanConformance(const PlanRequest& request) {
  CheckVariants(request);
  ConformancePlan plan;
  for (lrelu_backend_t backend : request.backends) {
    const BackendInfo info = QueryBackend(backend);
    const std::vector<std::string> variants =
        VariantsFor(backend, request.variants);
    if (variants.empty()) continue;
    if (!info.available) {
      // Two runs (in place or not) per variant, on the one layout a device
      // backend takes; what it would have run is counted as skipped.
      plan.skipped_runs += 2 * variants.size();
      plan.notes.push_back("SKIP " + info.name +
                           ": not available: " + info.unavailable_reason);
      continue;
    }
    lrelu::Options options;
    options.threads = request.threads;
    options.backend = backend;
    if (backend == LRELU_BACKEND_CPU) {
      for (const std::string& target : request.cpu_targets) {
        for (const std::string& variant : variants) {
          options.cpu_target = target;
          options.variant = variant;
          for (lrelu::CaseLayout layout : CpuLayouts(variant)) {
            AddRun(&plan, "cpu/" + variant + "/" + target, options, layout);
          }
        }
      }
      continue;
    }
    // Device backends take dense views only (docs/gpu.md), so the strided
    // layout is not a test of them.
    plan.notes.push_back("n/a " + info.name +
                         ": strided layout (device backends take dense views "
                         "only; run on the contiguous layout)");
    for (int device = 0; device < static_cast<int>(info.devices.size());
         ++device) {
      for (const std::string& variant : variants) {
        options.device = device;
        options.variant = variant;
        AddRun(&plan,
               info.name + "/" + variant + "/device" + std::to_string(device),
               options, lrelu::CaseLayout::kContiguous);
      }
    }
  }
  return plan;
}

}  // namespace lrelu_cli
