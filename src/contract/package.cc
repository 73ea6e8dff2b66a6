#include "package.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "bits.h"
#include "embedded.h"
#include "package_json.h"
#include "prelu_package.h"
#include "sha256.h"

namespace lrelu::contract {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(LRELU_STATUS_INVALID_ARGUMENT, message);
}

json Parse(std::string_view text, const std::string& where) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    Fail(where + ": not valid JSON: " + e.what());
  }
}

namespace {

const char* const kRequiredFiles[] = {"manifest.json", "test.json",
                                      "bench.json", "metadata.json"};

double DoubleFromBits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

bool SameValue(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) ||
         (a == b && std::signbit(a) == std::signbit(b));
}

// attributes.alpha = {text, f64, f32}: f64 is what the caller passes; the
// other two must agree with it, so a hand-edited case cannot say two things.
double ParseAlpha(const json& a, const std::string& where) {
  const double alpha = DoubleFromBits(
      ParseBits(a.at("f64").get<std::string>(), DType::kFloat64));
  const std::string text = a.at("text").get<std::string>();
  double from_text = 0;
  const auto r =
      std::from_chars(text.data(), text.data() + text.size(), from_text);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() ||
      !SameValue(from_text, alpha)) {
    Fail(where + ": alpha text '" + text + "' does not read back as its f64 " +
         a.at("f64").get<std::string>());
  }
  const auto f32 = static_cast<uint32_t>(
      ParseBits(a.at("f32").get<std::string>(), DType::kFloat32));
  const bool f32_nan = IsNaNBits(f32, DType::kFloat32);
  if (std::isnan(alpha) ? !f32_nan
                        : f32 != FloatBits(static_cast<float>(alpha))) {
    Fail(where + ": alpha f32 " + a.at("f32").get<std::string>() +
         " is not float32(" + text + ")");
  }
  return alpha;
}

GradSource ParseGradSource(const json& attributes, const std::string& where) {
  const std::string s = attributes.at("grad_source").get<std::string>();
  if (s == "x") return GradSource::kFromX;
  if (s == "y") return GradSource::kFromY;
  Fail(where + ": grad_source must be 'x' or 'y', not '" + s + "'");
}

}  // namespace

DType ParseDType(const json& j, const std::string& where) {
  const std::string name = j.get<std::string>();
  const auto d = DTypeFromName(name);
  if (!d) Fail(where + ": unknown dtype '" + name + "'");
  return *d;
}

std::vector<int64_t> ParseShape(const json& j, int64_t* numel,
                                const std::string& where) {
  std::vector<int64_t> shape = j.get<std::vector<int64_t>>();
  // The non-zero extents must multiply within int64 too: an empty tensor
  // still gets strides (products of extents) in the runner.
  int64_t n = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) Fail(where + ": negative extent in shape");
    if (d == 0) {
      empty = true;
      continue;
    }
    if (n > INT64_MAX / d) Fail(where + ": shape overflows");
    n *= d;
  }
  *numel = empty ? 0 : n;
  return shape;
}

std::vector<uint64_t> ParseTensor(const json& j, DType dtype, int64_t numel,
                                  const std::string& where) {
  if (!j.is_array() || static_cast<int64_t>(j.size()) != numel) {
    Fail(where + ": needs " + std::to_string(numel) + " elements");
  }
  std::vector<uint64_t> bits;
  bits.reserve(j.size());
  for (const json& e : j)
    bits.push_back(ParseBits(e.get<std::string>(), dtype));
  return bits;
}

