// The PRelu package (contract/prelu/v1, ai.onnx.PRelu: docs/prelu.md): its
// own test.json format (alpha a tensor with its dtype and shape; backward
// gives dx and dalpha), checked and parsed into the common Kernel::Impl.
#ifndef LRELU_SRC_CONTRACT_PRELU_PACKAGE_H_
#define LRELU_SRC_CONTRACT_PRELU_PACKAGE_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "package.h"

namespace lrelu::contract {

inline constexpr const char kPreluId[] = "ai.onnx.PRelu";

// The cases of a PRelu test.json document (its "cases" array).
std::vector<TestCase> PreluCasesFromJson(const nlohmann::json& doc,
                                         const std::string& where);

// Like BuildKernel, for a package whose manifest id is kPreluId.
std::shared_ptr<const Kernel::Impl> BuildPreluKernel(Files files,
                                                     const std::string& origin);

}  // namespace lrelu::contract

#endif  // LRELU_SRC_CONTRACT_PRELU_PACKAGE_H_
