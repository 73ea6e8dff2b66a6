// The contract package loader through the public API: getting a kernel by
// version or pinned digest, refusing wrong ids, versions and modified files,
// and calling kernel({x}) -> {y}.
#include "lrelu/kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "lrelu/lrelu.h"

namespace {

namespace fs = std::filesystem;

constexpr char kId[] = "ai.onnx.LeakyRelu";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// A fresh directory under the system temp dir, removed at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (fs::temp_directory_path() / "lrelu-contract-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Expects `f` to throw lrelu::Error whose message contains `text`.
template <typename F>
void ExpectError(F f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning '" << text << "'";
  } catch (const lrelu::Error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
        << "message: " << e.what();
    EXPECT_EQ(e.status(), LRELU_STATUS_INVALID_ARGUMENT);
  }
}

TEST(GetKernel, ByVersion) {
  const lrelu::Kernel k = lrelu::get_kernel(kId, 1);
  EXPECT_EQ(k.id(), kId);
  EXPECT_EQ(k.contract_version(), 1);
  EXPECT_EQ(k.contract_version(), lrelu::contract_version());
  EXPECT_EQ(k.default_alpha(), 0.01);
  EXPECT_EQ(k.dtypes(), (std::vector<lrelu::DType>{
                            lrelu::DType::kFloat32, lrelu::DType::kFloat16,
                            lrelu::DType::kBFloat16, lrelu::DType::kFloat64}));
  EXPECT_EQ(k.input_names(), std::vector<std::string>{"x"});
  EXPECT_EQ(k.output_names(), std::vector<std::string>{"y"});
  EXPECT_EQ(k.attribute_names(), std::vector<std::string>{"alpha"});
  EXPECT_GT(k.test_cases().size(), 300u);
  EXPECT_GT(k.bench_cases().size(), 100u);
  EXPECT_EQ(k.metadata().origin, "embedded:v1");
  EXPECT_EQ(k.metadata().id, kId);
  // manifest, test and bench JSON plus the five WGSL templates.
  EXPECT_EQ(k.metadata().sha256.size(), 8u);
  EXPECT_EQ(k.metadata().sha256.at("manifest.json"), k.manifest_sha256());
  // metadata.json lists the CPU backend's variants as the backend table
  // (api/backends.cc, read through the C ABI) has them, in order.
  std::vector<std::string> cpu_variants;
  for (size_t i = 0; lrelu_backend_variant(LRELU_BACKEND_CPU, i) != nullptr;
       ++i) {
    cpu_variants.push_back(lrelu_backend_variant(LRELU_BACKEND_CPU, i));
  }
  EXPECT_EQ(cpu_variants,
            (std::vector<std::string>{"reference", "contiguous", "strided"}));
  EXPECT_EQ(k.metadata().variants, cpu_variants);
  EXPECT_FALSE(k.metadata().source_revision.empty());
  EXPECT_FALSE(k.metadata().build.empty());
  EXPECT_EQ(k.manifest_sha256().size(), 64u);
}

TEST(GetKernel, EmbeddedBytesEqualTheSourceFiles) {
  const lrelu::Kernel k = lrelu::get_kernel(kId, 1);
  // The four JSON files and the five WGSL templates metadata.json lists.
  ASSERT_EQ(k.files().size(), 9u);
  EXPECT_EQ(k.files().count("unary-vec4.wgsl.jinja"), 1u);
  for (const auto& kv : k.files()) {
    EXPECT_EQ(kv.second,
              ReadFile(fs::path(LRELU_CONTRACT_SOURCE_DIR) / "v1" / kv.first))
        << kv.first << " differs from the compiled-in copy: rebuild";
  }
}

