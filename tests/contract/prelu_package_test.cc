// The PRelu package (contract/prelu/v1) through liblrelu_contract's public
// API: loaded by id and version, pinned and from a directory with its
// digests checked, and every case run bit-exact through lrelu_prelu /
// lrelu_prelu_backward on every variant, layout, SIMD target and thread
// count; broken implementations (dx or dalpha off by one bit) are caught.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "expect_all_pass.h"
#include "lrelu/kernel.hpp"

namespace {

namespace fs = std::filesystem;

constexpr char kId[] = "ai.onnx.PRelu";

const lrelu::Kernel& ThePackage() {
  static const lrelu::Kernel kernel = lrelu::get_kernel(kId, 1);
  return kernel;
}

TEST(PreluPackage, LoadsByVersionAndDigest) {
  const lrelu::Kernel& k = ThePackage();
  EXPECT_EQ(k.id(), kId);
  EXPECT_EQ(k.contract_version(), 1);
  EXPECT_EQ(k.input_names(), (std::vector<std::string>{"x", "alpha"}));
  EXPECT_EQ(k.output_names(), (std::vector<std::string>{"y"}));
  EXPECT_EQ(k.dtypes().size(), 4u);
  EXPECT_EQ(k.metadata().generator, "contract/prelu/generate.py");
  ASSERT_EQ(k.manifest_sha256().size(), 64u);
  EXPECT_EQ(k.manifest_sha256(), k.metadata().sha256.at("manifest.json"));
  EXPECT_EQ(lrelu::get_kernel_pinned(kId, k.manifest_sha256()).id(), kId);
  EXPECT_THROW(lrelu::get_kernel(kId, 2), lrelu::Error);
  // LeakyRelu's digest does not pin PRelu.
  EXPECT_THROW(
      lrelu::get_kernel_pinned(
          kId, lrelu::get_kernel("ai.onnx.LeakyRelu", 1).manifest_sha256()),
      lrelu::Error);
}

TEST(PreluPackage, CasesCoverBothOpsAndDalpha) {
  std::size_t forward = 0, backward = 0, specials = 0;
  for (const lrelu::TestCase& c : ThePackage().test_cases()) {
    EXPECT_EQ(c.kernel_id, kId);
    if (c.op == "forward") ++forward;
    if (c.op == "backward") {
      ++backward;
      EXPECT_EQ(c.expected.count("dalpha"), 1u) << c.id;
    }
    if (c.id.find("/special/") != std::string::npos) ++specials;
  }
  EXPECT_GT(forward, 0u);
  EXPECT_GT(backward, 0u);
  EXPECT_GT(specials, 0u);  // overflow, NaN and inf rules of dalpha
}

TEST(PreluPackage, SourceDirectoryLoadsAndModifiedFileIsRefused) {
  const std::string dir = std::string(LRELU_CONTRACT_SOURCE_DIR) + "/prelu/v1";
  EXPECT_EQ(lrelu::load_kernel_from_dir(dir).manifest_sha256(),
            ThePackage().manifest_sha256());

  std::string pattern =
      (fs::temp_directory_path() / "lrelu-prelu-XXXXXX").string();
  const char* made = mkdtemp(pattern.data());
  ASSERT_NE(made, nullptr) << "mkdtemp " << pattern;
  const fs::path tmp = made;
  for (const auto& kv : ThePackage().files()) {
    std::ofstream(tmp / kv.first, std::ios::binary) << kv.second;
  }
  EXPECT_EQ(lrelu::load_kernel_from_dir(tmp.string()).manifest_sha256(),
            ThePackage().manifest_sha256());
  std::string test = ThePackage().files().at("test.json");
  const std::size_t at = test.find("\"expected\"");
  ASSERT_NE(at, std::string::npos);
  test[test.find('"', at + 12) + 1] ^= 1;  // one hex digit of an output
  std::ofstream(tmp / "test.json", std::ios::binary | std::ios::trunc) << test;
  try {
    lrelu::load_kernel_from_dir(tmp.string());
    ADD_FAILURE() << "a modified test.json was accepted";
  } catch (const lrelu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("sha256"), std::string::npos)
        << e.what();
  }
  // The WGSL files are the package's too: each is listed and checked.
  std::ofstream(tmp / "test.json", std::ios::binary | std::ios::trunc)
      << ThePackage().files().at("test.json");
  for (const char* name :
       {"prelu.wgsl.jinja", "prelu-f32.wgsl", "prelu-f16.wgsl"}) {
    std::string wgsl = ThePackage().files().at(name);
    ASSERT_FALSE(wgsl.empty()) << name;
    wgsl[wgsl.find("u32")] = 'i';
    std::ofstream(tmp / name, std::ios::binary | std::ios::trunc) << wgsl;
    try {
      lrelu::load_kernel_from_dir(tmp.string());
      ADD_FAILURE() << "a modified " << name << " was accepted";
    } catch (const lrelu::Error& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos)
          << e.what();
    }
    std::ofstream(tmp / name, std::ios::binary | std::ios::trunc)
        << ThePackage().files().at(name);
  }
  EXPECT_EQ(lrelu::load_kernel_from_dir(tmp.string()).manifest_sha256(),
            ThePackage().manifest_sha256());
  fs::remove_all(tmp);
}

