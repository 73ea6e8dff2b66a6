// lrelu's own pool. Not pthreadpool any more: Debian's pthreadpool
// (0.0~git20210507) ignores a failed pthread_create and then waits forever
// for the missing worker to check in, so a process or pid limit made every
// multi-task call hang. Here a worker that cannot be created is simply not
// there: the work runs on the workers that exist and the calling thread.
//
// Lifetime: workers start on the first multi-task call and are joined when
// liblrelu is unloaded (dlclose) or at exit, so no thread of lrelu's ever
// runs, or wakes up in, unmapped code. Calls after that (from other static
// destructors) run on the calling thread. A forked child gets a fresh,
// unstarted pool: the parent's workers do not exist there.
#include "cpu/thread_pool.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace lrelu::cpu {
namespace {

// Worker stacks: the kernels need a few KiB (strided tiles are 512
// elements); glibc's default (RLIMIT_STACK, often 8 MiB each) would waste
// address space a `ulimit -v` caller may not have.
constexpr size_t kWorkerStackBytes = size_t{1} << 20;

inline void Relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// How long a worker spins for the next job before sleeping, and the caller
// for the last tasks: back-to-back calls then need no wake-up, which costs
// more than a task of MinTaskBytes (pthreadpool spins for the same
// reason, 10^6 iterations).
constexpr auto kSpinTime = std::chrono::microseconds(2000);

// Spins until done() or kSpinTime has passed; returns done().
template <class Done>
bool SpinUntil(Done done) {
  const auto end = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      Relax();
    }
    if (std::chrono::steady_clock::now() >= end) return done();
  }
}

class Workers {
 public:
  explicit Workers(size_t wanted) : wanted_(wanted > 0 ? wanted - 1 : 0) {}

