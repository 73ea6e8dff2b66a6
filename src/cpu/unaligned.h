// The SIMD kernels load and store whole elements, which needs element-aligned
// pointers. Views into byte buffers (a .npy payload, a packed struct) can be
// misaligned; they go through small aligned tiles instead.
#ifndef LRELU_SRC_CPU_UNALIGNED_H_
#define LRELU_SRC_CPU_UNALIGNED_H_

#include <cstddef>

#include "cpu/kernels.h"

namespace lrelu::cpu {

// Runs `kernel` on args (n contiguous elements of elem_size bytes), copying
// through aligned tiles when any pointer is not a multiple of elem_size.
void RunContiguous(KernelFn kernel, const KernelArgs& args, size_t elem_size);

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_UNALIGNED_H_
