// How the CPU backend splits one call into tasks: whole blocks of output,
// block edges on cache-line boundaries, the first `big` tasks one block
// longer than the rest (so task sizes differ by at most one block).
#ifndef LRELU_SRC_CPU_TILING_H_
#define LRELU_SRC_CPU_TILING_H_

#include <cstddef>

#include "lrelu/lrelu.h"

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

// Bytes moved (read + written) below which a second thread costs more than
// it saves, for float32 and float64.
constexpr size_t kTaskBytes = size_t{256} << 10;

// The same for `dtype` on a CPU that is Zen 1 (IsZen1) or not.
// float16/bfloat16 kernels take about twice the time per byte of float32
// in cache (docs/performance.md, 256 Ki, 1 thread: 2.05 and 1.86 vs 0.96
// the copy), so their tasks pay off at half the bytes. On Zen 1 they take
// three to four times float32's (bench/report/limits-amd-zen1.md): with
// an eighth, 16 Ki elements (64 KiB moved) on two threads took 0.61-0.66
// of one thread's time (`lrelu_small_call`), where half kept them on one
// thread; a sixteenth split 8 Ki elements too, which did not pay.
constexpr size_t MinTaskBytesFor(lrelu_dtype_t dtype, bool zen1) {
  if (dtype != LRELU_DTYPE_FLOAT16 && dtype != LRELU_DTYPE_BFLOAT16) {
    return kTaskBytes;
  }
  return zen1 ? kTaskBytes / 8 : kTaskBytes / 2;
}

// MinTaskBytesFor this CPU.
size_t MinTaskBytes(lrelu_dtype_t dtype);

// Pieces the own pool runs for a call of `tasks` threads: up to
// kPiecesPerThread per thread, none below min_task_bytes. The threads claim
// pieces one by one, so a thread the OS preempts (or that wakes late) holds
// up the call by one piece, not by its whole share.
constexpr size_t kPiecesPerThread = 4;
size_t ChoosePieces(size_t bytes, size_t tasks, size_t min_task_bytes);

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_TILING_H_
