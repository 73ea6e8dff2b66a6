#include "demo_throughput.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_copy.h"
#include "bench_timing.h"
#include "lrelu/lrelu.hpp"
#include "reference/dtype_traits.h"

namespace lrelu_cli {
namespace {

using lrelu::reference::FloatToHalf;
using lrelu_bench::Median;
using lrelu_bench::MemcpyCopy;
using lrelu_bench::Seconds;

constexpr int kSamples = 9;  // odd, for a plain median
// Each sample moves at least this many elements, so that timer resolution
// and call overhead do not dominate the small sizes.
constexpr std::size_t kMinElementsPerSample = std::size_t{4} << 20;
constexpr std::size_t kSizes[] = {std::size_t{1} << 10, std::size_t{1} << 16,
                                  std::size_t{1} << 20, std::size_t{1} << 24};

std::string SizeText(std::size_t elements) {
  if (elements >= (std::size_t{1} << 20)) {
    return std::to_string(elements >> 20) + " Mi";
  }
  return std::to_string(elements >> 10) + " Ki";
}

// Half negative, half positive values, so both branches of the op run.
void Fill(lrelu::Tensor& tensor) {
  const std::size_t count = tensor.numel();
  for (std::size_t i = 0; i < count; ++i) {
    const float v = static_cast<float>(static_cast<int>(i % 17) - 8) * 0.37f;
    if (tensor.dtype() == lrelu::DType::kFloat32) {
      static_cast<float*>(tensor.data())[i] = v;
    } else {
      static_cast<uint16_t*>(tensor.data())[i] = FloatToHalf(v);
    }
  }
}

}  // namespace

void RunThroughput(std::size_t threads) {
  const std::size_t hardware = lrelu_hardware_threads();
  const std::size_t used = threads == 0 ? hardware : threads;
  std::printf(
      "\n3. Throughput in GB/s, counting bytes read + written "
      "(median of %d runs, interleaved, warm buffers)\n",
      kSamples);
  std::printf(
      "   leaky_relu with 1 thread and with %zu; memcpy on 1 thread; "
      "ratio = leaky_relu (1 thread) / memcpy\n",
      used);
  std::printf("   %-8s %9s %12s %12s %12s %7s\n", "dtype", "elements",
              "leaky_relu", "leaky_relu", "memcpy", "ratio");
  std::printf("   %-8s %9s %12s %12s %12s %7s\n", "", "", "1 thread",
              (std::to_string(used) + " threads").c_str(), "", "");
  const std::size_t largest = kSizes[std::size(kSizes) - 1];
  for (lrelu::DType dtype : {lrelu::DType::kFloat32, lrelu::DType::kFloat16}) {
    lrelu::Tensor x(dtype, {static_cast<int64_t>(largest)});
    lrelu::Tensor y(dtype, {static_cast<int64_t>(largest)});
    Fill(x);
    std::memset(y.data(), 0, y.size_bytes());  // touch every page once
    const std::size_t item = lrelu::dtype_size(dtype);
    for (std::size_t n : kSizes) {
      const lrelu::TensorView xv(x.data(), dtype, {static_cast<int64_t>(n)});
      const lrelu::TensorView yv(y.data(), dtype, {static_cast<int64_t>(n)});
      lrelu::Options one;
      one.threads = 1;
      lrelu::Options all;
      all.threads = threads;
      const int repeats =
          static_cast<int>(std::max<std::size_t>(1, kMinElementsPerSample / n));
      auto run_one = [&] { lrelu::leaky_relu(xv, 0.01, yv, one); };
      auto run_all = [&] { lrelu::leaky_relu(xv, 0.01, yv, all); };
      auto run_copy = [&] { MemcpyCopy(y.data(), x.data(), n * item); };
      run_one();  // warm up caches, pages and the thread pool
      run_all();
      run_copy();
      std::vector<double> t_one, t_all, t_copy;
      for (int s = 0; s < kSamples; ++s) {
        t_one.push_back(Seconds(repeats, run_one));
        t_all.push_back(Seconds(repeats, run_all));
        t_copy.push_back(Seconds(repeats, run_copy));
      }
      const double bytes = 2.0 * static_cast<double>(n * item) * repeats;
      const double gbs_one = bytes / Median(t_one) / 1e9;
      const double gbs_all = bytes / Median(t_all) / 1e9;
      const double gbs_copy = bytes / Median(t_copy) / 1e9;
      std::printf("   %-8s %9s %12.1f %12.1f %12.1f %7.2f\n",
                  lrelu::dtype_name(dtype).c_str(), SizeText(n).c_str(),
                  gbs_one, gbs_all, gbs_copy, gbs_one / gbs_copy);
    }
  }
  std::fflush(stdout);
}

}  // namespace lrelu_cli