namespace {

std::vector<std::string> Keys(
    const std::map<std::string, std::vector<uint64_t>>& tensors) {
  std::vector<std::string> keys;
  for (const auto& kv : tensors) keys.push_back(kv.first);
  return keys;
}

TestCase ParseCase(const json& j, const std::string& where_doc) {
  TestCase c;
  c.id = j.at("id").get<std::string>();
  const std::string where = where_doc + ": case '" + c.id + "'";
  c.category = j.at("category").get<std::string>();
  c.op = j.at("op").get<std::string>();
  if (c.op != "forward" && c.op != "backward") {
    Fail(where + ": op must be 'forward' or 'backward'");
  }
  c.dtype = ParseDType(j.at("dtype"), where);
  int64_t numel = 0;
  c.shape = ParseShape(j.at("shape"), &numel, where);
  const json& attributes = j.at("attributes");
  for (const auto& kv : attributes.items()) {
    if (kv.key() != "alpha" && kv.key() != "grad_source") {
      Fail(where + ": unknown attribute '" + kv.key() + "'");
    }
  }
  if (attributes.contains("alpha")) {
    c.alpha = ParseAlpha(attributes.at("alpha"), where);
  }
  if (c.op == "backward") c.grad_source = ParseGradSource(attributes, where);
  for (const auto& kv : j.at("inputs").items()) {
    c.inputs[kv.key()] =
        ParseTensor(kv.value(), c.dtype, numel, where + ": input " + kv.key());
  }
  const std::string source = c.grad_source == GradSource::kFromX ? "x" : "y";
  CheckNames(Keys(c.inputs),
             c.op == "forward" ? std::vector<std::string>{"x"}
                               : std::vector<std::string>{"dy", source},
             where + ": inputs");
  const std::string out = c.op == "forward" ? "y" : "dx";
  if (j.contains("expected_error")) {
    c.expected_error = j.at("expected_error").get<std::string>();
    if (c.expected_error != "invalid_alpha") {
      Fail(where + ": unknown expected_error '" + c.expected_error + "'");
    }
    if (j.contains("expected")) Fail(where + ": expected and expected_error");
    return c;
  }
  if (j.at("compare").get<std::string>() != "bitexact") {
    Fail(where + ": compare must be 'bitexact'");
  }
  for (const auto& kv : j.at("expected").items()) {
    c.expected[kv.key()] = ParseTensor(kv.value(), c.dtype, numel,
                                       where + ": expected " + kv.key());
  }
  CheckNames(Keys(c.expected), {out}, where + ": expected");
  // The expected tensors are exactly {out}; alpha has no gradient here.
  ParseAnyNan(j, "anynan", numel, 0, where, &c);
  return c;
}

BenchCase ParseBenchCase(const json& j, const std::string& where_doc) {
  BenchCase b;
  b.id = j.at("id").get<std::string>();
  const std::string where = where_doc + ": case '" + b.id + "'";
  b.category = j.at("category").get<std::string>();
  b.op = j.at("op").get<std::string>();
  b.dtype = ParseDType(j.at("dtype"), where);
  int64_t numel = 0;
  b.shape = ParseShape(j.at("shape"), &numel, where);
  b.in_place = j.at("in_place").get<bool>();
  const json& attributes = j.at("attributes");
  if (attributes.contains("alpha")) {
    b.alpha = ParseAlpha(attributes.at("alpha"), where);
  }
  if (b.op == "backward") b.grad_source = ParseGradSource(attributes, where);
  b.elements = j.at("elements").get<int64_t>();
  b.bytes_moved = j.at("bytes_moved").get<int64_t>();
  if (b.elements != numel) Fail(where + ": elements is not the shape's count");
  return b;
}

std::vector<TestCase> CasesFromJson(const json& doc, const std::string& where) {
  return ParseCasesOf(doc, where, ParseCase);
}

}  // namespace

void CheckHeader(const json& doc, const char* id_key, const std::string& id,
                 int version, const std::string& where) {
  if (doc.at(id_key).get<std::string>() != id ||
      doc.at("contract_version").get<int>() != version) {
    Fail(where + ": belongs to " + doc.at(id_key).get<std::string>() + " v" +
         std::to_string(doc.at("contract_version").get<int>()) +
         ", not to the manifest's " + id + " v" + std::to_string(version));
  }
}

void CheckNames(std::vector<std::string> have, std::vector<std::string> want,
                const std::string& where) {
  std::sort(have.begin(), have.end());
  std::sort(want.begin(), want.end());
  if (have != want) {
    std::string list;
    for (const auto& w : want) list += (list.empty() ? "" : ", ") + w;
    Fail(where + ": needs exactly the tensors {" + list + "}");
  }
}

void ParseAnyNan(const json& j, const char* key, int64_t numel,
                 int64_t alpha_numel, const std::string& where, TestCase* c) {
  if (!j.contains(key)) return;
  for (const auto& kv : j.at(key).items()) {
    if (c->expected.count(kv.key()) == 0) {
      Fail(where + ": " + key + " names no output");
    }
    const int64_t n = c->is_alpha_tensor(kv.key()) ? alpha_numel : numel;
    auto& list = c->anynan[kv.key()];
    list = kv.value().get<std::vector<int64_t>>();
    for (int64_t i : list) {
      if (i < 0 || i >= n) Fail(where + ": " + key + " index out of range");
    }
    std::sort(list.begin(), list.end());
  }
}

