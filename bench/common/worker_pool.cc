#include "worker_pool.h"

#include <algorithm>

namespace lrelu_bench {

WorkerPool::WorkerPool(std::size_t workers) {
  for (std::size_t i = 1; i <= workers; ++i) {
    threads_.emplace_back([this, i] { Work(i); });
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::Run(std::size_t count,
                     const std::function<void(std::size_t)>& task) {
  count = std::min(count, threads_.size() + 1);
  if (count <= 1) {
    task(0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &task;
    count_ = count;
    pending_ = count - 1;
    ++generation_;
  }
  start_.notify_all();
  task(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
}

void WorkerPool::Work(std::size_t index) {
  std::size_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    start_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    if (index >= count_) continue;
    const std::function<void(std::size_t)>* task = task_;
    lock.unlock();
    (*task)(index);
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

void ParallelCopy(WorkerPool& pool, std::size_t tasks, CopyFunction copy,
                  void* dst, const void* src, std::size_t bytes) {
  tasks = std::min(tasks, pool.size());
  if (tasks <= 1) {
    copy(dst, src, bytes);
    return;
  }
  pool.Run(tasks, [&](std::size_t i) {
    std::size_t begin = 0, end = 0;
    CopyTaskRange(i, tasks, bytes, &begin, &end);
    copy(static_cast<unsigned char*>(dst) + begin,
         static_cast<const unsigned char*>(src) + begin, end - begin);
  });
}

}  // namespace lrelu_bench
