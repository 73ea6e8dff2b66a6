// An independent exact oracle for PReLU's dalpha in the tests: GMP integers
// hold every product exactly, and the rounding is written again here, so it
// shares nothing with reference/exact_sum.cc but the contract.
#ifndef LRELU_TESTS_PRELU_EXACT_ORACLE_H_
#define LRELU_TESTS_PRELU_EXACT_ORACLE_H_

#include <cstdint>
#include <vector>

#include "lrelu/lrelu.h"

namespace lrelu::testing {

// The value of raw bits of `dtype` as a double (exact), via the oracle's own
// conversions.
double ValueOf(lrelu_dtype_t dtype, uint64_t bits);

// sum over i of (x[i] < 0 ? x[i] * dy[i] : 0), exact, rounded once to
// `out_dtype` (raw bits). x and dy are raw bits of `dtype`.
uint64_t ExactDalpha(lrelu_dtype_t dtype, const std::vector<uint64_t>& x,
                     const std::vector<uint64_t>& dy, lrelu_dtype_t out_dtype);

}  // namespace lrelu::testing

#endif  // LRELU_TESTS_PRELU_EXACT_ORACLE_H_
