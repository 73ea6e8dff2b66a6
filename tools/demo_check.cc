#include "demo_check.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "errors.h"
#include "lrelu/lrelu.hpp"
#include "reference/reference.h"

namespace lrelu_cli {
namespace {

// Every kind of alpha the contract allows: default, typical, zero,
// negative, > 1, infinite and NaN.
constexpr double kAlphas[] = {0.01, 0.2, 0.0, -0.5, 1.5, INFINITY, NAN};
// Odd, so that no SIMD width divides it and the tail code runs too.
constexpr std::size_t kRandomCount = 1000003;

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

// Bit patterns to test: every one for 16-bit types, otherwise special
// values first and random bits (covering every exponent) after them.
std::vector<unsigned char> MakeInput(lrelu::DType dtype, std::size_t* count) {
  const std::size_t size = lrelu::dtype_size(dtype);
  if (size == 2) {
    *count = 65536;
    std::vector<unsigned char> data(*count * 2);
    for (std::size_t i = 0; i < *count; ++i) {
      const auto bits = static_cast<uint16_t>(i);
      std::memcpy(data.data() + 2 * i, &bits, 2);
    }
    return data;
  }
  *count = kRandomCount;
  std::vector<unsigned char> data(*count * size);
  uint64_t state = 42;
  for (std::size_t i = 0; i < *count; ++i) {
    const uint64_t bits = SplitMix64(state);
    std::memcpy(data.data() + i * size, &bits, size);
  }
  const std::vector<uint64_t> specials =
      lrelu::reference::SpecialBits(static_cast<lrelu_dtype_t>(dtype));
  for (std::size_t i = 0; i < specials.size(); ++i) {
    std::memcpy(data.data() + i * size, &specials[i], size);
  }
  return data;
}

// Mismatching elements of y for one alpha; prints the first.
std::size_t CountMismatches(lrelu::DType dtype, double alpha,
                            const std::vector<unsigned char>& x,
                            const std::vector<unsigned char>& y,
                            std::size_t count) {
  const auto tag = static_cast<lrelu_dtype_t>(dtype);
  std::vector<unsigned char> expected(y.size());
  lrelu::reference::Apply(tag, x.data(), x.data(), expected.data(), count,
                          alpha);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const uint64_t in = lrelu::reference::LoadBits(tag, x.data(), i);
    const uint64_t out = lrelu::reference::LoadBits(tag, y.data(), i);
    const uint64_t want = lrelu::reference::LoadBits(tag, expected.data(), i);
    const bool ok = lrelu::reference::ElementMatches(tag, in, want, out);
    if (!ok && mismatches++ == 0) {
      std::printf(
          "     MISMATCH at %zu, alpha %g: x 0x%llx -> y 0x%llx, "
          "expected 0x%llx\n",
          i, alpha, static_cast<unsigned long long>(in),
          static_cast<unsigned long long>(out),
          static_cast<unsigned long long>(want));
    }
  }
  return mismatches;
}

}  // namespace

void RunSelfCheck(std::size_t threads) {
  std::printf(
      "\n2. Self-check: the library against its scalar reference oracle "
      "(src/reference), bit for bit\n");
  const std::string thread_text =
      threads == 0 ? "all (" + std::to_string(lrelu_hardware_threads()) + ")"
                   : std::to_string(threads);
  std::printf(
      "   alphas 0.01, 0.2, 0, -0.5, 1.5, inf, nan; out-of-place "
      "and in-place; threads %s\n",
      thread_text.c_str());
  lrelu::Options options;
  options.threads = threads;
  std::size_t failed_dtypes = 0;
  for (lrelu::DType dtype : {lrelu::DType::kFloat32, lrelu::DType::kFloat16,
                             lrelu::DType::kBFloat16, lrelu::DType::kFloat64}) {
    std::size_t count = 0;
    const std::vector<unsigned char> x = MakeInput(dtype, &count);
    std::vector<unsigned char> x_copy = x;
    std::vector<unsigned char> y(x.size());
    const std::vector<int64_t> shape = {static_cast<int64_t>(count)};
    std::size_t mismatches = 0;
    for (double alpha : kAlphas) {
      lrelu::leaky_relu(lrelu::TensorView(x_copy.data(), dtype, shape), alpha,
                        lrelu::TensorView(y.data(), dtype, shape), options);
      if (x_copy != x) {
        throw CliError("demo: leaky_relu changed its input x (" +
                       lrelu::dtype_name(dtype) + ")");
      }
      mismatches += CountMismatches(dtype, alpha, x, y, count);
      // In-place must give the same bits as out-of-place.
      std::vector<unsigned char> z = x;
      lrelu::leaky_relu(lrelu::TensorView(z.data(), dtype, shape), alpha,
                        lrelu::TensorView(z.data(), dtype, shape), options);
      mismatches += CountMismatches(dtype, alpha, x, z, count);
    }
    const char* what =
        count == 65536 ? "every bit pattern" : "special values + random bits";
    std::printf("   %-9s %8zu elements (%s): %s\n",
                lrelu::dtype_name(dtype).c_str(), count, what,
                mismatches == 0 ? "OK" : "FAILED");
    if (mismatches != 0) ++failed_dtypes;
  }
  if (failed_dtypes != 0) {
    throw CliError("demo: the self-check failed for " +
                   std::to_string(failed_dtypes) + " dtype(s)");
  }
}

}  // namespace lrelu_cli
