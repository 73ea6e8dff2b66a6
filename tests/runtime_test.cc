// Run-time environment: the caller's floating-point mode, caller-supplied
// thread pools, concurrent callers, and the tiling arithmetic.
#include <gtest/gtest.h>
#include <xmmintrin.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "cpu/cpu_kind.h"
#include "cpu/stream_bytes.h"
#include "cpu/thread_pool.h"
#include "cpu/tiling.h"
#include "lrelu/lrelu.hpp"
#include "support/test_data.h"

namespace lrelu {
namespace {

TEST(Runtime, FlushToZeroInTheCallerDoesNotLeakIn) {
  // FTZ + DAZ + round toward zero set by the caller, as some frameworks do.
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u | 0x6000u);
  std::vector<float> x(1000, -1e-40f);  // subnormal: x < 0 must hold
  x[1] = -3.0f;
  std::vector<float> y(x.size());
  leaky_relu(TensorView(x.data(), DType::kFloat32, {1000}),
             TensorView(y.data(), DType::kFloat32, {1000}), 0.5);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  EXPECT_EQ(after & 0xffc0u, (saved | 0x8040u | 0x6000u) & 0xffc0u)
      << "the caller's mode must be restored";
  EXPECT_EQ(testing::CompareWithReference(LRELU_DTYPE_FLOAT32, x.data(),
                                          x.data(), y.data(), x.size(), 0.5),
            "");
  EXPECT_NE(y[0], 0.0f) << "subnormal result flushed";
}

struct CountingPool {
  std::atomic<int> calls{0};
  std::atomic<int> tasks{0};
  static void ParallelFor(void* context, lrelu_task_fn task, void* task_context,
                          size_t count) {
    auto* self = static_cast<CountingPool*>(context);
    self->calls++;
    std::vector<std::thread> threads;
    for (size_t i = 0; i < count; ++i) {
      threads.emplace_back([&, i] {
        task(task_context, i);
        self->tasks++;
      });
    }
    for (auto& t : threads) t.join();
  }
};

TEST(Runtime, CallerSuppliedThreadPool) {
  CountingPool counting;
  lrelu_thread_pool_t pool = {&CountingPool::ParallelFor, &counting, 4};
  std::mt19937_64 rng(3);
  const size_t n = 1 << 20;
  const auto x = testing::RandomBits(LRELU_DTYPE_FLOAT32, n, rng);
  std::vector<unsigned char> y(x.size());
  Options options;
  options.thread_pool = &pool;  // threads 0: the pool's concurrency
  Executor e = Executor::forward(
      TensorView(const_cast<unsigned char*>(x.data()), DType::kFloat32,
                 {static_cast<int64_t>(n)}),
      0.3, TensorView(y.data(), DType::kFloat32, {static_cast<int64_t>(n)}),
      options);
  EXPECT_EQ(e.tasks(), 4u);
  e.execute();
  EXPECT_EQ(counting.calls, 1);
  EXPECT_EQ(counting.tasks, 4);
  EXPECT_EQ(testing::CompareWithReference(LRELU_DTYPE_FLOAT32, x.data(),
                                          x.data(), y.data(), n, 0.3),
            "");
}

TEST(Runtime, ManyCallersAtOnce) {
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 8; ++t) {
    callers.emplace_back([t, &failures] {
      std::mt19937_64 rng(100 + t);
      for (int i = 0; i < 20; ++i) {
        const lrelu_dtype_t dtype = testing::AllDTypes()[(t + i) % 4];
        const size_t n = (i % 3 == 0) ? 300000 + i : 1000 + 17 * i;
        const double alpha = testing::SweepAlphas()[(t * 3 + i) % 11];
        const auto v = testing::RandomBits(dtype, n, rng);
        const auto s = testing::RandomBits(dtype, n, rng);
        std::vector<unsigned char> out(v.size());
        const auto d = static_cast<DType>(dtype);
        const std::vector<int64_t> shape = {static_cast<int64_t>(n)};
        Options options;
        options.threads = 1 + (t + i) % 3;
        if (i % 2 == 0) {
          leaky_relu(TensorView(const_cast<unsigned char*>(v.data()), d, shape),
                     TensorView(out.data(), d, shape), alpha, options);
        } else {
          leaky_relu_backward(
              TensorView(const_cast<unsigned char*>(v.data()), d, shape),
              TensorView(const_cast<unsigned char*>(s.data()), d, shape),
              TensorView(out.data(), d, shape), alpha, GradSource::kFromX,
              options);
        }
        const auto& sign = i % 2 == 0 ? v : s;
        if (!testing::CompareWithReference(dtype, v.data(), sign.data(),
                                           out.data(), n, alpha)
                 .empty()) {
          failures++;
        }
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(failures, 0);
}

TEST(Tiling, RangesCoverEverythingOnBlockEdges) {
  for (size_t n : {0, 1, 15, 16, 17, 1000, 4096, 100003}) {
    for (size_t head : {0, 3, 15}) {
      for (size_t tasks = 1; tasks <= 7; ++tasks) {
        const size_t block = 16;
        size_t expected_begin = 0, smallest = SIZE_MAX, largest = 0;
        for (size_t i = 0; i < tasks; ++i) {
          const cpu::Range r = cpu::SplitRange(n, head, block, tasks, i);
          ASSERT_EQ(r.begin, expected_begin)
              << n << " " << head << " " << tasks;
          ASSERT_LE(r.begin, r.end);
          if (tasks > 1 && r.end != n && r.end > 0) {
            ASSERT_EQ((r.end - std::min(head, n)) % block, 0u)
                << "edge off a line";
          }
          expected_begin = r.end;
          const size_t len = r.end - r.begin - (i == 0 ? std::min(head, n) : 0);
          if (r.end != n) {
            smallest = std::min(smallest, len);
            largest = std::max(largest, len);
          }
        }
        ASSERT_EQ(expected_begin, n);
        if (largest > 0) {
          ASSERT_LE(largest - smallest, block) << "unbalanced";
        }
      }
    }
  }
  EXPECT_EQ(cpu::ChooseTasks(10, 8, 1000), 1u);
  EXPECT_EQ(cpu::ChooseTasks(5000, 8, 1000), 5u);
  EXPECT_EQ(cpu::ChooseTasks(1 << 30, 2, 1000), 2u);
  // Pieces: one thread gets one; never fewer than the threads, at most
  // kPiecesPerThread each, none below the minimum.
  EXPECT_EQ(cpu::ChoosePieces(1 << 30, 1, 1000), 1u);
  EXPECT_EQ(cpu::ChoosePieces(2500, 2, 1000), 2u);
  EXPECT_EQ(cpu::ChoosePieces(5000, 2, 1000), 5u);
  EXPECT_EQ(cpu::ChoosePieces(1 << 30, 2, 1000), 2 * cpu::kPiecesPerThread);
  EXPECT_LT(cpu::MinTaskBytes(LRELU_DTYPE_FLOAT16),
            cpu::MinTaskBytes(LRELU_DTYPE_FLOAT32));
  // 16-bit tasks: half float32's bytes, an eighth on Zen 1.
  for (bool zen1 : {false, true}) {
    EXPECT_EQ(cpu::MinTaskBytesFor(LRELU_DTYPE_FLOAT32, zen1), cpu::kTaskBytes);
    EXPECT_EQ(cpu::MinTaskBytesFor(LRELU_DTYPE_FLOAT64, zen1), cpu::kTaskBytes);
    for (lrelu_dtype_t d : {LRELU_DTYPE_FLOAT16, LRELU_DTYPE_BFLOAT16}) {
      EXPECT_EQ(cpu::MinTaskBytesFor(d, zen1),
                cpu::kTaskBytes / (zen1 ? 8 : 2));
    }
  }
  EXPECT_EQ(cpu::MinTaskBytes(LRELU_DTYPE_BFLOAT16),
            cpu::MinTaskBytesFor(LRELU_DTYPE_BFLOAT16, cpu::IsZen1()));
}

// The streaming threshold: the L2's size per task on Intel CPUs with
// AVX-512 (within kMinStreamBytes .. 8 MiB), half the L3 per task on AMD
// CPUs with AVX-512 (within 8 .. 16 MiB), half the L3 for the whole call on
// other AMD CPUs whose L3 is under 16 MiB, 8 MiB per task elsewhere or when
// the cache's size is unknown.
TEST(Tiling, StreamThresholdFollowsTheCacheThatKeepsOutputs) {
  constexpr size_t kMiB = size_t{1} << 20;
  for (size_t tasks : {1, 2, 3}) {
    SCOPED_TRACE(tasks);
    EXPECT_EQ(cpu::StreamBytesFor({false, 2 * kMiB}, tasks), tasks * 8 * kMiB);
    EXPECT_EQ(cpu::StreamBytesFor({true, 2 * kMiB}, tasks), tasks * 2 * kMiB);
    EXPECT_EQ(cpu::StreamBytesFor({true, size_t{1280} << 10}, tasks),
              tasks * (size_t{1280} << 10));
    EXPECT_EQ(cpu::StreamBytesFor({true, 0}, tasks), tasks * 8 * kMiB);
    EXPECT_EQ(cpu::StreamBytesFor({true, size_t{256} << 10}, tasks),
              tasks * kMiB / 2);
    EXPECT_EQ(cpu::StreamBytesFor({true, 32 * kMiB}, tasks), tasks * 8 * kMiB);
    // AMD with AVX-512: half the L3 per task, between 8 and 16 MiB; the L2
    // is not used.
    EXPECT_EQ(cpu::StreamBytesFor({false, kMiB, true, 32 * kMiB, true}, tasks),
              tasks * 16 * kMiB);
    EXPECT_EQ(cpu::StreamBytesFor({false, kMiB, true, 256 * kMiB, true}, tasks),
              tasks * 16 * kMiB);
    EXPECT_EQ(cpu::StreamBytesFor({false, kMiB, true, 8 * kMiB, true}, tasks),
              tasks * 8 * kMiB);
    EXPECT_EQ(cpu::StreamBytesFor({false, kMiB, true, 0, true}, tasks),
              tasks * 8 * kMiB);
    // Other AMD CPUs: half a small L3 for the call, whatever its tasks;
    // from 16 MiB of L3 (or unknown), 8 MiB per task.
    const size_t half_l2 = kMiB / 2;
    EXPECT_EQ(
        cpu::StreamBytesFor({false, half_l2, false, 8 * kMiB, true}, tasks),
        4 * kMiB);
    EXPECT_EQ(
        cpu::StreamBytesFor({false, half_l2, false, kMiB / 2, true}, tasks),
        cpu::kMinStreamBytes);
    EXPECT_EQ(
        cpu::StreamBytesFor({false, half_l2, false, 16 * kMiB, true}, tasks),
        tasks * 8 * kMiB);
    EXPECT_EQ(
        cpu::StreamBytesFor({false, half_l2, false, 32 * kMiB, true}, tasks),
        tasks * 8 * kMiB);
    EXPECT_EQ(cpu::StreamBytesFor({false, half_l2, false, 0, true}, tasks),
              tasks * 8 * kMiB);
    // The same small L3 on a CPU not known as AMD: the default.
    EXPECT_EQ(cpu::StreamBytesFor({false, half_l2, false, 8 * kMiB}, tasks),
              tasks * 8 * kMiB);
    EXPECT_EQ(cpu::StreamBytes(tasks),
              cpu::StreamBytesFor(cpu::ThisCpu(), tasks));
  }
}

// The own pool runs every task exactly once, on no more threads than asked.
TEST(Runtime, OwnPoolKeepsToTheThreadLimit) {
  struct Seen {
    std::atomic<int> runs[64];
    std::mutex mutex;
    std::vector<std::thread::id> threads;
  };
  for (size_t limit : {1, 2, 3}) {
    for (int round = 0; round < 50; ++round) {
      Seen seen{};
      cpu::OwnParallelFor(
          [](void* context, size_t i) {
            auto* s = static_cast<Seen*>(context);
            s->runs[i].fetch_add(1);
            std::lock_guard<std::mutex> lock(s->mutex);
            const auto id = std::this_thread::get_id();
            if (std::find(s->threads.begin(), s->threads.end(), id) ==
                s->threads.end()) {
              s->threads.push_back(id);
            }
          },
          &seen, 64, limit);
      for (auto& r : seen.runs) ASSERT_EQ(r.load(), 1);
      ASSERT_LE(seen.threads.size(), limit);
      if (limit == 1) {
        ASSERT_EQ(seen.threads.front(), std::this_thread::get_id());
      }
    }
  }
}

}  // namespace
}  // namespace lrelu
