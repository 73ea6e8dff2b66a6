// SHA-256 of the package files (OpenSSL), as lowercase hex.
#ifndef LRELU_SRC_CONTRACT_SHA256_H_
#define LRELU_SRC_CONTRACT_SHA256_H_

#include <string>
#include <string_view>

namespace lrelu::contract {

std::string Sha256Hex(std::string_view data);

}  // namespace lrelu::contract

#endif  // LRELU_SRC_CONTRACT_SHA256_H_
