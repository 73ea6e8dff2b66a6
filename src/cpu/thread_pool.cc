#include "cpu/thread_pool.h"

#include <pthreadpool.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>

#if defined(__SANITIZE_THREAD__)
#define LRELU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LRELU_TSAN 1
#endif
#endif

#ifdef LRELU_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace lrelu::cpu {
namespace {

#ifdef LRELU_TSAN
// Debian's pthreadpool is not instrumented, so ThreadSanitizer cannot see
// that it orders the caller's writes before the tasks and the tasks before
// its return. Tell it, through one synchronisation object per call.
struct Dispatch {
  lrelu_task_fn task;
  void* task_context;
};

void AnnotatedTask(void* context, size_t index) {
  auto* d = static_cast<Dispatch*>(context);
  __tsan_acquire(d);
  d->task(d->task_context, index);
  __tsan_release(d);
}
#endif

void ParallelFor(void* pool_context, lrelu_task_fn task, void* task_context,
                 size_t task_count) {
  auto pool = static_cast<pthreadpool_t>(pool_context);
  // pthreadpool serialises concurrent callers on one pool, which is correct,
  // and its calling thread takes part in the work.
#ifdef LRELU_TSAN
  Dispatch dispatch{task, task_context};
  __tsan_release(&dispatch);
  pthreadpool_parallelize_1d(pool, &AnnotatedTask, &dispatch, task_count, 0);
  __tsan_acquire(&dispatch);
#else
  pthreadpool_parallelize_1d(pool, task, task_context, task_count, 0);
#endif
}

}  // namespace

size_t HardwareThreads() {
  static const size_t count = [] {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
      const int n = CPU_COUNT(&set);
      if (n > 0) return static_cast<size_t>(n);
    }
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<size_t>(n) : size_t{1};
  }();
  return count;
}

namespace {

// The workers of lrelu's own pool; null before first use and after teardown,
// when calls run on the calling thread (pthreadpool's rule for a null pool).
std::atomic<pthreadpool_t> own_workers{nullptr};

void OwnParallelFor(void* /*pool_context*/, lrelu_task_fn task,
                    void* task_context, size_t task_count) {
  ParallelFor(own_workers.load(std::memory_order_acquire), task, task_context,
              task_count);
}

// Joins the workers when liblrelu is unloaded (dlclose) or the process
// exits. Left running, a worker still spinning in pthreadpool's code when the
// host unmaps it crashes the host (GNU Octave unloading a MEX file at exit).
// A forked child has no workers to join, so it leaves the pool alone.
struct OwnWorkersJoiner {
  pid_t creator = getpid();
  ~OwnWorkersJoiner() {
    pthreadpool_t workers = own_workers.exchange(nullptr);
    if (workers != nullptr && getpid() == creator) pthreadpool_destroy(workers);
  }
};

}  // namespace

const lrelu_thread_pool_t& OwnThreadPool() {
  static const lrelu_thread_pool_t pool = [] {
    own_workers.store(pthreadpool_create(HardwareThreads()),
                      std::memory_order_release);
    // Constructed after the workers, so destroyed before anything older:
    // static destructors that run later still get serial calls.
    static OwnWorkersJoiner joiner;
    lrelu_thread_pool_t p;
    p.parallel_for = &OwnParallelFor;
    p.pool_context = nullptr;
    p.concurrency = HardwareThreads();
    return p;
  }();
  return pool;
}

}  // namespace lrelu::cpu
