// Google Benchmark of lrelu alone: one-call and planned forward, per dtype,
// size and thread count, with bytes processed (read + write) as the counter.
// The copy baselines of bench/common/bench_copy.h (memcpy and the copy loop,
// as `lrelu bench` and `lrelu demo` use them; the non-temporal-store loop, as
// lrelu_bench_peers does) run over the same sizes and threads, so a ratio is
// one division. For paired timing against peers use
// lrelu_bench_peers.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench_copy.h"
#include "lrelu/lrelu.h"
#include "worker_pool.h"

namespace {

constexpr double kAlpha = 0.01;

struct Data {
  Data(lrelu_dtype_t dtype, size_t n)
      : bytes(n * lrelu_dtype_size(dtype)),
        x(std::aligned_alloc(64, (bytes + 63) / 64 * 64)),
        y(std::aligned_alloc(64, (bytes + 63) / 64 * 64)),
        shape(static_cast<int64_t>(n)) {
    // Bytes of -1.0..1.0-ish values are not needed: any pattern with mixed
    // signs gives the same work; alternating sign bits per element does.
    std::memset(x, 0x3c, bytes);
    auto p = static_cast<unsigned char*>(x);
    const size_t size = lrelu_dtype_size(dtype);
    for (size_t i = 0; i < n; i += 2) p[i * size + size - 1] |= 0x80;
    std::memset(y, 0, bytes);
    xt = {x, dtype, 1, &shape, nullptr};
    yt = {y, dtype, 1, &shape, nullptr};
  }
  ~Data() {
    std::free(x);
    std::free(y);
  }
  size_t bytes;
  void* x;
  void* y;
  int64_t shape;
  lrelu_tensor_t xt{}, yt{};
};

void Forward(benchmark::State& state, lrelu_dtype_t dtype, bool planned) {
  Data d(dtype, static_cast<size_t>(state.range(0)));
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.threads = static_cast<size_t>(state.range(1));
  lrelu_executor_t* plan = nullptr;
  if (planned) {
    size_t ws = 0;
    if (lrelu_leaky_relu_get_workspace_size(&d.xt, kAlpha, &d.yt, &options, &ws,
                                            &plan) != LRELU_STATUS_OK) {
      state.SkipWithError(lrelu_last_error());
      return;
    }
  }
  for (auto _ : state) {
    if (planned) {
      lrelu_execute(nullptr, 0, plan, nullptr);
    } else {
      lrelu_leaky_relu(&d.xt, kAlpha, &d.yt, &options);
    }
    benchmark::ClobberMemory();
  }
  lrelu_executor_destroy(plan);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 *
                          static_cast<int64_t>(d.bytes));
}

// The copy of the same bytes, on as many threads as lrelu's plan for them
// uses (small sizes stay on the calling thread, as lrelu's do).
void Copy(benchmark::State& state, lrelu_bench::CopyFunction copy) {
  if (copy == nullptr) {
    state.SkipWithError("this CPU has no AVX2");
    return;
  }
  Data d(LRELU_DTYPE_FLOAT32, static_cast<size_t>(state.range(0)));
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.threads = static_cast<size_t>(state.range(1));
  lrelu_executor_t* plan = nullptr;
  size_t ws = 0;
  if (lrelu_leaky_relu_get_workspace_size(&d.xt, kAlpha, &d.yt, &options, &ws,
                                          &plan) != LRELU_STATUS_OK) {
    state.SkipWithError(lrelu_last_error());
    return;
  }
  const size_t tasks = lrelu_executor_tasks(plan);
  lrelu_executor_destroy(plan);
  lrelu_bench::WorkerPool pool(tasks > 0 ? tasks - 1 : 0);
  for (auto _ : state) {
    lrelu_bench::ParallelCopy(pool, tasks, copy, d.y, d.x, d.bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 *
                          static_cast<int64_t>(d.bytes));
}

void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t n : {int64_t{1} << 10, int64_t{1} << 14, int64_t{1} << 18,
                    int64_t{1} << 22, int64_t{1} << 26}) {
    for (int64_t threads : {1, 2}) b->Args({n, threads});
  }
  b->ArgNames({"n", "threads"})->UseRealTime();
}

#define LRELU_GBENCH(dtype, tag)                                          \
  BENCHMARK_CAPTURE(Forward, tag##_one_call, dtype, false)->Apply(Sizes); \
  BENCHMARK_CAPTURE(Forward, tag##_planned, dtype, true)->Apply(Sizes);

LRELU_GBENCH(LRELU_DTYPE_FLOAT32, f32)
LRELU_GBENCH(LRELU_DTYPE_FLOAT16, f16)
LRELU_GBENCH(LRELU_DTYPE_BFLOAT16, bf16)
LRELU_GBENCH(LRELU_DTYPE_FLOAT64, f64)
// Sizes count float32 elements, so bytes match the f32 rows.
BENCHMARK_CAPTURE(Copy, f32_memcpy, lrelu_bench::MemcpyCopy)->Apply(Sizes);
BENCHMARK_CAPTURE(Copy, f32_copy_loop, lrelu_bench::CopyLoop)->Apply(Sizes);
BENCHMARK_CAPTURE(Copy, f32_nt_copy, lrelu_bench::NtCopyFunction())
    ->Apply(Sizes);

}  // namespace

BENCHMARK_MAIN();