  // Runs task(context, i) for i in [0, count) on the workers and the
  // calling thread; one call at a time (later callers wait their turn).
  // Tasks are claimed one by one, so the call never waits for a worker that
  // has not started one: a worker that does not get a CPU in time finds
  // the job done and goes back to sleep.
  // At most `threads` threads (the caller included) take part.
  void ParallelFor(lrelu_task_fn task, void* context, size_t count,
                   size_t threads) {
    std::lock_guard<std::mutex> call(call_mutex_);
    if (!started_) Start();
    const size_t limit = threads < count ? threads : count;
    const size_t helpers = limit > 1 ? limit - 1 : 0;
    const size_t used = helpers < threads_.size() ? helpers : threads_.size();
    if (used == 0 || count > kCountMask) {
      for (size_t i = 0; i < count; ++i) task(context, i);
      return;
    }
    const uint64_t job = (job_.load(std::memory_order_relaxed) + 1) & kJobMask;
    task_ = task;
    context_ = context;
    count_.store(count, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    participants_.store(used, std::memory_order_relaxed);
    claim_.store(job << kJobShift, std::memory_order_release);
    // Spinning workers see the new job_ without any lock; only sleeping ones
    // need the mutex and a wake-up (seq_cst pairs with their sleepers_
    // increment: either they see the job or this sees them).
    job_.store(job, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) != 0) {
      { std::lock_guard<std::mutex> lock(mutex_); }
      wake_.notify_all();
    }
    RunTasks(job, true);
    if (SpinUntil([&] {
          return finished_.load(std::memory_order_acquire) == count;
        })) {
      return;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    caller_waiting_.store(true, std::memory_order_seq_cst);
    done_.wait(lock, [&] {
      return finished_.load(std::memory_order_seq_cst) == count;
    });
    caller_waiting_.store(false, std::memory_order_relaxed);
  }

  // Joins the workers; later calls run on the calling thread. Does nothing
  // while a call is in flight: exit() from a signal handler that interrupted
  // a call on this thread would otherwise deadlock (the process is ending,
  // its threads go with it).
  void Stop() {
    std::unique_lock<std::mutex> call(call_mutex_, std::try_to_lock);
    if (!call.owns_lock()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_.store(true, std::memory_order_release);
    }
    wake_.notify_all();
    for (pthread_t t : threads_) pthread_join(t, nullptr);
    // Frees the buffer too: nothing of the pool stays allocated once
    // liblrelu is unloaded (LeakSanitizer's dlclose test).
    std::vector<pthread_t>().swap(threads_);
    started_ = true;  // never start again
  }

  // Workers running (for tests and messages).
  size_t Running() {
    std::lock_guard<std::mutex> call(call_mutex_);
    return threads_.size();
  }

 private:
  // claim_ holds the job number (upper 24 bits), how many tasks have been
  // taken from the back (the next 20) and the next task from the front (the
  // low 20): a worker claims a task of job j only while the word still says
  // j, so a late worker can never take a task of a job that has moved on.
  // The caller takes tasks from the front and the workers from the back,
  // so with two threads each runs the same part of the data call after
  // call and finds it in its own core's cache (one counter had the threads
  // swap halves at random: float32, 256 Ki, 2 threads on a Xeon with 2 MiB
  // L2s took 21-23 us against 15 us).
  static constexpr int kCountBits = 20;
  static constexpr int kJobShift = 2 * kCountBits;
  static constexpr uint64_t kCountMask = (uint64_t{1} << kCountBits) - 1;
  static constexpr uint64_t kJobMask = (uint64_t{1} << (64 - kJobShift)) - 1;

  // Creates up to wanted_ workers; stops at the first failure (a process,
  // pid or memory limit) and keeps those that exist.
  void Start() {
    started_ = true;
    if (wanted_ == 0) return;
    threads_.reserve(wanted_);
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return;
    pthread_attr_setstacksize(&attr, kWorkerStackBytes);
    // Workers take no signals: a process-directed signal then always goes
    // to a caller's thread, which can handle it.
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    for (size_t i = 0; i < wanted_; ++i) {
      pthread_t thread;
      auto* start = new (std::nothrow) StartInfo{this, i};
      if (start == nullptr) break;
      if (pthread_create(&thread, &attr, &Main, start) != 0) {
        delete start;
        break;
      }
      threads_.push_back(thread);
    }
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    pthread_attr_destroy(&attr);
  }

  struct StartInfo {
    Workers* workers;
    size_t index;
  };

  static void* Main(void* arg) {
    const StartInfo info = *static_cast<StartInfo*>(arg);
    delete static_cast<StartInfo*>(arg);
    info.workers->Loop(info.index);
    return nullptr;
  }

  void Loop(size_t index) {
    uint64_t seen = 0;
    for (;;) {
      // Spin a little for the next job, then sleep until it comes. The hot
      // path (a job within kSpinTime of the last) takes no lock.
      const auto changed = [&] {
        return job_.load(std::memory_order_seq_cst) != seen ||
               stop_.load(std::memory_order_acquire);
      };
      if (!SpinUntil(changed)) {
        std::unique_lock<std::mutex> lock(mutex_);
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        wake_.wait(lock, changed);
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
      }
      if (stop_.load(std::memory_order_acquire)) return;
      seen = job_.load(std::memory_order_acquire);
      // Not needed for this job; a stale participants_ (a later job's) is
      // harmless: RunTasks only takes tasks of the job still in claim_.
      if (index >= participants_.load(std::memory_order_relaxed)) continue;
      RunTasks(seen, false);
    }
  }

  // Claims and runs tasks of `job` until none is left: from the front
  // (the caller) or from the back (the workers).
  void RunTasks(uint64_t job, bool front) {
    for (;;) {
      uint64_t word = claim_.load(std::memory_order_acquire);
      size_t i;
      for (;;) {
        const size_t next = static_cast<size_t>(word & kCountMask);
        const size_t taken_back =
            static_cast<size_t>((word >> kCountBits) & kCountMask);
        const size_t n = count_.load(std::memory_order_relaxed);
        if ((word >> kJobShift) != job || next + taken_back >= n) {
          return;
        }
        i = front ? next : n - 1 - taken_back;
        if (claim_.compare_exchange_weak(
                word, word + (front ? 1 : uint64_t{1} << kCountBits),
                std::memory_order_acq_rel)) {
          break;
        }
      }
      // Task i of this job is claimed and not finished, so the caller is
      // still waiting and task_, context_ and count_ are this job's.
      const size_t count = count_.load(std::memory_order_relaxed);
      task_(context_, i);
      // The caller spins for short jobs; it needs a wake-up only once it
      // has gone to sleep (seq_cst pairs with its caller_waiting_ store).
      if (finished_.fetch_add(1, std::memory_order_seq_cst) + 1 == count &&
          caller_waiting_.load(std::memory_order_seq_cst)) {
        { std::lock_guard<std::mutex> lock(mutex_); }
        done_.notify_one();
      }
    }
  }

  const size_t wanted_;  // workers besides the calling thread
  std::mutex call_mutex_;
  bool started_ = false;            // under call_mutex_
  std::vector<pthread_t> threads_;  // under call_mutex_
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::atomic<uint64_t> job_{0};  // written by the caller holding call_mutex_
  std::atomic<bool> stop_{false};
  std::atomic<size_t> participants_{0};      // workers the job needs
  std::atomic<size_t> sleepers_{0};          // workers in wake_.wait
  std::atomic<bool> caller_waiting_{false};  // caller in done_.wait
  lrelu_task_fn task_ = nullptr;
  void* context_ = nullptr;
  std::atomic<size_t> count_{0};
  std::atomic<uint64_t> claim_{0};
  std::atomic<size_t> finished_{0};
};

// Never destroyed: calls may come from other static destructors, after
// StopAtUnload; they then run on the calling thread. In static storage, not
// on the heap, so that nothing is left allocated once liblrelu is unloaded.
alignas(Workers) unsigned char g_storage[sizeof(Workers)];
std::atomic<Workers*> g_workers{nullptr};

void ResetAfterFork() {
  // The child has only the forking thread; the parent's pool (its mutexes
  // perhaps held by threads that are not here) is overwritten, never used
  // or destroyed.
  g_workers.store(new (g_storage) Workers(HardwareThreads()),
                  std::memory_order_release);
}

Workers* CurrentWorkers() {
  static const bool created = [] {
    g_workers.store(new (g_storage) Workers(HardwareThreads()),
                    std::memory_order_release);
    pthread_atfork(nullptr, nullptr, &ResetAfterFork);
    return true;
  }();
  (void)created;
  return g_workers.load(std::memory_order_acquire);
}

// Runs at exit and at dlclose of liblrelu (a static destructor of this
// library): the workers must be gone before their code is unmapped.
struct StopAtUnload {
  ~StopAtUnload() {
    if (Workers* w = g_workers.load(std::memory_order_acquire)) w->Stop();
  }
};
StopAtUnload g_stop_at_unload;

void ParallelFor(void*, lrelu_task_fn task, void* task_context,
                 size_t task_count) {
  OwnParallelFor(task, task_context, task_count, task_count);
}

}  // namespace

void OwnParallelFor(lrelu_task_fn task, void* context, size_t count,
                    size_t threads) {
  Workers* w = CurrentWorkers();
  if (w == nullptr) {  // out of memory for the pool itself
    for (size_t i = 0; i < count; ++i) task(context, i);
    return;
  }
  w->ParallelFor(task, context, count, threads);
}

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

const lrelu_thread_pool_t& OwnThreadPool() {
  static const lrelu_thread_pool_t pool = {&ParallelFor, nullptr,
                                           HardwareThreads()};
  return pool;
}

size_t OwnThreadPoolWorkers() {
  Workers* w = CurrentWorkers();
  return w == nullptr ? 0 : w->Running();
}

}  // namespace lrelu::cpu
