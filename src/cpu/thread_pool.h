// lrelu's own thread pool, shared by all calls that bring no pool of their
// own. A worker that cannot be created (process, pid or memory limits) is
// left out: calls then run on fewer threads, never wait for it.
#ifndef LRELU_SRC_CPU_THREAD_POOL_H_
#define LRELU_SRC_CPU_THREAD_POOL_H_

#include <cstddef>

#include "lrelu/lrelu.h"

namespace lrelu::cpu {

// Hardware threads this process may run on (its CPU affinity).
size_t HardwareThreads();

// The library's pool; its workers start on the first multi-task call and
// are joined when liblrelu is unloaded or the process exits.
const lrelu_thread_pool_t& OwnThreadPool();

// Runs task(context, i) for i in [0, count) on the own pool with at most
// `threads` threads (the calling thread included), which claim the tasks one
// by one: more tasks than threads balance a thread that starts late.
void OwnParallelFor(lrelu_task_fn task, void* context, size_t count,
                    size_t threads);

// Workers the own pool runs besides the calling thread (0 before its first
// multi-task call, after a failed thread creation or after unloading).
size_t OwnThreadPoolWorkers();

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_THREAD_POOL_H_