TEST(PreluPackage, KernelCall) {
  const lrelu::Kernel& k = ThePackage();
  const float x[4] = {-2.0f, -1.0f, 0.5f, 3.0f};
  const float alpha[2] = {0.25f, 0.5f};
  const lrelu::TensorView xv(const_cast<float*>(x), lrelu::DType::kFloat32,
                             {2, 2});
  const lrelu::TensorView av(const_cast<float*>(alpha), lrelu::DType::kFloat32,
                             {2, 1});
  const auto out = k({{"x", xv}, {"alpha", av}});
  const float* y = static_cast<const float*>(out.at("y").data());
  EXPECT_EQ(y[0], -0.5f);
  EXPECT_EQ(y[1], -0.25f);
  EXPECT_EQ(y[2], 0.5f);
  EXPECT_EQ(y[3], 3.0f);
  EXPECT_THROW(k({{"x", xv}}), lrelu::Error);  // alpha is an input
  EXPECT_THROW(k({{"x", xv}, {"alpha", av}}, {{"alpha", 0.1}}), lrelu::Error);
}

struct PreluSetup {
  const char* variant;
  lrelu::CaseLayout layout;
  bool in_place;
};

TEST(PreluConformance, EveryCaseEveryVariantTargetAndThreadCount) {
  using L = lrelu::CaseLayout;
  for (const std::string& target : lrelu::cpu_targets()) {
    for (std::size_t threads : {1u, 2u, 3u, 7u}) {
      for (const PreluSetup& s :
           {PreluSetup{"", L::kContiguous, false},
            PreluSetup{"", L::kStrided, false},
            PreluSetup{"", L::kContiguous, true},
            PreluSetup{"", L::kStrided, true},
            PreluSetup{"reference", L::kContiguous, false},
            PreluSetup{"strided", L::kStrided, false}}) {
        SCOPED_TRACE(target + " threads=" + std::to_string(threads) + " " +
                     s.variant + (s.layout == L::kStrided ? " strided" : "") +
                     (s.in_place ? " in place" : ""));
        lrelu::RunOptions run;
        run.options.cpu_target = target;
        run.options.threads = threads;
        run.options.variant = s.variant;
        run.layout = s.layout;
        run.in_place = s.in_place;
        ExpectAllPass(lrelu::run_cases(ThePackage(), run));
      }
    }
  }
}

// A broken implementation of `output` (one bit flipped in element 0) fails
// every case that has that output (and no any-NaN rule at element 0).
void ExpectCaught(const std::string& output) {
  std::size_t with_output = 0, caught = 0;
  const auto results = lrelu::run_cases(
      ThePackage(), lrelu::RunOptions(),
      [&](const lrelu::TestCase& c,
          const std::map<std::string, lrelu::TensorView>& inputs,
          const std::map<std::string, lrelu::TensorView>& outputs,
          const lrelu::RunOptions& run) {
        lrelu::run_case_with_library(c, inputs, outputs, run);
        const auto it = outputs.find(output);
        if (it != outputs.end()) {
          static_cast<unsigned char*>(it->second.data)[0] ^= 1;
        }
      });
  const auto& cases = ThePackage().test_cases();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (cases[i].expected.count(output) == 0) continue;
    // Where any NaN passes, a flipped bit may leave a NaN.
    const auto nan = cases[i].anynan.find(output);
    if (nan != cases[i].anynan.end() && !nan->second.empty() &&
        nan->second.front() == 0) {
      continue;
    }
    ++with_output;
    if (!results[i].passed) ++caught;
  }
  EXPECT_GT(with_output, 0u);
  EXPECT_EQ(caught, with_output) << output;
}

TEST(PreluConformance, BrokenDalphaIsCaught) { ExpectCaught("dalpha"); }
TEST(PreluConformance, BrokenYIsCaught) { ExpectCaught("y"); }

}  // namespace
