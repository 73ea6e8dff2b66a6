// Fuzz target (b): the contract package loader (include/lrelu/kernel.hpp).
// The first byte picks what the rest of the input is:
//   0: a test.json document for lrelu::parse_test_cases; the cases it
//      accepts are then run through the conformance runner (they may fail,
//      but must not crash);
//   1-4: one file of a package (manifest, test, bench, metadata) that
//      replaces the same file of a small valid package, whose metadata.json
//      digests are updated so that parsing, not the sha256 check, decides.
// Anything malformed must be refused with lrelu::Error, and nothing else.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "contract/package.h"
#include "contract/sha256.h"
#include "lrelu/kernel.hpp"

namespace {

using nlohmann::json;

const char* const kFiles[] = {"manifest.json", "test.json", "bench.json",
                              "metadata.json"};

// Rewrites metadata.json so that it lists the sha256 and size of every
// other file as they are now. A metadata.json that is not a JSON object with
// a "files" object is left as it is (the loader must refuse it).
void UpdateDigests(lrelu::contract::Files* files) {
  json metadata = json::parse((*files)["metadata.json"], nullptr, false);
  if (!metadata.is_object() || !metadata["files"].is_object()) return;
  for (const char* name : {"manifest.json", "test.json", "bench.json"}) {
    metadata["files"][name]["sha256"] =
        lrelu::contract::Sha256Hex((*files)[name]);
    metadata["files"][name]["bytes"] = (*files)[name].size();
  }
  (*files)["metadata.json"] = metadata.dump();
}

// The compiled-in package cut down to a few cases, so that one execution
// parses kilobytes, not the full 600 KB test.json.
const lrelu::contract::Files& SmallPackage() {
  static const lrelu::contract::Files* files = [] {
    const lrelu::Kernel kernel = lrelu::get_kernel("ai.onnx.LeakyRelu", 1);
    auto* f = new lrelu::contract::Files(kernel.files());
    for (const char* name : {"test.json", "bench.json"}) {
      json doc = json::parse((*f)[name]);
      json& cases = doc["cases"];
      cases.erase(cases.begin() + 3, cases.end());
      (*f)[name] = doc.dump();
    }
    UpdateDigests(f);
    // The harness is only meaningful if the unmodified package loads.
    lrelu::contract::BuildKernel(*f, "fuzz");
    return f;
  }();
  return *files;
}

// Known bug (docs/errors.md): the runner's strides overflow for an empty
// shape whose other extents multiply past int64. Skipped only with
// LRELU_FUZZ_TOLERATE_KNOWN_BUGS=1, to fuzz past it before it is fixed.
bool HitsKnownBug(const lrelu::TestCase& c) {
  if (std::getenv("LRELU_FUZZ_TOLERATE_KNOWN_BUGS") == nullptr) return false;
  int64_t product = 1;
  for (int64_t d : c.shape) {
    if (d != 0 && __builtin_mul_overflow(product, d, &product)) return true;
  }
  return false;
}

void RunCases(const std::vector<lrelu::TestCase>& cases) {
  for (const lrelu::CaseLayout layout :
       {lrelu::CaseLayout::kContiguous, lrelu::CaseLayout::kStrided}) {
    lrelu::RunOptions options;
    options.layout = layout;
    for (const lrelu::TestCase& c : cases) {
      // Big cases cost time without reaching new code.
      if (c.numel() > 4096 || c.shape.size() > 64 || HitsKnownBug(c)) continue;
      lrelu::run_case(c, options);
      options.in_place = true;
      lrelu::run_case(c, options);
      options.in_place = false;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  SmallPackage();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1,
                              size - 1);
  const int mode = data[0] % 5;
  try {
    if (mode == 0) {
      RunCases(lrelu::parse_test_cases(text));
    } else {
      lrelu::contract::Files files = SmallPackage();
      const char* name = kFiles[mode - 1];
      files[name] = std::string(text);
      UpdateDigests(&files);
      const auto impl = lrelu::contract::BuildKernel(files, "fuzz");
      RunCases(impl->test_cases);
    }
  } catch (const lrelu::Error& e) {
    if (e.status() != LRELU_STATUS_INVALID_ARGUMENT) {
      std::fprintf(stderr, "unexpected status %d: %s\n",
                   static_cast<int>(e.status()), e.what());
      std::abort();
    }
  }
  return 0;
}
