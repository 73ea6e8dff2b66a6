#include "bench_cases.h"

#include <cerrno>
#include <fstream>
#include <sstream>

#include "errors.h"

namespace lrelu_cli {

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
  std::vector<lrelu::BenchCase> cases;
  try {
    cases = lrelu::parse_bench_cases(text.str(), where);
  } catch (const lrelu::Error& e) {
    throw CliError(e.what());
  }
  if (cases.empty()) throw CliError(where + " has no cases");
  return cases;
}

}  // namespace lrelu_cli
