// Shared helpers for the tests: random tensors full of special values, and a
// bit-exact comparison against the reference oracle with contract v1's one
// allowance (a NaN the product makes may be any NaN).
#ifndef LRELU_TESTS_SUPPORT_TEST_DATA_H_
#define LRELU_TESTS_SUPPORT_TEST_DATA_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "lrelu/lrelu.h"
#include "reference/reference.h"

namespace lrelu::testing {

// Raw storage bytes of n elements: a mix of ordinary values of both signs,
// and specials (+-0, +-inf, quiet/signalling/negative NaNs with payloads,
// subnormals, extremes), spread all over.
std::vector<unsigned char> RandomBits(lrelu_dtype_t dtype, size_t n,
                                      std::mt19937_64& rng);

// The dtype table's bit helpers and special values, and the oracle's
// element comparison (src/reference), under the names the tests use.
using reference::ElementMatches;
using reference::IsNaNBits;
using reference::IsNegativeBits;
using reference::LoadBits;
using reference::SpecialBits;
using reference::StoreBits;

// Checks actual[i] against the oracle for out = s < 0 ? alpha * v : v over
// n contiguous elements. Returns "" when all match, else a description of
// the first mismatch.
std::string CompareWithReference(lrelu_dtype_t dtype, const void* v,
                                 const void* s, const void* actual, size_t n,
                                 double alpha);

std::vector<lrelu_dtype_t> AllDTypes();

// Alphas every sweep covers: the default, ordinary, 0, negative, > 1, +-inf,
// NaN, -0 and values that underflow or overflow products.
std::vector<double> SweepAlphas();

std::string Hex(uint64_t bits, size_t bytes);

// Raw bits of `dtype` (one per element) as the storage bytes a kernel reads.
std::vector<unsigned char> StoredBits(lrelu_dtype_t dtype,
                                      const std::vector<uint64_t>& bits);

}  // namespace lrelu::testing

#endif  // LRELU_TESTS_SUPPORT_TEST_DATA_H_
