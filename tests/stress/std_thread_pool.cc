#include "std_thread_pool.h"

namespace lrelu::stress {

StdThreadPool::StdThreadPool(size_t workers) {
  pool_.parallel_for = &StdThreadPool::ParallelFor;
  pool_.pool_context = this;
  pool_.concurrency = workers;
  for (size_t i = 0; i < workers; ++i)
    threads_.emplace_back([this] { Work(); });
}

StdThreadPool::~StdThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& t : threads_) t.join();
}

size_t StdThreadPool::calls() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return calls_;
}

void StdThreadPool::ParallelFor(void* pool_context, lrelu_task_fn task,
                                void* task_context, size_t task_count) {
  static_cast<StdThreadPool*>(pool_context)
      ->Run(task, task_context, task_count);
}

void StdThreadPool::Run(lrelu_task_fn task, void* task_context,
                        size_t task_count) {
  Batch batch{task, task_context, task_count};
  std::unique_lock<std::mutex> lock(mutex_);
  ++calls_;
  for (size_t i = 0; i < task_count; ++i) queue_.push_back({&batch, i});
  work_ready_.notify_all();
  batch_done_.wait(lock, [&batch] { return batch.remaining == 0; });
}

void StdThreadPool::Work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to do
    const Item item = queue_.front();
    queue_.pop_front();
    lock.unlock();
    item.batch->task(item.batch->context, item.index);
    lock.lock();
    if (--item.batch->remaining == 0) batch_done_.notify_all();
  }
}

}  // namespace lrelu::stress
