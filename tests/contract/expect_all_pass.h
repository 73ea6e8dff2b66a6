// The check the contract tests share on a run's results.
#ifndef LRELU_TESTS_CONTRACT_EXPECT_ALL_PASS_H_
#define LRELU_TESTS_CONTRACT_EXPECT_ALL_PASS_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <sstream>
#include <vector>

#include "lrelu/kernel.hpp"

// Fails the test with the first few failing cases.
inline void ExpectAllPass(const std::vector<lrelu::CaseResult>& results) {
  std::ostringstream failures;
  std::size_t failed = 0;
  for (const auto& r : results) {
    if (r.passed) continue;
    if (failed++ < 20) failures << "\n  " << r.id << ": " << r.message;
  }
  EXPECT_EQ(failed, 0u) << failed << " of " << results.size()
                        << " cases failed:" << failures.str();
}

#endif  // LRELU_TESTS_CONTRACT_EXPECT_ALL_PASS_H_