TEST(GetKernel, CasesParsed) {
  const lrelu::Kernel k = lrelu::get_kernel(kId, 1);
  const lrelu::TestCase* example = nullptr;
  for (const auto& c : k.test_cases()) {
    if (c.id == "forward/float16/seed/example") example = &c;
  }
  ASSERT_NE(example, nullptr);
  EXPECT_EQ(example->op, "forward");
  EXPECT_EQ(example->dtype, lrelu::DType::kFloat16);
  EXPECT_EQ(example->shape, std::vector<int64_t>{5});
  EXPECT_FALSE(example->alpha.has_value());
  // -2, -1, 0, 1, 2 in float16.
  EXPECT_EQ(example->inputs.at("x"),
            (std::vector<uint64_t>{0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000}));
  bool found_bench = false;
  for (const auto& b : k.bench_cases()) {
    if (b.id == "forward/float32/shape=[4096,11008]/in-place") {
      found_bench = true;
      EXPECT_TRUE(b.in_place);
      EXPECT_EQ(b.elements, 4096 * 11008);
      EXPECT_EQ(b.alpha, 0.01);
    }
  }
  EXPECT_TRUE(found_bench);
}

TEST(GetKernel, UnknownVersion) {
  ExpectError([] { lrelu::get_kernel(kId, 2); }, "no contract version 2");
  ExpectError([] { lrelu::get_kernel(kId, 0); }, "no contract version 0");
}

TEST(GetKernel, UnknownId) {
  ExpectError([] { lrelu::get_kernel("ai.onnx.Relu", 1); },
              "unknown kernel 'ai.onnx.Relu'");
  ExpectError([] { lrelu::get_kernel("", 1); }, "unknown kernel");
}

TEST(GetKernel, Pinned) {
  const std::string sha = lrelu::get_kernel(kId, 1).manifest_sha256();
  EXPECT_EQ(lrelu::get_kernel_pinned(kId, sha).contract_version(), 1);
  std::string upper = sha;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  EXPECT_EQ(lrelu::get_kernel_pinned(kId, upper).manifest_sha256(), sha);

  std::string other = sha;
  other[10] = other[10] == '0' ? '1' : '0';
  ExpectError([&] { lrelu::get_kernel_pinned(kId, other); },
              "no ai.onnx.LeakyRelu contract with manifest sha256");
  ExpectError([&] { lrelu::get_kernel_pinned(kId, "abc"); }, "64 hex digits");
  ExpectError([&] { lrelu::get_kernel_pinned("ai.onnx.Relu", sha); },
              "unknown kernel");
}

TEST(GetKernel, AvailableKernels) {
  // LeakyRelu's package and PRelu's (prelu_package_test.cc), in the order
  // of their directories: prelu/v1, v1.
  const auto refs = lrelu::available_kernels();
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].id, "ai.onnx.PRelu");
  EXPECT_EQ(refs[1].id, kId);
  EXPECT_EQ(refs[1].contract_version, 1);
  EXPECT_EQ(refs[1].manifest_sha256,
            lrelu::get_kernel(kId, 1).manifest_sha256());
}

TEST(LoadFromDir, SourcePackage) {
  const std::string dir = std::string(LRELU_CONTRACT_SOURCE_DIR) + "/v1";
  const lrelu::Kernel k = lrelu::load_kernel_from_dir(dir);
  EXPECT_EQ(k.metadata().origin, dir);
  EXPECT_EQ(k.manifest_sha256(), lrelu::get_kernel(kId, 1).manifest_sha256());
  EXPECT_EQ(k.test_cases().size(),
            lrelu::get_kernel(kId, 1).test_cases().size());
}

// Writes the compiled-in package to a directory, where a test may spoil it.
void ExportPackage(const fs::path& dir) {
  for (const auto& kv : lrelu::get_kernel(kId, 1).files()) {
    WriteFile(dir / kv.first, kv.second);
  }
}

TEST(LoadFromDir, ExportedPackageLoads) {
  TempDir tmp;
  ExportPackage(tmp.path());
  EXPECT_EQ(lrelu::load_kernel_from_dir(tmp.path().string()).manifest_sha256(),
            lrelu::get_kernel(kId, 1).manifest_sha256());
}

