#include "cpu/tiling.h"

#include <algorithm>

#include "cpu/cpu_kind.h"

namespace lrelu::cpu {

size_t MinTaskBytes(lrelu_dtype_t dtype) {
  return MinTaskBytesFor(dtype, IsZen1());
}

Range SplitRange(size_t n, size_t head, size_t block, size_t tasks,
                 size_t index) {
  if (tasks <= 1) return {0, n};
  head = std::min(head, n);
  const size_t blocks = (n - head + block - 1) / block;
  const size_t small = blocks / tasks;  // blocks of every task
  const size_t big = blocks % tasks;    // tasks with one block more
  const size_t first = index * small + std::min(index, big);
  const size_t count = small + (index < big ? 1 : 0);
  const size_t begin = index == 0 ? 0 : std::min(n, head + first * block);
  const size_t end = std::min(n, head + (first + count) * block);
  return {begin, end};
}

size_t ChooseTasks(size_t bytes, size_t max_tasks, size_t min_task_bytes) {
  const size_t by_size = bytes / min_task_bytes;
  return std::max<size_t>(1, std::min(max_tasks, by_size));
}

size_t ChoosePieces(size_t bytes, size_t tasks, size_t min_task_bytes) {
  if (tasks <= 1) return 1;
  const size_t by_size = bytes / min_task_bytes;
  return std::max(tasks, std::min(tasks * kPiecesPerThread, by_size));
}

}  // namespace lrelu::cpu
