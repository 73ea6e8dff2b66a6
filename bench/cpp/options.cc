#include "options.h"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

#include "data.h"
#include "lrelu/kernel.hpp"

namespace lrelu_bench {
namespace {

const char kUsage[] =
    "usage: lrelu_bench_peers [options]\n"
    "  --sizes LIST      element counts: 1024,16Ki,4Mi,... or 'contract'\n"
    "                    (the 1-d sizes of contract/v1/bench.json)\n"
    "                    default 1Ki,16Ki,256Ki,4Mi,64Mi\n"
    "  --dtypes LIST     f32,f16,bf16,f64 (default all)\n"
    "  --threads LIST    1,2 (default both)\n"
    "  --peers LIST      lrelu,copy,plain,onednn,xnnpack,eigen (default all)\n"
    "  --quick           fewer rounds and shorter batches (smoke runs)\n"
    "  --rounds A,B,C    rounds for n<=256Ki, <=4Mi, larger (default "
    "40,22,12)\n"
    "  --batch-ms X      length of one timed batch (default 2)\n"
    "  --tries N         attempts per block while others load the CPUs (3)\n"
    "  --load-limit X    other processes' CPUs that count as load (0.15)\n"
    "  --retry-wait S    seconds between attempts (10)\n"
    "  --no-correctness  skip the bit-comparison pass\n"
    "  --strict          exit 3 if any lrelu entry point differs by a bit\n"
    "  --out FILE        JSON output (default out/bench/cpp.json)\n"
    "environment: PIN=0 leaves threads unpinned\n";

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

bool ParseSize(const std::string& s, size_t* n) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  const std::string suffix = end;
  size_t scale = 1;
  if (suffix == "K" || suffix == "Ki" || suffix == "k") {
    scale = size_t{1} << 10;
  } else if (suffix == "M" || suffix == "Mi") {
    scale = size_t{1} << 20;
  } else if (suffix == "G" || suffix == "Gi") {
    scale = size_t{1} << 30;
  } else if (!suffix.empty() || end == s.c_str()) {
    return false;
  }
  *n = static_cast<size_t>(v) * scale;
  return *n > 0;
}

// The 1-d forward sizes that contract/v1/bench.json lists, read through the
// contract library's parser (the package compiled into liblrelu_contract).
bool ContractSizes(std::vector<size_t>* sizes) {
  std::set<size_t> unique;
  try {
    for (const lrelu::BenchCase& c :
         lrelu::get_kernel("ai.onnx.LeakyRelu", LRELU_CONTRACT_VERSION)
             .bench_cases()) {
      if (c.category == "1d" && c.op == "forward") {
        unique.insert(static_cast<size_t>(c.elements));
      }
    }
  } catch (const lrelu::Error& e) {
    std::fprintf(stderr, "cannot read the contract's bench cases: %s\n",
                 e.what());
    return false;
  }
  sizes->assign(unique.begin(), unique.end());
  return !sizes->empty();
}

}  // namespace

bool ParseOptions(int argc, char** argv, Options* o) {
  std::string sizes = "1Ki,16Ki,256Ki,4Mi,64Mi", dtypes = "f32,f16,bf16,f64",
              threads = "1,2";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return false;
    } else if (a == "--quick") {
      o->settings.rounds_cache = 8;
      o->settings.rounds_mid = 6;
      o->settings.rounds_dram = 4;
      o->settings.batch_s = 1e-3;
      o->settings.warm_passes = 10;
      o->settings.warm_s = 0.01;
      o->settings.tries = 1;  // a smoke run: loaded blocks are flagged
    } else if (a == "--no-correctness") {
      o->correctness = false;
    } else if (a == "--strict") {
      o->strict = true;
    } else if (a == "--sizes" && value(&sizes)) {
    } else if (a == "--dtypes" && value(&dtypes)) {
    } else if (a == "--threads" && value(&threads)) {
    } else if (a == "--peers" && value(&v)) {
      o->peers = Split(v);
    } else if (a == "--out" && value(&o->out)) {
    } else if (a == "--rounds" && value(&v)) {
      const auto r = Split(v);
      if (r.size() != 3) return std::fputs(kUsage, stderr), false;
      o->settings.rounds_cache = std::atoi(r[0].c_str());
      o->settings.rounds_mid = std::atoi(r[1].c_str());
      o->settings.rounds_dram = std::atoi(r[2].c_str());
    } else if (a == "--batch-ms" && value(&v)) {
      o->settings.batch_s = std::atof(v.c_str()) * 1e-3;
    } else if (a == "--tries" && value(&v)) {
      o->settings.tries = std::max(1, std::atoi(v.c_str()));
    } else if (a == "--load-limit" && value(&v)) {
      o->settings.load_limit = std::atof(v.c_str());
    } else if (a == "--retry-wait" && value(&v)) {
      o->settings.retry_wait_s = std::atof(v.c_str());
    } else {
      std::fprintf(stderr, "unknown or incomplete option '%s'\n%s", a.c_str(),
                   kUsage);
      return false;
    }
  }
  if (sizes == "contract") {
    if (!ContractSizes(&o->sizes)) return false;
  } else {
    for (const auto& s : Split(sizes)) {
      size_t n;
      if (!ParseSize(s, &n)) {
        std::fprintf(stderr, "bad size '%s'\n", s.c_str());
        return false;
      }
      o->sizes.push_back(n);
    }
  }
  for (const auto& s : Split(dtypes)) {
    lrelu_dtype_t d;
    if (!ParseDtype(s, &d)) {
      std::fprintf(stderr, "bad dtype '%s'\n", s.c_str());
      return false;
    }
    o->dtypes.push_back(d);
  }
  for (const auto& s : Split(threads))
    o->threads.push_back(std::atoi(s.c_str()));
  return !o->sizes.empty() && !o->dtypes.empty() && !o->threads.empty();
}

}  // namespace lrelu_bench