TEST(LoadFromDir, ModifiedFilesAreRefused) {
  for (const char* name :
       {"test.json", "manifest.json", "bench.json", "helpers-f32.wgsl"}) {
    SCOPED_TRACE(name);
    TempDir tmp;
    ExportPackage(tmp.path());
    std::string bytes = ReadFile(tmp.path() / name);
    // Change one hex digit of an expected value, or one letter of text.
    std::size_t at = bytes.find("\"bc00\"") != std::string::npos
                         ? bytes.find("\"bc00\"") + 1
                         : bytes.find("LeakyRelu");
    if (at == std::string::npos) at = bytes.find("bool");  // a template
    ASSERT_NE(at, std::string::npos);
    bytes[at] = bytes[at] == 'b' ? 'c' : 'b';
    WriteFile(tmp.path() / name, bytes);
    ExpectError([&] { lrelu::load_kernel_from_dir(tmp.path().string()); },
                std::string(name) + ": sha256");
  }
}

TEST(LoadFromDir, AppendedByteIsRefused) {
  TempDir tmp;
  ExportPackage(tmp.path());
  WriteFile(tmp.path() / "test.json",
            ReadFile(tmp.path() / "test.json") + "\n");
  ExpectError([&] { lrelu::load_kernel_from_dir(tmp.path().string()); },
              "modified");
}

TEST(LoadFromDir, MissingFileOrDirectory) {
  TempDir tmp;
  ExportPackage(tmp.path());
  fs::remove(tmp.path() / "bench.json");
  ExpectError([&] { lrelu::load_kernel_from_dir(tmp.path().string()); },
              "bench.json");
  ExpectError([] { lrelu::load_kernel_from_dir("/nonexistent/lrelu"); },
              "cannot read");
}

TEST(LoadFromDir, MissingTemplateIsRefused) {
  TempDir tmp;
  ExportPackage(tmp.path());
  fs::remove(tmp.path() / "multiply-f32.wgsl");
  ExpectError([&] { lrelu::load_kernel_from_dir(tmp.path().string()); },
              "multiply-f32.wgsl");
}

TEST(LoadFromDir, MetadataWithoutDigestIsRefused) {
  TempDir tmp;
  ExportPackage(tmp.path());
  std::string meta = ReadFile(tmp.path() / "metadata.json");
  const std::size_t at = meta.find("\"bench.json\"");
  ASSERT_NE(at, std::string::npos);
  meta.replace(at, 12, "\"bench.jsox\"");
  WriteFile(tmp.path() / "metadata.json", meta);
  ExpectError([&] { lrelu::load_kernel_from_dir(tmp.path().string()); },
              "lists no sha256 for bench.json");
}

// kernel({x}) -> {y}, the seed's examples.
TEST(KernelCall, SeedExamples) {
  const lrelu::Kernel kernel = lrelu::get_kernel(kId, 1);
  float x[5] = {-2, -1, 0, 1, 2};
  const lrelu::TensorView xv(x, lrelu::DType::kFloat32, {5});
  auto out = kernel({{"x", xv}});
  ASSERT_EQ(out.size(), 1u);
  const lrelu::Tensor& y = out.at("y");
  EXPECT_EQ(y.dtype(), lrelu::DType::kFloat32);
  EXPECT_EQ(y.shape(), std::vector<int64_t>{5});
  const float* yv = static_cast<const float*>(y.data());
  const float alpha = 0.01f;
  EXPECT_EQ(yv[0], -2.0f * alpha);
  EXPECT_EQ(yv[1], -1.0f * alpha);
  EXPECT_EQ(yv[2], 0.0f);
  EXPECT_EQ(yv[3], 1.0f);
  EXPECT_EQ(yv[4], 2.0f);
  EXPECT_NEAR(yv[0], -0.02, 1e-8);

  double x3 = -3;
  auto out2 =
      kernel({{"x", lrelu::TensorView(&x3, lrelu::DType::kFloat64, {})}},
             {{"alpha", 0.2}});
  EXPECT_EQ(out2.at("y").shape(), std::vector<int64_t>{});
  EXPECT_EQ(*static_cast<const double*>(out2.at("y").data()), -3 * 0.2);
  EXPECT_NEAR(*static_cast<const double*>(out2.at("y").data()), -0.6, 1e-15);
}

