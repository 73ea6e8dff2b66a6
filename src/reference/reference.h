// The reference oracle: contract v1 written as plainly as possible, one
// element at a time. Every test compares against it, and it is the
// "reference" variant of the CPU backend. It shares no code with the SIMD
// kernels, so agreement between the two means something.
#ifndef LRELU_SRC_REFERENCE_REFERENCE_H_
#define LRELU_SRC_REFERENCE_REFERENCE_H_

#include <cstddef>
#include <cstdint>

#include "lrelu/lrelu.h"

namespace lrelu::reference {

// Exact conversions between float32 and the 16-bit storage types. The
// narrowing ones round to nearest, ties to even, keep subnormals and signed
// zeros, and map NaN to a quiet NaN of the same sign.
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
float BFloat16ToFloat(uint16_t b);
uint16_t FloatToBFloat16(float f);

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

}  // namespace lrelu::reference

#endif  // LRELU_SRC_REFERENCE_REFERENCE_H_
