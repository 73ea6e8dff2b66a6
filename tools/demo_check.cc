#include "demo_check.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "errors.h"
#include "float_bits.h"
#include "lrelu/lrelu.hpp"

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

// The contract in scalar form, on raw bits. `produced_nan` is set when the
// multiply itself made a NaN (e.g. alpha NaN, or -inf * 0): then any NaN
// is a correct result.
uint32_t Reference32(uint32_t x, float alpha, bool* produced_nan) {
  const float v = BitsToFloat(x);
  if (!(v < 0)) return x;
  const float y = alpha * v;
  *produced_nan = std::isnan(y);
  return FloatBits(y);
}
uint64_t Reference64(uint64_t x, double alpha, bool* produced_nan) {
  const double v = BitsToDouble(x);
  if (!(v < 0)) return x;
  const double y = alpha * v;
  *produced_nan = std::isnan(y);
  return DoubleBits(y);
}
uint16_t Reference16(uint16_t x, float alpha, bool bfloat16,
                     bool* produced_nan) {
  const float v = bfloat16 ? BFloat16ToFloat(x) : HalfToFloat(x);
  if (!(v < 0)) return x;
  const float y = alpha * v;
  *produced_nan = std::isnan(y);
  return bfloat16 ? FloatToBFloat16(y) : FloatToHalf(y);
}

bool IsNan(uint64_t bits, lrelu::DType dtype) {
  switch (dtype) {
    case lrelu::DType::kFloat64:
      return std::isnan(BitsToDouble(bits));
    case lrelu::DType::kFloat32:
      return std::isnan(BitsToFloat(static_cast<uint32_t>(bits)));
    case lrelu::DType::kFloat16:
      return (bits & 0x7fffu) > 0x7c00u;
    case lrelu::DType::kBFloat16:
      return (bits & 0x7fffu) > 0x7f80u;
  }
  return false;
}

uint64_t Load(const std::vector<unsigned char>& data, std::size_t i,
              std::size_t size) {
  uint64_t value = 0;
  std::memcpy(&value, data.data() + i * size, size);  // little-endian host
  return value;
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
      size == 4 ? std::vector<uint64_t>{0x00000000, 0x80000000, 0x7f800000,
                                        0xff800000, 0x7fc00000, 0xffc00000,
                                        0x7f800001, 0xff800001, 0x7fc12345,
                                        0x00000001, 0x80000001, 0x807fffff,
                                        0x00800000, 0x80800000, 0x7f7fffff,
                                        0xff7fffff, 0xbf800000, 0x3f800000}
                : std::vector<uint64_t>{0x0,
                                        0x8000000000000000,
                                        0x7ff0000000000000,
                                        0xfff0000000000000,
                                        0x7ff8000000000000,
                                        0xfff8000000000001,
                                        0x7ff0000000000001,
                                        0x0000000000000001,
                                        0x8000000000000001,
                                        0x800fffffffffffff,
                                        0x7fefffffffffffff,
                                        0xffefffffffffffff,
                                        0xbff0000000000000};
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
  const std::size_t size = lrelu::dtype_size(dtype);
  const auto alpha32 = static_cast<float>(alpha);  // rounded once
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const uint64_t in = Load(x, i, size);
    const uint64_t out = Load(y, i, size);
    bool produced_nan = false;
    uint64_t expected = 0;
    switch (dtype) {
      case lrelu::DType::kFloat64:
        expected = Reference64(in, alpha, &produced_nan);
        break;
      case lrelu::DType::kFloat32:
        expected =
            Reference32(static_cast<uint32_t>(in), alpha32, &produced_nan);
        break;
      case lrelu::DType::kFloat16:
      case lrelu::DType::kBFloat16:
        expected = Reference16(static_cast<uint16_t>(in), alpha32,
                               dtype == lrelu::DType::kBFloat16, &produced_nan);
        break;
    }
    const bool ok = out == expected || (produced_nan && IsNan(out, dtype));
    if (!ok && mismatches++ == 0) {
      std::printf(
          "     MISMATCH at %zu, alpha %g: x 0x%llx -> y 0x%llx, "
          "expected 0x%llx\n",
          i, alpha, static_cast<unsigned long long>(in),
          static_cast<unsigned long long>(out),
          static_cast<unsigned long long>(expected));
    }
  }
  return mismatches;
}

}  // namespace

void RunSelfCheck(std::size_t threads) {
  std::printf(
      "\n2. Self-check: the library against a scalar reference in "
      "this tool, bit for bit\n");
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