TEST(KernelCall, StridedInputEmptyAndOptions) {
  const lrelu::Kernel kernel = lrelu::get_kernel(kId, 1);
  float buffer[6] = {-4, 99, 5, 99, -8, 99};
  const lrelu::TensorView xv(buffer, lrelu::DType::kFloat32, {3}, {2});
  lrelu::Options options;
  options.variant = "strided";
  auto out = kernel({{"x", xv}}, {{"alpha", 0.5}}, options);
  const float* y = static_cast<const float*>(out.at("y").data());
  EXPECT_EQ(y[0], -2.0f);
  EXPECT_EQ(y[1], 5.0f);
  EXPECT_EQ(y[2], -4.0f);

  const lrelu::TensorView empty(nullptr, lrelu::DType::kBFloat16, {2, 0, 3});
  auto none = kernel({{"x", empty}});
  EXPECT_EQ(none.at("y").shape(), (std::vector<int64_t>{2, 0, 3}));
  EXPECT_EQ(none.at("y").dtype(), lrelu::DType::kBFloat16);
  EXPECT_EQ(none.at("y").numel(), 0u);

  lrelu::Options contiguous;
  contiguous.variant = "contiguous";
  try {
    kernel({{"x", xv}}, {}, contiguous);
    ADD_FAILURE() << "forcing contiguous on a strided view must fail";
  } catch (const lrelu::Error& e) {
    EXPECT_EQ(e.status(), LRELU_STATUS_UNSUPPORTED_VARIANT);
  }
}

TEST(KernelCall, BadRequests) {
  const lrelu::Kernel kernel = lrelu::get_kernel(kId, 1);
  float x[2] = {-1, 1};
  const lrelu::TensorView xv(x, lrelu::DType::kFloat32, {2});
  ExpectError(
      [&] {
        kernel({{"x", xv}}, {{"beta", 1.0}});
      },
      "unknown attribute 'beta'");
  ExpectError(
      [&] {
        kernel({{"x", xv}}, {{"alpha", 0.1}, {"slope", 1.0}});
      },
      "unknown attribute 'slope'");
  ExpectError([&] { kernel({}); }, "missing input 'x'");
  ExpectError([&] { kernel({{"X", xv}}); }, "unknown input 'X'");
  ExpectError([&] { kernel({{"x", xv}, {"dy", xv}}); }, "unknown input 'dy'");
}

TEST(ParseTestCases, Errors) {
  ExpectError([] { lrelu::parse_test_cases("{"); }, "not valid JSON");
  ExpectError([] { lrelu::parse_test_cases("{}"); }, "cases");
  const std::string head =
      R"({"cases":[{"id":"forward/float32/t","category":"seed","op":"forward",)"
      R"("dtype":"float32","shape":[1],)";
  const std::string ok =
      head + R"("attributes":{},"inputs":{"x":["bf800000"]},)"
             R"("expected":{"y":["bc23d70a"]},"compare":"bitexact"}]})";
  const auto cases = lrelu::parse_test_cases(ok);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].expected.at("y")[0], 0xbc23d70au);
  ExpectError(
      [&] {
        lrelu::parse_test_cases(
            head + R"("attributes":{},"inputs":{"x":["bf80"]},)"
                   R"("expected":{"y":["bc23d70a"]},"compare":"bitexact"}]})");
      },
      "8 hex digits");
  ExpectError(
      [&] {
        lrelu::parse_test_cases(
            head +
            R"("attributes":{"alpha":{"text":"0.2","f64":"3f847ae147ae147b",)"
            R"("f32":"3c23d70a"}},"inputs":{"x":["bf800000"]},)"
            R"("expected":{"y":["bc23d70a"]},"compare":"bitexact"}]})");
      },
      "does not read back");
  ExpectError(
      [&] {
        lrelu::parse_test_cases(
            head + R"("attributes":{},"inputs":{"x":["bf800000","0"]},)"
                   R"("expected":{"y":["bc23d70a"]},"compare":"bitexact"}]})");
      },
      "needs 1 elements");
}

}  // namespace
