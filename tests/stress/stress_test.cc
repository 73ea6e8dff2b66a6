// Concurrency stress: many caller threads at once, each planning and running
// forward and gradient calls of different sizes (multi-task ones of 1 Mi
// elements and more included), dtypes, alphas, thread counts, variants,
// layouts and pools, every result checked bit for bit against the oracle.
// Runs under ThreadSanitizer too (scripts/run-sanitizers.sh tsan). lrelu's
// own pool (src/cpu/thread_pool.cc) synchronises with std::mutex and
// condition variables, which TSan sees, as it sees the std::thread pools.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "lrelu/lrelu.hpp"
#include "std_thread_pool.h"
#include "support/lrelu_tester.h"
#include "support/sanitizers.h"
#include "support/test_data.h"

namespace lrelu::stress {
namespace {

using testing::kSanitized;

// Sanitizers slow every access 5-15x: fewer rounds there, same variety.
constexpr int kCallers = 6;
constexpr int kRounds = kSanitized ? 4 : 16;

enum class PoolChoice { kOwn, kShared, kPerCall };

struct Job {
  lrelu_dtype_t dtype;
  size_t n;
  double alpha;
  bool backward;
  GradSource source;
  bool in_place;
  bool strided;  // every operand with stride 2 (the strided variant)
  std::string variant;
  size_t threads;
  bool two_stage;
  int executions;  // two-stage: runs of one executor
};

Job MakeJob(std::mt19937_64& rng) {
  Job j;
  const auto dtypes = testing::AllDTypes();
  const auto alphas = testing::SweepAlphas();
  j.dtype = dtypes[rng() % dtypes.size()];
  // Single-task, a few tasks, and >= 1 Mi elements (many tasks).
  const size_t sizes[] = {1, 37, 1000, 70001, 300007, (size_t{1} << 20) + 13};
  j.n = sizes[rng() % 6];
  if (kSanitized && j.n > 300007 && rng() % 2 == 0) j.n = 300007;
  j.backward = rng() % 2 == 0;
  j.source = rng() % 3 == 0 ? GradSource::kFromY : GradSource::kFromX;
  j.alpha = alphas[rng() % alphas.size()];
  if (j.backward && j.source == GradSource::kFromY && !(j.alpha > 0)) {
    j.alpha = 0.2;
  }
  j.in_place = rng() % 3 == 0;
  j.strided = rng() % 4 == 0;
  const char* variants[] = {"", "", "reference", "strided"};
  j.variant = variants[rng() % 4];
  if (j.variant == "reference" && j.n > 70001) j.variant = "";  // slow oracle
  j.threads = rng() % 5;                                        // 0: all
  j.two_stage = rng() % 2 == 0;
  j.executions = 1 + static_cast<int>(rng() % 3);
  return j;
}

std::string Describe(const Job& j) {
  return std::string(lrelu_dtype_name(j.dtype)) + " n=" + std::to_string(j.n) +
         (j.backward ? " backward" : " forward") +
         (j.in_place ? " in-place" : "") + (j.strided ? " strided" : "") +
         " variant='" + j.variant + "' threads=" + std::to_string(j.threads) +
         " alpha=" + std::to_string(j.alpha);
}

// Runs one job through the shared tester and returns "" or what went
// wrong (every operand with stride 2 when strided: the gaps must survive).
std::string RunJob(const Job& j, const lrelu_thread_pool_t* pool,
                   std::mt19937_64& rng) {
  testing::LeakyReluTester t;
  t.dtype(j.dtype)
      .shape({static_cast<int64_t>(j.n)})
      .alpha(j.alpha)
      .gradient(j.backward)
      .grad_source(j.source)
      .inplace(j.in_place)
      .variant(j.variant.empty() ? "auto" : j.variant)
      .threads(j.threads)
      .thread_pool(pool)
      .planned(j.two_stage)
      .executions(j.executions)
      .seed(rng());
  if (j.strided) t.strides({2}, {2}, {2});
  try {
    return t.Run();
  } catch (const Error& e) {
    return std::string("refused: ") + e.what();
  }
}

void RunCallers(PoolChoice choice, uint64_t seed) {
  StdThreadPool shared(3);
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      std::mt19937_64 rng(seed + static_cast<uint64_t>(t));
      for (int r = 0; r < kRounds; ++r) {
        const Job j = MakeJob(rng);
        const lrelu_thread_pool_t* pool = nullptr;
        std::unique_ptr<StdThreadPool> own;
        if (choice == PoolChoice::kShared) pool = shared.c_pool();
        if (choice == PoolChoice::kPerCall) {
          own = std::make_unique<StdThreadPool>(1 + rng() % 4);
          pool = own->c_pool();
        }
        const std::string problem = RunJob(j, pool, rng);
        if (!problem.empty()) {
          ADD_FAILURE() << Describe(j) << ": " << problem;
          failures++;
        }
      }
    });
  }
  for (std::thread& c : callers) c.join();
  EXPECT_EQ(failures, 0);
}

