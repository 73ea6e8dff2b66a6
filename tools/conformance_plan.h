// Which configurations `lrelu test` runs the contract's cases on: every
// requested backend x device x variant x SIMD target x memory layout, in
// place and not, plus what cannot run here and why.
#ifndef LRELU_TOOLS_CONFORMANCE_PLAN_H_
#define LRELU_TOOLS_CONFORMANCE_PLAN_H_

#include <cstddef>
#include <string>
#include <vector>

#include "lrelu/kernel.hpp"
#include "lrelu/lrelu.h"

namespace lrelu_cli {

struct PlanRequest {
  std::vector<lrelu_backend_t> backends;
  std::vector<std::string> variants;     // empty: every variant of a backend
  std::vector<std::string> cpu_targets;  // CPU only; at least one
  std::size_t threads = 0;
};

// One configuration: every case runs once with these options.
struct ConformanceRun {
  std::string name;    // "<backend>/<variant>/<target or device>"
  std::string detail;  // "contiguous layout, out of place", ...
  lrelu::RunOptions options;
};

struct ConformancePlan {
  std::vector<ConformanceRun> runs;
  // Lines to print before the results: backends skipped (with the reason)
  // and layouts that do not apply.
  std::vector<std::string> notes;
  // Configurations that could not run (backend unavailable); the report
  // counts them as case runs, `skipped_runs` x the number of cases.
  std::size_t skipped_runs = 0;
};

// Throws UsageError when a variant belongs to none of the backends.
ConformancePlan PlanConformance(const PlanRequest& request);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_CONFORMANCE_PLAN_H_
