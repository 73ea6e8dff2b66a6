// A caller-supplied thread pool (lrelu_thread_pool_t) built on std::thread,
// a mutex and condition variables only, so that ThreadSanitizer sees every
// hand-over between the caller and the workers. Many callers may use one
// pool at once: each parallel_for queues its tasks and waits for its own.
#ifndef LRELU_TESTS_STRESS_STD_THREAD_POOL_H_
#define LRELU_TESTS_STRESS_STD_THREAD_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "lrelu/lrelu.h"

namespace lrelu::stress {

class StdThreadPool {
 public:
  explicit StdThreadPool(size_t workers);
  ~StdThreadPool();
  StdThreadPool(const StdThreadPool&) = delete;
  StdThreadPool& operator=(const StdThreadPool&) = delete;

  // The view lrelu takes; valid as long as the pool.
  const lrelu_thread_pool_t* c_pool() const { return &pool_; }
  size_t calls() const;

 private:
  struct Batch {
    lrelu_task_fn task;
    void* context;
    size_t remaining;  // tasks not finished yet
  };
  struct Item {
    Batch* batch;
    size_t index;
  };
  static void ParallelFor(void* pool_context, lrelu_task_fn task,
                          void* task_context, size_t task_count);
  void Run(lrelu_task_fn task, void* task_context, size_t task_count);
  void Work();

  lrelu_thread_pool_t pool_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable batch_done_;
  std::deque<Item> queue_;
  bool stopping_ = false;
  size_t calls_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace lrelu::stress

#endif  // LRELU_TESTS_STRESS_STD_THREAD_POOL_H_
