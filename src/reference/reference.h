// The reference oracle: contract v1 written as plainly as possible, one
// element at a time. Every test compares against it, and it is the
// "reference" variant of the CPU backend. It shares no code with the SIMD
// kernels, so agreement between the two means something.
#ifndef LRELU_SRC_REFERENCE_REFERENCE_H_
#define LRELU_SRC_REFERENCE_REFERENCE_H_

#include <cstddef>
#include <cstdint>

#include "lrelu/lrelu.h"
#include "reference/dtype_traits.h"  // the float16/bfloat16 conversions

namespace lrelu::reference {

// One element of the forward pass, on raw storage bits.
uint32_t ForwardF32(uint32_t x, float alpha);
uint16_t ForwardF16(uint16_t x, float alpha);
uint16_t ForwardBF16(uint16_t x, float alpha);
uint64_t ForwardF64(uint64_t x, double alpha);

// One element of the gradient: dx = s < 0 ? alpha * dy : dy.
uint32_t BackwardF32(uint32_t dy, uint32_t s, float alpha);
uint16_t BackwardF16(uint16_t dy, uint16_t s, float alpha);
uint16_t BackwardBF16(uint16_t dy, uint16_t s, float alpha);
uint64_t BackwardF64(uint64_t dy, uint64_t s, double alpha);

// n contiguous elements of `dtype`. For the forward pass pass s == v == x.
// out may equal v or s. alpha is rounded to float32 for the 32/16-bit types.
void Apply(lrelu_dtype_t dtype, const void* v, const void* s, void* out,
           size_t n, double alpha);

// Whether `actual` is a correct result for one element, given the oracle's
// `expected` bits and the element of s: equal bits, with contract v1's one
// allowance — where s < 0 and the product is a NaN, any NaN is correct.
bool ElementMatches(lrelu_dtype_t dtype, uint64_t s_bits, uint64_t expected,
                    uint64_t actual);

}  // namespace lrelu::reference

#endif  // LRELU_SRC_REFERENCE_REFERENCE_H_