void VerifyDigests(const json& metadata, const Files& files,
                   const std::string& origin, KernelMetadata* meta) {
  const json& listed = metadata.at("files");
  for (const char* name : {"manifest.json", "test.json", "bench.json"}) {
    if (!listed.contains(name)) {
      Fail(origin + "/metadata.json: lists no sha256 for " + name);
    }
  }
  // "templates" (the WGSL files) are checked like the JSON files.
  json all = listed;
  if (metadata.contains("templates")) {
    for (const auto& kv : metadata.at("templates").items()) {
      all[kv.key()] = kv.value();
    }
  }
  for (const auto& kv : all.items()) {
    const auto file = files.find(kv.key());
    if (file == files.end()) {
      Fail(origin + ": metadata.json lists " + kv.key() +
           ", which the package lacks");
    }
    const std::string want = kv.value().at("sha256").get<std::string>();
    const std::string have = Sha256Hex(file->second);
    if (have != want) {
      Fail(origin + "/" + kv.key() + ": sha256 " + have +
           " does not match metadata.json's " + want +
           " (the file was modified; refusing it)");
    }
    const auto bytes = kv.value().at("bytes").get<uint64_t>();
    if (bytes != file->second.size()) {
      Fail(origin + "/" + kv.key() + ": size does not match metadata.json");
    }
    meta->sha256[kv.key()] = have;
  }
}

std::shared_ptr<Kernel::Impl> NewKernelImpl(const std::string& origin) {
  auto impl = std::make_shared<Kernel::Impl>();
  impl->metadata.origin = origin;
  impl->metadata.source_revision = kSourceRevision;
  impl->metadata.build = kBuildInfo;
  return impl;
}

void ReadMetadata(const Files& files, Kernel::Impl* impl,
                  const std::function<void(const json&)>& more) {
  KernelMetadata& meta = impl->metadata;
  const std::string where_meta = meta.origin + "/metadata.json";
  const json metadata = Parse(files.at("metadata.json"), where_meta);
  Guard(where_meta, [&] {
    VerifyDigests(metadata, files, meta.origin, &meta);
    meta.id = metadata.at("id").get<std::string>();
    meta.contract_version = metadata.at("contract_version").get<int>();
    more(metadata);
    return 0;
  });
}

void ReadManifest(const Files& files, Kernel::Impl* impl,
                  const std::function<void(const json&)>& more) {
  const std::string& origin = impl->metadata.origin;
  const std::string where_manifest = origin + "/manifest.json";
  const json manifest = Parse(files.at("manifest.json"), where_manifest);
  Guard(where_manifest, [&] {
    impl->id = manifest.at("id").get<std::string>();
    impl->contract_version = manifest.at("contract_version").get<int>();
    for (const json& p : manifest.at("inputs")) {
      impl->input_names.push_back(p.at("name").get<std::string>());
    }
    for (const json& p : manifest.at("outputs")) {
      impl->output_names.push_back(p.at("name").get<std::string>());
    }
    more(manifest);
    return 0;
  });
  const KernelMetadata& meta = impl->metadata;
  if (impl->id != meta.id || impl->contract_version != meta.contract_version) {
    Fail(origin + "/metadata.json: describes " + meta.id + " v" +
         std::to_string(meta.contract_version) + ", the manifest " + impl->id +
         " v" + std::to_string(impl->contract_version));
  }
}

json ReadCasesDocument(const Files& files, const std::string& name,
                       const char* id_key, const Kernel::Impl& impl) {
  const std::string where = impl.metadata.origin + "/" + name;
  const json doc = Parse(files.at(name), where);
  Guard(where, [&] {
    CheckHeader(doc, id_key, impl.id, impl.contract_version, where);
    return 0;
  });
  return doc;
}

void KeepFiles(Files files, Kernel::Impl* impl) {
  impl->manifest_sha256 = impl->metadata.sha256.at("manifest.json");
  impl->files = std::move(files);
}

