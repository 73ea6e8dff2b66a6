// Parsing and verifying a contract package: the four JSON files of one
// contract version (docs/contract.md describes their format).
#ifndef LRELU_SRC_CONTRACT_PACKAGE_H_
#define LRELU_SRC_CONTRACT_PACKAGE_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernel_impl.h"

namespace lrelu::contract {

// The files of a package by name: "manifest.json", "test.json",
// "bench.json", "metadata.json".
using Files = std::map<std::string, std::string>;

// Checks every file against the sha256 and size that metadata.json lists,
// parses them and checks that they agree with each other and with this
// library (contract version, default alpha). `origin` ("embedded" or a
// directory) goes into messages and metadata().origin. Throws lrelu::Error.
std::shared_ptr<const Kernel::Impl> BuildKernel(Files files,
                                                const std::string& origin);

// The names of the template files a metadata.json lists (its "templates";
// plain names, no directories). `where` names the directory in messages.
std::vector<std::string> ListedTemplates(std::string_view metadata_json,
                                         const std::string& where);

// Parses a test.json document; `where` names it in messages.
std::vector<TestCase> ParseTestCases(std::string_view json,
                                     const std::string& where);

// Parses a bench.json document; `where` names it in messages.
std::vector<BenchCase> ParseBenchCases(std::string_view json,
                                       const std::string& where);

}  // namespace lrelu::contract

#endif  // LRELU_SRC_CONTRACT_PACKAGE_H_
