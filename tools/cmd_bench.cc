// lrelu bench: times the contract's bench.json cases (or a file of them)
// per variant and thread count, against copies of the same bytes, and
// prints a table (and JSON records with --json).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "atomic_output.h"
#include "backends.h"
#include "bench_cases.h"
#include "bench_measure.h"
#include "commands.h"
#include "errors.h"
#include "lrelu/lrelu.hpp"
#include "parse_args.h"

namespace lrelu_cli {
namespace {

std::string TimeText(double ns) {
  char text[32];
  if (ns < 1e4) {
    std::snprintf(text, sizeof text, "%.0f ns", ns);
  } else if (ns < 1e6) {
    std::snprintf(text, sizeof text, "%.1f us", ns / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.1f ms", ns / 1e6);
  }
  return text;
}

std::vector<std::size_t> ThreadCounts(const std::string& list) {
  const std::size_t hardware = lrelu_hardware_threads();
  if (list.empty()) return {hardware};
  std::vector<std::size_t> counts;
  for (const std::string& item : SplitList(list, "--threads")) {
    const std::size_t n = ParseCount(item, "--threads", 0, 100000);
    counts.push_back(n == 0 ? hardware : n);  // records show the real count
  }
  return counts;
}

std::vector<std::string> Variants(const std::string& list,
                                  lrelu_backend_t backend) {
  const std::vector<std::string> own = BackendVariants(backend);
  std::vector<std::string> variants = SplitList(list, "--variant");
  for (const std::string& v : variants) {
    bool known = v == "auto";
    std::string names;
    for (const std::string& o : own) {
      known = known || o == v;
      names += o + ", ";
    }
    if (!known) {
      throw UsageError("--variant " + Quote(v, 40) + " is not a variant of " +
                       "the " + lrelu_backend_name(backend) + " backend (" +
                       names + "auto)");
    }
  }
  return variants;
}

nlohmann::json Record(const lrelu::BenchCase& c, const std::string& backend,
                      const std::string& variant, std::size_t threads,
                      int samples, const BenchResult& r) {
  return {
      {"case", c.id},
      {"op", c.op},
      {"dtype", lrelu::dtype_name(c.dtype)},
      {"shape", c.shape},
      {"elements", c.elements},
      {"bytes_moved", c.bytes_moved},
      {"inplace", c.in_place},
      {"backend", backend},
      {"variant", variant},
      {"variant_used", r.variant_used},
      {"target", r.target_used},
      {"threads", threads},
      {"tasks", r.tasks},
      {"samples", samples},
      {"calls_per_sample", r.calls_per_sample},
      {"median_ns", r.median_ns},
      {"gbps", r.gbps},
      {"memcpy_gbps", r.memcpy_gbps},
      {"copy_ratio", r.copy_ratio},
      {"copy_loop_gbps", r.copy_loop_gbps},
      {"copy_loop_ratio", r.copy_loop_ratio},
  };
}

// Like apply's output, the file appears whole or not at all.
void WriteJson(OutputFile file, const nlohmann::json& records) {
  const std::string text = records.dump(1) + "\n";
  AtomicOutput output(std::move(file));
  output.Write(text.data(), text.size());
  output.Commit();
}

void PrintHeader() {
  std::printf("%-50s %-10s %3s %5s %10s %7s %7s %6s %7s %6s\n", "case",
              "variant", "thr", "tasks", "median", "GB/s", "memcpy", "ratio",
              "loop", "ratio");
}

}  // namespace

void RunBench(const BenchArgs& args) {
  const lrelu_backend_t backend = BackendFromName(args.backend);
  const std::vector<std::string> variants = Variants(args.variants, backend);
  const std::vector<std::size_t> thread_counts = ThreadCounts(args.threads);
  const std::size_t max_elements =
      ParseCount(args.max_elements, "--max-elements", 1, std::size_t{1} << 40);
  const int samples =
      static_cast<int>(ParseCount(args.repeat, "--repeat", 1, 1000));
  const BackendInfo info = QueryBackend(backend);
  if (!info.available) {
    throw CliError("--backend " + info.name +
                   " is not usable here: " + info.unavailable_reason);
  }
  // Fails before any timing when the JSON's folder is not usable.
  OutputFile json_output;
  if (!args.json_file.empty()) {
    InstallSignalCleanup();
    json_output = ResolveOutput(args.json_file);
  }

  std::vector<lrelu::BenchCase> cases;
  std::size_t too_large = 0;
  for (const lrelu::BenchCase& c : LoadBenchCases(args.cases_file)) {
    if (c.id.find(args.filter) == std::string::npos) continue;
    if (static_cast<std::size_t>(c.elements) > max_elements) {
      ++too_large;
      continue;
    }
    cases.push_back(c);
  }
  if (cases.empty()) {
    throw CliError("no case matches (--filter " + Quote(args.filter, 80) +
                   ", --max-elements " + std::to_string(max_elements) + ", " +
                   std::to_string(too_large) + " larger ones left out)");
  }

  std::size_t most_threads = 1;
  for (std::size_t t : thread_counts) most_threads = std::max(most_threads, t);
  WorkerPool pool(most_threads - 1);
  BenchBuffers buffers;
  nlohmann::json records = nlohmann::json::array();
  const auto start = std::chrono::steady_clock::now();
  std::printf(
      "%s backend; median of %d samples; GB/s counts bytes read + written; "
      "ratio = GB/s over the copy's GB/s (memcpy, then a plain copy loop)\n",
      info.name.c_str(), samples);
  PrintHeader();
  std::size_t failed = 0;
  for (const lrelu::BenchCase& c : cases) {
    for (const std::string& variant : variants) {
      for (std::size_t threads : thread_counts) {
        BenchConfig config;
        config.options.backend = backend;
        config.options.variant = variant;
        config.options.threads = threads;
        config.options.cpu_target = args.cpu_target;
        config.samples = samples;
        std::printf("%-50s %-10s %3zu ", c.id.c_str(), variant.c_str(),
                    threads);
        std::fflush(stdout);
        try {
          const BenchResult r = MeasureCase(c, config, buffers, pool);
          std::printf("%5zu %10s %7.2f %7.2f %6.2f %7.2f %6.2f\n", r.tasks,
                      TimeText(r.median_ns).c_str(), r.gbps, r.memcpy_gbps,
                      r.copy_ratio, r.copy_loop_gbps, r.copy_loop_ratio);
          records.push_back(Record(c, info.name, variant, threads, samples, r));
        } catch (const std::bad_alloc&) {
          ++failed;
          std::printf("skipped: cannot allocate 3 buffers of %lld bytes\n",
                      static_cast<long long>(c.elements) *
                          static_cast<long long>(lrelu::dtype_size(c.dtype)));
        } catch (const lrelu::Error& e) {
          ++failed;
          std::printf("skipped: %s\n", e.what());
        }
        std::fflush(stdout);
      }
    }
  }
  const std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  std::printf(
      "%zu measured, %zu skipped, %zu cases over --max-elements "
      "%zu left out; %.1f s\n",
      records.size(), failed, too_large, max_elements, elapsed.count());
  if (!args.json_file.empty()) WriteJson(std::move(json_output), records);
}

}  // namespace lrelu_cli
