#include "jax/xla_thread_pool.h"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>

namespace lrelu::jax {
namespace {

// One parallel_for. Workers that start after every task is taken find
// nothing to do and only touch the counters, which they co-own.
struct Batch {
  lrelu_task_fn task;
  void* task_context;
  size_t count;
  std::atomic<size_t> next{0};
  std::atomic<size_t> finished{0};
  std::mutex mutex;
  std::condition_variable all_finished;

  void Drain() {
    size_t ran = 0;
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      task(task_context, i);
      ++ran;
    }
    if (ran != 0 && finished.fetch_add(ran) + ran == count) {
      const std::lock_guard<std::mutex> lock(mutex);
      all_finished.notify_all();
    }
  }
};

}  // namespace

XlaThreadPool::XlaThreadPool(::xla::ffi::ThreadPool& pool) : pool_(&pool) {
  const int64_t threads = pool.num_threads();
  view_.parallel_for = &ParallelFor;
  view_.pool_context = this;
  view_.concurrency = threads > 1 ? static_cast<size_t>(threads) : 1;
}

void XlaThreadPool::ParallelFor(void* pool_context, lrelu_task_fn task,
                                void* task_context, size_t task_count) {
  auto* self = static_cast<XlaThreadPool*>(pool_context);
  auto batch = std::make_shared<Batch>();
  batch->task = task;
  batch->task_context = task_context;
  batch->count = task_count;
  for (size_t helper = 1; helper < task_count; ++helper) {
    self->pool_->Schedule([batch] { batch->Drain(); });
  }
  batch->Drain();
  std::unique_lock<std::mutex> lock(batch->mutex);
  batch->all_finished.wait(
      lock, [&] { return batch->finished.load() == batch->count; });
}

}  // namespace lrelu::jax
