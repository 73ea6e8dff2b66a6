// The AVX-512 rows of kernel_limits: the same ingredients as its AVX2 loops
// at 64 bytes per vector, and the AVX-512 BF16 conversion lrelu cannot use
// as it is. Call only where HasAvx512() (HasAvx512Bf16() for the last).
#ifndef LRELU_BENCH_KERNEL_LIMITS_LOOPS_AVX512_H_
#define LRELU_BENCH_KERNEL_LIMITS_LOOPS_AVX512_H_

#include <cstddef>
#include <cstdint>

namespace lrelu::bench {

// AVX-512 F, BW, VL and DQ (Highway's AVX3 target); F16C is the caller's
// check (kernel_limits needs it for every row).
bool HasAvx512();
// AVX-512 BF16 as well.
bool HasAvx512Bf16();

// 64-byte loads and stores (n: 16-bit elements, a multiple of 32).
void Copy512(const uint16_t* x, uint16_t* y, size_t n);
// float16 -> float32 -> float16 at 16 lanes, nothing else.
void ConvertBoth512(const uint16_t* x, uint16_t* y, size_t n);
// XNNPACK's float16 schedule at 16 lanes: widen from memory, multiply,
// masked blend by the float sign, narrow to a register, store.
void XnnpackF16x512(const uint16_t* x, uint16_t* y, size_t n, float alpha);
// float32 at 16 lanes (n: float32 elements, a multiple of 16): 64-byte
// loads and stores, and the forward rule for alpha in (0, 1] as
// max(alpha * x, x), one multiply and one max a vector.
void CopyF32x512(const float* x, float* y, size_t n);
void MaxF32x512(const float* x, float* y, size_t n, float alpha);
// lrelu's bfloat16 rule (two values per 32-bit lane, widened by mask and
// shift, multiplied, re-paired, blended by the 16-bit sign test; its AVX3
// kernel is the library row) with VCVTNE2PS2BF16 doing the rounding in
// place of the integer round to nearest even, and VPERMW the re-pairing. The
// instruction treats subnormal inputs as zero, so a product below 2^-126 comes
// out wrong; the loop only counts such vectors (an exact kernel would redo
// them), which the inputs here never have.
void NativeBF16x512(const uint16_t* x, uint16_t* y, size_t n, float alpha);
// VCVTNE2PS2BF16 alone: each 64 bytes of x read as one float32 vector,
// narrowed twice over into one vector of bfloat16 and stored: one
// instruction per 32 elements, as an exact schedule would need.
void ConvertBF16x512(const uint16_t* x, uint16_t* y, size_t n);

}  // namespace lrelu::bench

#endif  // LRELU_BENCH_KERNEL_LIMITS_LOOPS_AVX512_H_
