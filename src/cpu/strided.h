// The strided variant: walks a normalised problem that is not one dense run,
// with no full copy. Rows that are contiguous in an operand are used in
// place; other operands pass through a small tile buffer that the
// contiguous kernel reads or writes.
#ifndef LRELU_SRC_CPU_STRIDED_H_
#define LRELU_SRC_CPU_STRIDED_H_

#include <cstdint>

#include "core/problem.h"
#include "cpu/kernels.h"

namespace lrelu::cpu {

// Applies `kernel` to the elements with linear (row-major, normalised
// order) indices [begin, end). args supplies alpha and dtype.
void RunStrided(const Problem& p, KernelFn kernel, const KernelArgs& args,
                int64_t begin, int64_t end);

}  // namespace lrelu::cpu

#endif  // LRELU_SRC_CPU_STRIDED_H_
