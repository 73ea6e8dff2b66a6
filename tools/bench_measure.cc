#include "bench_measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "bench_copy.h"
#include "bench_timing.h"
#include "reference/dtype_traits.h"

namespace lrelu_cli {
namespace {

using lrelu_bench::CallsPerSample;
using lrelu_bench::CopyLoop;
using lrelu_bench::Median;
using lrelu_bench::MemcpyCopy;
using lrelu_bench::ParallelCopy;
using lrelu_bench::Seconds;

using lrelu::reference::FloatToBFloat16;
using lrelu::reference::FloatToHalf;

// Values uniform in [-1, 1) (bench.json's data: about half negative, so
// both sides of the select run), stored as `dtype`.
void Fill(unsigned char* data, lrelu::DType dtype, int64_t count,
          uint64_t seed) {
  uint64_t state = seed;
  for (int64_t i = 0; i < count; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const float v = static_cast<float>(state >> 40) * 0x1p-23f - 1.0f;
    switch (dtype) {
      case lrelu::DType::kFloat32:
        std::memcpy(data + 4 * i, &v, 4);
        break;
      case lrelu::DType::kFloat64: {
        const double d = v;
        std::memcpy(data + 8 * i, &d, 8);
        break;
      }
      case lrelu::DType::kFloat16: {
        const uint16_t h = FloatToHalf(v);
        std::memcpy(data + 2 * i, &h, 2);
        break;
      }
      case lrelu::DType::kBFloat16: {
        const uint16_t b = FloatToBFloat16(v);
        std::memcpy(data + 2 * i, &b, 2);
        break;
      }
    }
  }
}

}  // namespace

void BenchBuffers::Free::operator()(unsigned char* p) const { std::free(p); }

void BenchBuffers::Reserve(std::size_t bytes) {
  if (bytes <= bytes_) return;
  // Free first, so the peak is three buffers of the new size, not six.
  for (auto& b : buffers_) b.reset();
  bytes_ = 0;
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  for (auto& b : buffers_) {
    void* p = std::aligned_alloc(64, rounded);
    if (p == nullptr) throw std::bad_alloc();
    // Touch every page now, so no sample pays for first-touch faults.
    std::memset(p, 0, rounded);
    b.reset(static_cast<unsigned char*>(p));
  }
  bytes_ = rounded;
}

BenchResult MeasureCase(const lrelu::BenchCase& c, const BenchConfig& config,
                        BenchBuffers& buffers, WorkerPool& pool) {
  const std::size_t item = lrelu::dtype_size(c.dtype);
  const std::size_t bytes = static_cast<std::size_t>(c.elements) * item;
  buffers.Reserve(std::max<std::size_t>(bytes, 64));
  // Buffer 0: x (forward) or dy; 1: y (forward, out of place) or the
  // gradient's s; 2: dx (backward, out of place), or for in-place cases a
  // pristine copy of buffer 0 to restore it from.
  unsigned char* first = buffers.get(0);
  unsigned char* second = buffers.get(1);
  unsigned char* third = buffers.get(2);
  const bool forward = c.op == "forward";
  Fill(first, c.dtype, c.elements, 1);
  if (!forward) Fill(second, c.dtype, c.elements, 2);
  if (c.in_place) std::memcpy(third, first, bytes);

  unsigned char* output = c.in_place ? first : forward ? second : third;
  const lrelu::TensorView in(first, c.dtype, c.shape);
  const lrelu::TensorView out(output, c.dtype, c.shape);
  lrelu::Executor executor =
      forward ? lrelu::Executor::forward(in, c.alpha, out, config.options)
              : lrelu::Executor::backward(
                    in, lrelu::TensorView(second, c.dtype, c.shape), c.alpha,
                    c.grad_source, out, config.options);
  std::vector<unsigned char> workspace(executor.workspace_size());

  BenchResult r;
  r.variant_used = executor.variant();
  // The SIMD target, or on a device backend the device.
  r.target_used =
      executor.cpu_target().empty() ? executor.device() : executor.cpu_target();
  r.tasks = executor.tasks();
  // Device plans report their own parallelism; their copies stay on the
  // host's calling thread.
  const std::size_t copy_tasks =
      config.options.backend == LRELU_BACKEND_CPU ? r.tasks : 1;

  // The copies move the output's bytes: from the input (out of place), or
  // from the pristine copy back into the tensor (in place), which also
  // restores it.
  const unsigned char* copy_src = c.in_place ? third : first;
  auto kernel = [&] { executor.execute(workspace.data(), workspace.size()); };
  auto copy_memcpy = [&] {
    ParallelCopy(pool, copy_tasks, MemcpyCopy, output, copy_src, bytes);
  };
  auto copy_loop = [&] {
    ParallelCopy(pool, copy_tasks, CopyLoop, output, copy_src, bytes);
  };
  // In place, every call scales the negative values by alpha again: after a
  // few calls they are subnormal (float16 in about four), which some paths
  // process far slower. So every in-place call starts from the original
  // data: restored before a one-call sample, and for samples of many calls
  // restored before each call, with the time of the restores alone
  // (measured next to it) taken off.
  auto restore = [&] {
    if (c.in_place) {
      ParallelCopy(pool, copy_tasks, CopyLoop, first, third, bytes);
    }
  };
  auto restore_and_kernel = [&] {
    restore();
    kernel();
  };

  kernel();  // warm up: caches, pages, the thread pools, a device's program
  copy_memcpy();
  copy_loop();
  restore();
  r.calls_per_sample = CallsPerSample(Seconds(1, kernel));
  restore();
  const bool restore_each_call = c.in_place && r.calls_per_sample > 1;
  auto time_kernel = [&](int calls) {
    if (!restore_each_call) {
      restore();
      return Seconds(calls, kernel);
    }
    const double both = Seconds(calls, restore_and_kernel);
    const double restores = Seconds(calls, restore);
    // Noise can make the difference tiny or negative; the median over
    // samples absorbs the odd one, a floor keeps it finite.
    return std::max(both - restores, 1e-9 * calls);
  };

  const double op_bytes = static_cast<double>(c.bytes_moved);
  const double copy_bytes = 2.0 * static_cast<double>(bytes);  // read + write
  std::vector<double> t_kernel, t_memcpy, t_loop, ratio_memcpy, ratio_loop;
  for (int s = 0; s < config.samples; ++s) {
    // Alternate the order, so that neither side always runs first (after
    // the other has warmed or cooled the caches and the clock).
    double tk = 0, tm = 0, tl = 0;
    const int calls = r.calls_per_sample;
    if (s % 2 == 0) {
      tk = time_kernel(calls);
      tm = Seconds(calls, copy_memcpy);
      tl = Seconds(calls, copy_loop);
    } else {
      tl = Seconds(calls, copy_loop);
      tm = Seconds(calls, copy_memcpy);
      tk = time_kernel(calls);
    }
    t_kernel.push_back(tk / calls);
    t_memcpy.push_back(tm / calls);
    t_loop.push_back(tl / calls);
    // Paired ratios: a slow moment of a loaded machine hits both sides.
    ratio_memcpy.push_back((op_bytes / tk) / (copy_bytes / tm));
    ratio_loop.push_back((op_bytes / tk) / (copy_bytes / tl));
  }
  r.median_ns = Median(t_kernel) * 1e9;
  r.gbps = op_bytes / Median(t_kernel) / 1e9;
  r.memcpy_gbps = copy_bytes / Median(t_memcpy) / 1e9;
  r.copy_loop_gbps = copy_bytes / Median(t_loop) / 1e9;
  r.copy_ratio = Median(ratio_memcpy);
  r.copy_loop_ratio = Median(ratio_loop);
  return r;
}

}  // namespace lrelu_cli
