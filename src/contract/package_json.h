// The JSON reading both package formats share (package.cc for LeakyRelu,
// prelu_package.cc for PRelu): every failure is lrelu::Error with status
// LRELU_STATUS_INVALID_ARGUMENT and a message naming the file.
#ifndef LRELU_SRC_CONTRACT_PACKAGE_JSON_H_
#define LRELU_SRC_CONTRACT_PACKAGE_JSON_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lrelu/kernel.hpp"
#include "package.h"

namespace lrelu::contract {

using json = nlohmann::json;

[[noreturn]] void Fail(const std::string& message);

json Parse(std::string_view text, const std::string& where);

DType ParseDType(const json& j, const std::string& where);

// A shape (non-negative extents whose product fits int64); sets *numel.
std::vector<int64_t> ParseShape(const json& j, int64_t* numel,
                                const std::string& where);

// A list of exactly `numel` hex bit patterns of `dtype`.
std::vector<uint64_t> ParseTensor(const json& j, DType dtype, int64_t numel,
                                  const std::string& where);

// The document's id (under `id_key`) and contract_version must be these.
void CheckHeader(const json& doc, const char* id_key, const std::string& id,
                 int version, const std::string& where);

// Every file metadata.json lists ("files", "templates") against its sha256
// and size; fills meta->sha256.
void VerifyDigests(const json& metadata, const Files& files,
                   const std::string& origin, KernelMetadata* meta);

// The tensors a case names must be exactly `want` (in any order).
void CheckNames(std::vector<std::string> have, std::vector<std::string> want,
                const std::string& where);

// A case's lists (under `key`) of the elements of an expected output where
// any NaN passes: each must name an output and index within its element
// count (alpha_numel for dalpha's); kept sorted in c->anynan.
void ParseAnyNan(const json& j, const char* key, int64_t numel,
                 int64_t alpha_numel, const std::string& where, TestCase* c);

// The steps both formats' loaders share, in the order they run them. A new
// Kernel::Impl with metadata().origin and the build's provenance set.
std::shared_ptr<Kernel::Impl> NewKernelImpl(const std::string& origin);
// metadata.json: the digests of every file it lists, id, contract_version,
// then `more` (the format's own fields) under the same Guard.
void ReadMetadata(const Files& files, Kernel::Impl* impl,
                  const std::function<void(const json&)>& more);
// manifest.json: id, contract_version, input and output names, then `more`;
// then that the manifest and metadata.json name the same id and version.
void ReadManifest(const Files& files, Kernel::Impl* impl,
                  const std::function<void(const json&)>& more);
// test.json or bench.json, parsed, its header (`id_key`, contract_version)
// checked against the manifest's.
json ReadCasesDocument(const Files& files, const std::string& name,
                       const char* id_key, const Kernel::Impl& impl);
// Keeps the files and the manifest's digest in the loaded kernel.
void KeepFiles(Files files, Kernel::Impl* impl);

// Runs `parse` and turns nlohmann's exceptions (a missing key, a wrong type)
// into lrelu::Error that names the file.
template <typename F>
auto Guard(const std::string& where, F parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const json::exception& e) {
    Fail(where + ": " + e.what());
  }
}

// A document's "cases", each through `parse_case`, with unique ids.
template <typename F>
std::vector<TestCase> ParseCasesOf(const json& doc, const std::string& where,
                                   F parse_case) {
  return Guard(where, [&] {
    std::vector<TestCase> cases;
    std::set<std::string> ids;
    for (const json& c : doc.at("cases")) {
      cases.push_back(parse_case(c, where));
      if (!ids.insert(cases.back().id).second) {
        Fail(where + ": duplicate case id " + cases.back().id);
      }
    }
    return cases;
  });
}

}  // namespace lrelu::contract

#endif  // LRELU_SRC_CONTRACT_PACKAGE_JSON_H_
