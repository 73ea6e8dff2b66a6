// The data behind lrelu::Kernel, and how the loader builds it.
#ifndef LRELU_SRC_CONTRACT_KERNEL_IMPL_H_
#define LRELU_SRC_CONTRACT_KERNEL_IMPL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lrelu/kernel.hpp"

namespace lrelu {

struct Kernel::Impl {
  std::string id;
  int contract_version = 0;
  double default_alpha = kDefaultAlpha;
  std::vector<DType> dtypes;
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::vector<std::string> attribute_names;
  std::vector<TestCase> test_cases;
  std::vector<BenchCase> bench_cases;
  KernelMetadata metadata;
  std::string manifest_sha256;
  std::map<std::string, std::string> files;
};

}  // namespace lrelu

#endif  // LRELU_SRC_CONTRACT_KERNEL_IMPL_H_
