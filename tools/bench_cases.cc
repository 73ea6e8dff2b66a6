#include "bench_cases.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "errors.h"
#include "float_bits.h"

namespace lrelu_cli {
namespace {

using nlohmann::json;

// The library parses bench.json only as part of a whole package (with the
// sha256 checks of metadata.json), so a lone file is read here.
lrelu::DType DTypeFromName(const std::string& name) {
  if (name == "float32") return lrelu::DType::kFloat32;
  if (name == "float16") return lrelu::DType::kFloat16;
  if (name == "bfloat16") return lrelu::DType::kBFloat16;
  if (name == "float64") return lrelu::DType::kFloat64;
  throw std::invalid_argument("unknown dtype " + Quote(name, 40));
}

// attributes.alpha: its f64 bit pattern when given (authoritative, like
// the library's loader), else its text.
double AlphaFrom(const json& alpha) {
  if (alpha.contains("f64")) {
    const std::string hex = alpha.at("f64").get<std::string>();
    char* end = nullptr;
    errno = 0;
    const unsigned long long bits = std::strtoull(hex.c_str(), &end, 16);
    if (hex.size() != 16 || errno != 0 || end != hex.c_str() + hex.size()) {
      throw std::invalid_argument("alpha f64 " + Quote(hex, 40) +
                                  " is not 16 hex digits");
    }
    return BitsToDouble(bits);
  }
  const std::string text = alpha.at("text").get<std::string>();
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    throw std::invalid_argument("alpha text " + Quote(text, 40) +
                                " is not a number");
  }
  return value;
}

lrelu::BenchCase CaseFrom(const json& j) {
  lrelu::BenchCase b;
  b.id = j.at("id").get<std::string>();
  b.category = j.value("category", "");
  b.op = j.at("op").get<std::string>();
  if (b.op != "forward" && b.op != "backward") {
    throw std::invalid_argument("op must be forward or backward");
  }
  b.dtype = DTypeFromName(j.at("dtype").get<std::string>());
  b.shape = j.at("shape").get<std::vector<int64_t>>();
  int64_t elements = 1;
  for (int64_t d : b.shape) {
    if (d < 0) throw std::invalid_argument("negative extent in shape");
    if (d != 0 && elements > (int64_t{1} << 48) / d) {
      throw std::invalid_argument("shape is too large");
    }
    elements *= d;
  }
  b.elements = elements;
  b.in_place = j.value("in_place", false);
  const json attributes = j.value("attributes", json::object());
  if (attributes.contains("alpha")) b.alpha = AlphaFrom(attributes["alpha"]);
  if (attributes.value("grad_source", "x") == "y") {
    b.grad_source = lrelu::GradSource::kFromY;
  }
  // Every input read once, the output written once (docs/contract.md).
  const int64_t tensors = b.op == "forward" ? 2 : 3;
  b.bytes_moved =
      tensors * elements * static_cast<int64_t>(lrelu::dtype_size(b.dtype));
  if (j.contains("elements") && j.at("elements").get<int64_t>() != elements) {
    throw std::invalid_argument("elements is not the shape's element count");
  }
  return b;
}

}  // namespace

std::vector<lrelu::BenchCase> LoadBenchCases(const std::string& path) {
  if (path.empty()) {
    return lrelu::get_kernel("ai.onnx.LeakyRelu", LRELU_CONTRACT_VERSION)
        .bench_cases();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw CliError("cannot read the cases file " + Quote(path) + ": " +
                   ErrnoText(errno));
  }
  std::ostringstream text;
  text << file.rdbuf();
  const std::string where = "the cases file " + Quote(path);
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::exception& e) {
    throw CliError(where + " is not valid JSON: " + e.what());
  }
  if (!doc.is_object() || !doc.contains("cases") || !doc["cases"].is_array()) {
    throw CliError(where + " has no \"cases\" list");
  }
  std::vector<lrelu::BenchCase> cases;
  std::size_t index = 0;
  try {
    for (const json& c : doc.at("cases")) {
      cases.push_back(CaseFrom(c));
      ++index;
    }
  } catch (const std::exception& e) {
    throw CliError(where + ": case " + std::to_string(index) + ": " + e.what());
  }
  if (cases.empty()) throw CliError(where + " has no cases");
  return cases;
}

}  // namespace lrelu_cli