TEST(Stress, CallersOnLreluOwnPool) { RunCallers(PoolChoice::kOwn, 1000); }

TEST(Stress, CallersSharingOneStdThreadPool) {
  RunCallers(PoolChoice::kShared, 2000);
}

TEST(Stress, CallersWithTheirOwnStdThreadPools) {
  RunCallers(PoolChoice::kPerCall, 3000);
}

// Executors are planned, queried, run and destroyed from many threads at
// once (the registry of live executors), and each thread's last error stays
// its own.
TEST(Stress, ExecutorsAndErrorsAcrossThreads) {
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      std::vector<float> x(4096, -2.0f), y(4096);
      const std::vector<int64_t> shape = {4096};
      for (int r = 0; r < (kSanitized ? 200 : 2000); ++r) {
        lrelu_tensor_t xt{x.data(), LRELU_DTYPE_FLOAT32, 1, shape.data(),
                          nullptr};
        lrelu_tensor_t yt{y.data(), LRELU_DTYPE_FLOAT32, 1, shape.data(),
                          nullptr};
        size_t ws = 1;
        lrelu_executor_t* e = nullptr;
        if (lrelu_leaky_relu_get_workspace_size(&xt, 0.5, &yt, nullptr, &ws,
                                                &e) != LRELU_STATUS_OK ||
            lrelu_executor_variant(e) == nullptr ||
            lrelu_execute(nullptr, 0, e, nullptr) != LRELU_STATUS_OK ||
            y[4095] != -1.0f) {
          failures++;
        }
        lrelu_executor_destroy(e);
        // A different error per thread; the message must be this thread's.
        std::vector<int64_t> bad = {-1 - t};
        lrelu_tensor_t bt = xt;
        bt.shape = bad.data();
        if (lrelu_leaky_relu(&bt, 0.5, &yt, nullptr) !=
                LRELU_STATUS_INVALID_ARGUMENT ||
            std::string(lrelu_last_error())
                    .find("(" + std::to_string(-1 - t) + ")") ==
                std::string::npos) {
          failures++;
        }
      }
    });
  }
  for (std::thread& c : callers) c.join();
  EXPECT_EQ(failures, 0);
}

// PReLU's gradient from many threads at once: the per-channel dalpha
// storage kept between calls (a list under a mutex, api/prelu_dalpha.cc) is
// taken and given back by callers and pool tasks together; pieces grow as
// channel counts vary. Every result must equal the one-thread result.
TEST(Stress, PreluGradientsAcrossThreads) {
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      std::mt19937 rng(static_cast<uint32_t>(t));
      std::normal_distribution<float> normal;
      for (int r = 0; r < (kSanitized ? 20 : 200); ++r) {
        const int64_t channels = 16 + 37 * ((t + r) % 5);
        // Enough bytes (> 2 x 256 KiB of x and dy) for two tasks.
        const int64_t rows = 1024 + r % 3;
        std::vector<float> x(static_cast<size_t>(rows * channels)),
            dy(x.size()), alpha(static_cast<size_t>(channels));
        for (float& v : x) v = normal(rng);
        for (float& v : dy) v = normal(rng);
        for (float& v : alpha) v = normal(rng);
        const bool nhwc = r % 2 == 0;
        const std::vector<int64_t> shape =
            nhwc ? std::vector<int64_t>{rows, channels}
                 : std::vector<int64_t>{channels, rows};
        const std::vector<int64_t> ashape =
            nhwc ? std::vector<int64_t>{channels}
                 : std::vector<int64_t>{channels, 1};
        const lrelu_tensor_t xt{x.data(), LRELU_DTYPE_FLOAT32, 2, shape.data(),
                                nullptr};
        const lrelu_tensor_t dyt{dy.data(), LRELU_DTYPE_FLOAT32, 2,
                                 shape.data(), nullptr};
        const lrelu_tensor_t at{alpha.data(), LRELU_DTYPE_FLOAT32,
                                static_cast<int32_t>(ashape.size()),
                                ashape.data(), nullptr};
        std::vector<float> want(alpha.size()), got(alpha.size());
        lrelu_tensor_t wt = at, gt = at;
        wt.data = want.data();
        gt.data = got.data();
        lrelu_options_t one;
        lrelu_options_init(&one);
        one.threads = 1;
        lrelu_options_t two = one;
        two.threads = 2;
        // Exact sums: the same bits whatever the split.
        if (lrelu_prelu_backward(&dyt, &xt, &at, nullptr, &wt, &one) !=
                LRELU_STATUS_OK ||
            lrelu_prelu_backward(&dyt, &xt, &at, nullptr, &gt, &two) !=
                LRELU_STATUS_OK ||
            std::memcmp(want.data(), got.data(), want.size() * 4) != 0) {
          failures++;
        }
      }
    });
  }
  for (std::thread& c : callers) c.join();
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace lrelu::stress
