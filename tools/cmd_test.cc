// lrelu test: runs the contracts' correctness cases (the test.json of
// ai.onnx.LeakyRelu and ai.onnx.PRelu, compiled into liblrelu_contract, or
// a file) on every variant, SIMD target and backend asked for, and prints
// one line per failure and a closing count.
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "backends.h"
#include "commands.h"
#include "conformance_plan.h"
#include "errors.h"
#include "lrelu/kernel.hpp"
#include "lrelu/lrelu.hpp"
#include "parse_args.h"

namespace lrelu_cli {
namespace {

constexpr const char kPrelu[] = "ai.onnx.PRelu";

// PReLU runs on the CPU backend only (docs/prelu.md), and a forced
// "contiguous" variant needs the part of x each alpha element covers to be
// one dense run, which the package's broadcast cases (NCHW with N > 1) are
// not: its cases are not run, and counted as skipped, on those
// configurations.
bool Applies(const lrelu::TestCase& c, const ConformanceRun& run) {
  return c.kernel_id != kPrelu ||
         (run.options.options.backend == LRELU_BACKEND_CPU &&
          run.options.options.variant != "contiguous");
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw CliError("cannot read the cases file " + Quote(path) + ": " +
                   ErrnoText(errno));
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) {
    throw CliError("cannot read the cases file " + Quote(path) + ": " +
                   ErrnoText(errno));
  }
  return text.str();
}

std::vector<lrelu::TestCase> LoadCases(const std::string& path) {
  if (path.empty()) {
    std::vector<lrelu::TestCase> cases =
        lrelu::get_kernel("ai.onnx.LeakyRelu", LRELU_CONTRACT_VERSION)
            .test_cases();
    const std::vector<lrelu::TestCase>& prelu =
        lrelu::get_kernel(kPrelu, 1).test_cases();
    cases.insert(cases.end(), prelu.begin(), prelu.end());
    return cases;
  }
  std::vector<lrelu::TestCase> cases;
  try {
    cases = lrelu::parse_test_cases(ReadFile(path));
  } catch (const lrelu::Error& e) {
    throw CliError("the cases file " + Quote(path) +
                   " is not usable: " + e.what());
  }
  if (cases.empty()) {
    throw CliError("the cases file " + Quote(path) + " has no cases");
  }
  return cases;
}

std::vector<std::string> CpuTargets(const std::string& wanted) {
  const std::vector<std::string> runnable = lrelu::cpu_targets();
  if (wanted.empty()) return {runnable.at(0)};  // what the library picks
  if (wanted == "all") return runnable;
  for (const std::string& name : runnable) {
    if (name == wanted) return {name};
  }
  std::string list;
  for (const std::string& name : runnable) list += " " + name;
  throw UsageError("--cpu-target " + Quote(wanted, 40) +
                   " is not runnable here (runnable:" + list + ", or all)");
}

std::vector<lrelu_backend_t> Backends(const std::string& name) {
  if (name == "all") return AllBackends();
  return {BackendFromName(name)};
}

// Control characters in a library message become spaces, so that each
// failure stays on its one line.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return text;
}

}  // namespace

void RunTest(const TestArgs& args) {
  PlanRequest request;
  request.backends = Backends(args.backend);
  if (!args.variants.empty()) {
    request.variants = SplitList(args.variants, "--variant");
  }
  request.cpu_targets = CpuTargets(args.cpu_target);
  request.threads = ParseThreads(args.threads);
  const ConformancePlan plan = PlanConformance(request);
  const std::vector<lrelu::TestCase> cases = LoadCases(args.cases_file);

  for (const std::string& note : plan.notes) {
    std::printf("%s\n", OneLine(note).c_str());
  }
  // Per case: did any configuration run it, did any fail it.
  std::vector<char> ran(cases.size(), 0), failed(cases.size(), 0);
  std::size_t runs_passed = 0, runs_failed = 0, runs_skipped = 0;
  for (const ConformanceRun& run : plan.runs) {
    std::size_t run_cases = 0, run_failed = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (!Applies(cases[i], run)) {
        ++runs_skipped;
        continue;
      }
      ++run_cases;
      const lrelu::CaseResult result = lrelu::run_case(cases[i], run.options);
      ran[i] = 1;
      if (result.passed) continue;
      failed[i] = 1;
      ++run_failed;
      std::printf("FAIL %s %s: (%s) %s\n", run.name.c_str(), result.id.c_str(),
                  run.detail.c_str(), OneLine(result.message).c_str());
    }
    runs_failed += run_failed;
    runs_passed += run_cases - run_failed;
    if (args.verbose) {
      std::printf("%s %s (%s): %zu cases, %zu failed\n",
                  run_failed == 0 ? "ok  " : "FAIL", run.name.c_str(),
                  run.detail.c_str(), run_cases, run_failed);
    }
    std::fflush(stdout);
  }
  std::printf("%zu configurations x %zu cases: %zu runs passed, %zu failed",
              plan.runs.size(), cases.size(), runs_passed, runs_failed);
  runs_skipped += plan.skipped_runs * cases.size();
  if (runs_skipped > 0) std::printf(", %zu skipped", runs_skipped);
  std::printf("\n");
  // The closing line counts cases: failed when any configuration failed
  // it, skipped when none ran it.
  std::size_t passed = 0, failed_cases = 0, skipped = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!ran[i]) {
      ++skipped;
    } else if (failed[i]) {
      ++failed_cases;
    } else {
      ++passed;
    }
  }
  std::printf("%zu passed, %zu failed", passed, failed_cases);
  if (skipped > 0) std::printf(", %zu skipped", skipped);
  std::printf("\n");
  std::fflush(stdout);
  if (failed_cases > 0) throw ReportedFailure(kExitFailure);
}

}  // namespace lrelu_cli
