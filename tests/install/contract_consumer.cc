// A consumer of the installed liblrelu_contract: loads both compiled-in
// packages and runs every case through the installed liblrelu.
#include <cstdio>

#include "lrelu/kernel.hpp"

int main() {
  int failed = 0;
  for (const char* id : {"ai.onnx.LeakyRelu", "ai.onnx.PRelu"}) {
    const lrelu::Kernel kernel = lrelu::get_kernel(id, 1);
    for (const lrelu::CaseResult& r : lrelu::run_cases(kernel)) {
      if (!r.passed) {
        std::printf("FAIL %s %s: %s\n", id, r.id.c_str(), r.message.c_str());
        ++failed;
      }
    }
  }
  std::printf("contract consumer: %d failed\n", failed);
  return failed == 0 ? 0 : 1;
}
