// The few worker threads that let a copy baseline (bench_copy.h) use as many
// threads as the kernel's plan, for `lrelu bench` and lrelu_gbench.
#ifndef LRELU_BENCH_COMMON_WORKER_POOL_H_
#define LRELU_BENCH_COMMON_WORKER_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "bench_copy.h"

namespace lrelu_bench {

// Threads that run a task on `count` indices at once, index 0 on the
// caller. Workers sleep between runs, so they take no CPU from the kernel
// being timed.
class WorkerPool {
 public:
  explicit WorkerPool(std::size_t workers);
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool();

  // Threads a run can use: the workers and the caller.
  std::size_t size() const { return threads_.size() + 1; }

  // Runs task(i) for every i in [0, count) and returns when all are done;
  // count is at most size().
  void Run(std::size_t count, const std::function<void(std::size_t)>& task);

 private:
  void Work(std::size_t index);

  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(std::size_t)>* task_ = nullptr;
  std::size_t count_ = 0;
  std::size_t pending_ = 0;
  std::size_t generation_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// Copies `bytes` with `copy` split into `tasks` parts (CopyTaskRange), one
// per thread of `pool` (at most pool.size() parts).
void ParallelCopy(WorkerPool& pool, std::size_t tasks, CopyFunction copy,
                  void* dst, const void* src, std::size_t bytes);

}  // namespace lrelu_bench

#endif  // LRELU_BENCH_COMMON_WORKER_POOL_H_
