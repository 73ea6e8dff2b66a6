// The JSON reading both package formats share (package.cc for LeakyRelu,
// prelu_package.cc for PRelu): every failure is lrelu::Error with status
// LRELU_STATUS_INVALID_ARGUMENT and a message naming the file.
#ifndef LRELU_SRC_CONTRACT_PACKAGE_JSON_H_
#define LRELU_SRC_CONTRACT_PACKAGE_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
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

}  // namespace lrelu::contract

#endif  // LRELU_SRC_CONTRACT_PACKAGE_JSON_H_
