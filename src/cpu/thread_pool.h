// lrelu's own thread pool (pthreadpool, as XNNPACK uses), shared by all
// calls that bring no pool of their own.
#ifndef LRELU_SRC_CPU_THREAD_POOL_H_
#define LRELU_SRC_CPU_THREAD_POOL_H_

#include <cstddef>

#include "lrelu/lrelu.h"

namespace lrelu::cpu {

// Hardware threads this process may run on (its CPU affinity).
size_t HardwareThreads();

// A pool over the library's pthreadpool, created on first use.
const lrelu_thread_pool_t& OwnThreadPool();

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_THREAD_POOL_H_
