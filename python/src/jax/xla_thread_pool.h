// lrelu's thread-pool interface over XLA's intra-op thread pool, as the FFI
// hands it to a CPU handler.
#ifndef LRELU_PYTHON_SRC_JAX_XLA_THREAD_POOL_H_
#define LRELU_PYTHON_SRC_JAX_XLA_THREAD_POOL_H_

#include "lrelu/lrelu.h"
#include "xla/ffi/api/ffi.h"

namespace lrelu::jax {

// parallel_for hands tasks to XLA's workers and also runs them on the
// calling thread, which waits only for tasks a worker has already started:
// it cannot deadlock when it is itself one of XLA's workers and the pool is
// busy. concurrency is XLA's thread count (1 without a pool).
class XlaThreadPool {
 public:
  explicit XlaThreadPool(::xla::ffi::ThreadPool& pool);
  XlaThreadPool(const XlaThreadPool&) = delete;
  XlaThreadPool& operator=(const XlaThreadPool&) = delete;

  const lrelu_thread_pool_t& view() const { return view_; }
  // Default options with this pool (valid while the pool lives).
  lrelu_options_t options() const {
    lrelu_options_t options;
    lrelu_options_init(&options);
    options.thread_pool = &view_;
    return options;
  }

 private:
  static void ParallelFor(void* pool_context, lrelu_task_fn task,
                          void* task_context, size_t task_count);

  ::xla::ffi::ThreadPool* pool_;
  lrelu_thread_pool_t view_;
};

}  // namespace lrelu::jax

#endif  // LRELU_PYTHON_SRC_JAX_XLA_THREAD_POOL_H_
