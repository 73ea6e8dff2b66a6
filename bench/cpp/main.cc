// lrelu_bench_peers: times lrelu, the copy baselines and the LeakyReLU of
// every peer library found at build time, in one process and interleaved,
// and checks every peer's output against lrelu's bit for bit. Writes JSON;
// bench/report/ turns it into tables, goals and a plot.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "contender.h"
#include "data.h"
#include "harness.h"
#include "options.h"
#include "system.h"

namespace lrelu_bench {
namespace {

std::string PeerKey(const std::string& impl) {
  std::string key;
  for (char c : impl) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return key == "plainloop" ? "plain" : key;
}

ContenderList MakeContenders(const Options& o) {
  ContenderList all, kept;
  AddCopyVariants(&all);  // first: memcpy, 1 thread, is the baseline
  AddLreluVariants(&all);
  AddPlainVariants(&all);
#ifdef LRELU_BENCH_HAVE_ONEDNN
  AddOnednnVariants(&all);
#endif
#ifdef LRELU_BENCH_HAVE_XNNPACK
  AddXnnpackVariants(&all);
#endif
#ifdef LRELU_BENCH_HAVE_EIGEN
  AddEigenVariants(&all);
#endif
  for (size_t i = 0; i < all.size(); ++i) {
    const Contender& v = *all[i];
    const bool peer_ok =
        o.peers.empty() || std::find(o.peers.begin(), o.peers.end(),
                                     PeerKey(v.impl())) != o.peers.end();
    const bool threads_ok = std::find(o.threads.begin(), o.threads.end(),
                                      v.threads()) != o.threads.end();
    if (i == 0 || (peer_ok && threads_ok)) kept.push_back(std::move(all[i]));
  }
  return kept;
}

nlohmann::json Describe(const Contender& v) {
  return {{"impl", v.impl()},
          {"variant", v.name()},
          {"threads", v.threads()},
          {"inplace", v.inplace()},
          {"is_copy", v.is_copy()}};
}

// Every peer against lrelu's one-call output, 1 thread, out of place.
nlohmann::json CheckCorrectness(ContenderList& contenders, lrelu_dtype_t dtype,
                                std::vector<pid_t>* known,
                                std::string* pin_log) {
  const size_t n = 100003;  // odd, so every kernel has a tail
  const size_t bytes = n * lrelu_dtype_size(dtype);
  Buffer x(bytes), expected(bytes), y(bytes);
  FillWithSpecials(dtype, x.data(), n, 7);
  const int64_t shape = static_cast<int64_t>(n);
  const lrelu_tensor_t xt{x.data(), dtype, 1, &shape, nullptr};
  const lrelu_tensor_t et{expected.data(), dtype, 1, &shape, nullptr};
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.threads = 1;
  if (lrelu_leaky_relu(&xt, kAlpha, &et, &options) != LRELU_STATUS_OK) {
    std::fprintf(stderr, "lrelu failed: %s\n", lrelu_last_error());
    std::exit(1);
  }
  nlohmann::json rows = nlohmann::json::array();
  for (auto& v : contenders) {
    if (v->is_copy()) continue;
    nlohmann::json row = Describe(*v);
    row["dtype"] = ShortName(dtype);
    row["n"] = n;
    std::string why;
    if (!v->Supports(dtype)) continue;
    if (v->inplace()) {
      std::memcpy(y.data(), x.data(), bytes);
    } else {
      std::memset(y.data(), 0xA5, bytes);
    }
    const Buffers p{dtype, n, x.data(), y.data()};
    if (!v->Setup(p, &why)) {
      row["result"] = "UNSUPPORTED: " + why;
      row["exact"] = false;
      row["supported"] = false;
    } else {
      v->Run(0);  // call 0: alpha 0.01 for in-place contenders too
      PinNewThreads(known, v->impl() + " " + std::to_string(v->threads()) + "T",
                    pin_log);
      const Diff d = Compare(dtype, expected.data(), y.data(), n);
      row["result"] = d.ToString();
      row["exact"] = d.exact();
      row["supported"] = true;
      row["info"] = v->Info();
      v->Teardown();
    }
    rows.push_back(row);
  }
  return rows;
}

std::string Now() {
  char buf[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %Z", std::localtime(&t));
  return buf;
}

int Main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) return 2;

  std::vector<pid_t> known = ListThreads();
  std::string pin_log;
  // lrelu sizes its own pool from this thread's CPU affinity at first use,
  // so start it before pinning this thread to one CPU.
  {
    const size_t n = size_t{1} << 20;
    Buffer x(n * 4), y(n * 4);
    const int64_t shape = static_cast<int64_t>(n);
    const lrelu_tensor_t xt{x.data(), LRELU_DTYPE_FLOAT32, 1, &shape, nullptr};
    const lrelu_tensor_t yt{y.data(), LRELU_DTYPE_FLOAT32, 1, &shape, nullptr};
    lrelu_leaky_relu(&xt, kAlpha, &yt, nullptr);
    PinNewThreads(&known, "lrelu pool", &pin_log);
  }
  const char* pin = std::getenv("PIN");
  if (!(pin && std::string(pin) == "0")) {
    PinThread(0, 0);
    pin_log = "main->cpu0; " + pin_log;
  }

