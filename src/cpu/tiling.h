// How the CPU backend splits one call into tasks: whole blocks of output,
// block edges on cache-line boundaries, the first `big` tasks one block
// longer than the rest (so task sizes differ by at most one block).
#ifndef LRELU_SRC_CPU_TILING_H_
#define LRELU_SRC_CPU_TILING_H_

#include <cstddef>

namespace lrelu::cpu {

struct Range {
  size_t begin;
  size_t end;
};

// Range of task `index` of `tasks` over n elements. Elements [0, head) are
// the part before the first block edge (the first cache-line boundary of the
// output); after that, edges fall every `block` elements. Task sizes differ by
// at most one block (plus the head, which goes to task 0).
Range SplitRange(size_t n, size_t head, size_t block, size_t tasks,
                 size_t index);

// How many tasks a call moving `bytes` (read + written) gets: one per
// `min_task_bytes`, at least 1 and at most max_tasks.
size_t ChooseTasks(size_t bytes, size_t max_tasks, size_t min_task_bytes);

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_TILING_H_