std::vector<std::string> ListedTemplates(std::string_view metadata_json,
                                         const std::string& where) {
  const std::string where_meta = where + "/metadata.json";
  const json metadata = Parse(metadata_json, where_meta);
  return Guard(where_meta, [&] {
    std::vector<std::string> names;
    if (!metadata.contains("templates")) return names;
    for (const auto& kv : metadata.at("templates").items()) {
      if (kv.key().find_first_of("/\\") != std::string::npos ||
          kv.key().empty() || kv.key()[0] == '.') {
        Fail(where_meta + ": template name '" + kv.key() +
             "' is not a plain file name");
      }
      names.push_back(kv.key());
    }
    return names;
  });
}

std::vector<TestCase> ParseTestCases(std::string_view text,
                                     const std::string& where) {
  const json doc = Parse(text, where);
  // A PRelu document names its operator under "id" (LeakyRelu's under
  // "kernel").
  if (doc.is_object() && doc.contains("id") && doc.at("id").is_string() &&
      doc.at("id").get<std::string>() == kPreluId) {
    return PreluCasesFromJson(doc, where);
  }
  return CasesFromJson(doc, where);
}

std::vector<BenchCase> BenchCasesFromJson(const json& doc,
                                          const std::string& where) {
  return Guard(where, [&] {
    std::vector<BenchCase> cases;
    for (const json& b : doc.at("cases")) {
      cases.push_back(ParseBenchCase(b, where));
    }
    return cases;
  });
}

std::vector<BenchCase> ParseBenchCases(std::string_view text,
                                       const std::string& where) {
  return BenchCasesFromJson(Parse(text, where), where);
}

std::shared_ptr<const Kernel::Impl> BuildKernel(Files files,
                                                const std::string& origin) {
  for (const char* name : kRequiredFiles) {
    if (files.find(name) == files.end()) Fail(origin + ": no " + name);
  }
  {
    // The PRelu package has a format of its own (prelu_package.cc).
    const std::string where = origin + "/manifest.json";
    const json manifest = Parse(files["manifest.json"], where);
    const bool prelu = Guard(where, [&] {
      return manifest.at("id").get<std::string>() == kPreluId;
    });
    if (prelu) return BuildPreluKernel(std::move(files), origin);
  }
  auto impl = NewKernelImpl(origin);
  ReadMetadata(files, impl.get(), [&](const json& metadata) {
    KernelMetadata& meta = impl->metadata;
    for (const json& v : metadata.at("variants")) {
      meta.variants.push_back(v.at("name").get<std::string>());
    }
    meta.selection_rule =
        metadata.at("selection").at("rule").get<std::string>();
    meta.generator =
        metadata.at("provenance").at("generator").get<std::string>();
  });

  const std::string where_manifest = origin + "/manifest.json";
  ReadManifest(files, impl.get(), [&](const json& manifest) {
    bool have_alpha = false;
    for (const json& a : manifest.at("attributes")) {
      impl->attribute_names.push_back(a.at("name").get<std::string>());
      if (impl->attribute_names.back() == "alpha") {
        impl->default_alpha = a.at("default").get<double>();
        have_alpha = true;
      }
    }
    if (!have_alpha) Fail(where_manifest + ": no attribute alpha");
    for (const json& t : manifest.at("type_constraints").at(0).at("allowed")) {
      impl->dtypes.push_back(ParseDType(t, where_manifest));
    }
  });
  // The library implements one contract; a package for another would run
  // cases this library does not claim to pass.
  if (impl->contract_version != LRELU_CONTRACT_VERSION) {
    Fail(where_manifest + ": contract version " +
         std::to_string(impl->contract_version) +
         ", but this library implements version " +
         std::to_string(LRELU_CONTRACT_VERSION));
  }
  if (impl->default_alpha != kDefaultAlpha) {
    Fail(where_manifest + ": default alpha differs from the library's");
  }
  if (impl->input_names != std::vector<std::string>{"x"} ||
      impl->output_names != std::vector<std::string>{"y"}) {
    Fail(where_manifest + ": LeakyRelu takes input x and gives output y");
  }

  impl->test_cases =
      CasesFromJson(ReadCasesDocument(files, "test.json", "kernel", *impl),
                    origin + "/test.json");
  impl->bench_cases = BenchCasesFromJson(
      ReadCasesDocument(files, "bench.json", "kernel", *impl),
      origin + "/bench.json");
  KeepFiles(std::move(files), impl.get());
  return impl;
}

}  // namespace lrelu::contract