  ContenderList contenders = MakeContenders(o);
  nlohmann::json doc;
  doc["meta"] = {{"harness", "lrelu_bench_peers"},
                 {"date", Now()},
                 {"cpu", DescribeCpu()},
                 {"lrelu_version", lrelu_version()},
                 {"lrelu_targets", lrelu_cpu_targets_compiled()},
                 {"lrelu_best_target", lrelu_cpu_target_name(0)},
                 {"baseline", "memcpy, 1 thread"},
                 {"batch_ms", o.settings.batch_s * 1e3},
                 {"rounds",
                  {o.settings.rounds_cache, o.settings.rounds_mid,
                   o.settings.rounds_dram}},
                 {"load_limit", o.settings.load_limit},
                 {"tries", o.settings.tries}};
  nlohmann::json records = nlohmann::json::array();
  nlohmann::json correctness = nlohmann::json::array();
  nlohmann::json blocks = nlohmann::json::array();

  if (o.correctness) {
    for (lrelu_dtype_t dtype : o.dtypes) {
      for (auto& row : CheckCorrectness(contenders, dtype, &known, &pin_log)) {
        correctness.push_back(row);
      }
    }
  }

  for (size_t n : o.sizes) {
    for (lrelu_dtype_t dtype : o.dtypes) {
      const size_t bytes = n * lrelu_dtype_size(dtype);
      Buffer x(bytes), y(bytes);
      FillUniform(dtype, x.data(), n, 1);
      const Buffers p{dtype, n, x.data(), y.data()};
      const Block b = TimeBlock(contenders, 0, p, o.settings, &known, &pin_log);
      std::printf("%s n=%zu: other load %.2f CPU, %d attempt(s)%s\n",
                  ShortName(dtype), n, b.other_load, b.attempts,
                  b.loaded ? " [loaded: cells flagged !]" : "");
      blocks.push_back({{"dtype", ShortName(dtype)},
                        {"n", n},
                        {"other_load", b.other_load},
                        {"attempts", b.attempts},
                        {"loaded", b.loaded},
                        {"rounds", b.rounds}});
      for (size_t i = 0; i < contenders.size(); ++i) {
        const Cell& c = b.cells[i];
        const Contender& v = *contenders[i];
        if (!v.Supports(dtype)) continue;
        nlohmann::json r = Describe(v);
        r["lang"] = "cpp";
        r["dtype"] = ShortName(dtype);
        r["n"] = n;
        r["supported"] = c.supported;
        if (!c.supported) {
          r["why"] = c.why;
          records.push_back(r);
          continue;
        }
        const double gbps = 2.0 * static_cast<double>(bytes) / c.median_ns;
        r["median_ns"] = c.median_ns;
        r["gbps"] = gbps;
        r["ratio_to_memcpy"] = c.ratio;
        r["ratio_q1"] = c.ratio_q1;
        r["ratio_q3"] = c.ratio_q3;
        r["noisy"] = c.noisy;
        r["loaded"] = b.loaded;
        r["other_load"] = b.other_load;
        r["calls_per_batch"] = c.calls_per_batch;
        r["info"] = c.info;
        records.push_back(r);
        std::printf("  %-8s %-42s %dT  %6.2f%s%s  %8.1f GB/s\n",
                    v.impl().c_str(), v.name().c_str(), v.threads(), c.ratio,
                    c.noisy ? "~" : " ", b.loaded ? "!" : " ", gbps);
      }
      std::fflush(stdout);
    }
  }
  doc["meta"]["pinning"] = pin_log;
  doc["records"] = records;
  doc["correctness"] = correctness;
  doc["blocks"] = blocks;
  const std::filesystem::path out_path(o.out);
  if (out_path.has_parent_path()) {
    std::filesystem::create_directories(out_path.parent_path());
  }
  std::ofstream out(o.out);
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", o.out.c_str());
    return 1;
  }
  out << doc.dump(1) << "\n";
  std::printf("wrote %s\n", o.out.c_str());
  // lrelu's entry points must agree bit for bit with each other.
  int inexact = 0;
  for (const auto& row : correctness) {
    if (row["impl"] == "lrelu" && !row["exact"].get<bool>()) {
      std::fprintf(stderr, "lrelu %s, %s, %dT: %s\n",
                   row["variant"].get<std::string>().c_str(),
                   row["dtype"].get<std::string>().c_str(),
                   row["threads"].get<int>(),
                   row["result"].get<std::string>().c_str());
      ++inexact;
    }
  }
  return inexact && o.strict ? 3 : 0;
}

}  // namespace
}  // namespace lrelu_bench

int main(int argc, char** argv) { return lrelu_bench::Main(argc, argv); }
