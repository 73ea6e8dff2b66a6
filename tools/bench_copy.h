// The copies `lrelu bench` and `lrelu demo` measure the kernel against, and
// the few worker threads that let a copy use as many threads as the
// kernel's plan. The timing loop is in bench_timing.h.
#ifndef LRELU_TOOLS_BENCH_COPY_H_
#define LRELU_TOOLS_BENCH_COPY_H_

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace lrelu_cli {

// glibc's memcpy, as a CopyFunction (the first baseline).
void MemcpyCopy(void* dst, const void* src, std::size_t bytes);

// A plain copy loop over 64-byte blocks that the compiler turns into
// vector loads and stores. It is the second baseline because glibc's
// memcpy picks `rep movsb` for large sizes, which some virtual machines run
// far below the memory's speed; a kernel beating "memcpy" there says little.
void CopyLoop(void* dst, const void* src, std::size_t bytes);

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

// Copies `bytes` with `copy` (std::memcpy or CopyLoop) split into `tasks`
// parts of whole 64-byte blocks, one per thread of `pool` (at most
// pool.size() parts).
using CopyFunction = void (*)(void*, const void*, std::size_t);
void ParallelCopy(WorkerPool& pool, std::size_t tasks, CopyFunction copy,
                  void* dst, const void* src, std::size_t bytes);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_BENCH_COPY_H_
