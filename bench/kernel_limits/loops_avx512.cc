// AVX-512 loops for kernel_limits (see loops_avx512.h); each function
// carries its own target attribute, so the file builds with the default
// flags and runs only where the caller checked the CPU.
#include "loops_avx512.h"

#include <cpuid.h>
#include <immintrin.h>

namespace lrelu::bench {
namespace {

#define LRELU_AVX512                                                    \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c,fma"), \
                 noinline))
#define LRELU_AVX512_BF16                                                 \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16"), \
                 noinline))

// The narrowed value in a register, stored by a plain store: the compiler
// would otherwise fold the store into VCVTPS2PH's memory form.
__attribute__((target("avx512f"), always_inline)) inline void StoreHalves(
    uint16_t* y, __m256i h) {
  asm("" : "+v"(h));
  _mm256_store_si256(reinterpret_cast<__m256i*>(y), h);
}

// The 16-bit sign test of lrelu's rules: negative finite values and -inf,
// (bits as int16) below kLimit (-inf's pattern + 1, -0 included).
template <short kLimit>
__attribute__((target("avx512f,avx512bw"), always_inline)) inline __mmask32
Scaled(__m512i u) {
  return _mm512_cmplt_epi16_mask(u, _mm512_set1_epi16(kLimit));
}

}  // namespace

bool HasAvx512() {
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq");
}

// CPUID leaf 7 subleaf 1, EAX bit 5 (clang 14's __builtin_cpu_supports
// does not know "avx512bf16").
bool HasAvx512Bf16() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return HasAvx512() && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 &&
         ((eax >> 5) & 1u) != 0;
}

LRELU_AVX512 void Copy512(const uint16_t* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; i += 32) {
    _mm512_store_si512(y + i, _mm512_load_si512(x + i));
  }
}

LRELU_AVX512 void ConvertBoth512(const uint16_t* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    const __m512 f = _mm512_cvtph_ps(
        _mm256_load_si256(reinterpret_cast<const __m256i*>(x + i)));
    StoreHalves(y + i, _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT));
  }
}

LRELU_AVX512 void XnnpackF16x512(const uint16_t* x, uint16_t* y, size_t n,
                                 float alpha) {
  const __m512 a = _mm512_set1_ps(alpha);
  for (size_t i = 0; i < n; i += 16) {
    const __m512 f = _mm512_cvtph_ps(
        _mm256_load_si256(reinterpret_cast<const __m256i*>(x + i)));
    const __mmask16 negative = _mm512_movepi32_mask(_mm512_castps_si512(f));
    StoreHalves(y + i, _mm512_cvtps_ph(_mm512_mask_mul_ps(f, negative, f, a),
                                       _MM_FROUND_TO_NEAREST_INT));
  }
}

LRELU_AVX512 void CopyF32x512(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    _mm512_store_ps(y + i, _mm512_load_ps(x + i));
  }
}

LRELU_AVX512 void MaxF32x512(const float* x, float* y, size_t n, float alpha) {
  const __m512 a = _mm512_set1_ps(alpha);
  for (size_t i = 0; i < n; i += 16) {
    const __m512 v = _mm512_load_ps(x + i);
    _mm512_store_ps(y + i, _mm512_max_ps(_mm512_mul_ps(v, a), v));
  }
}

LRELU_AVX512_BF16 void NativeBF16x512(const uint16_t* x, uint16_t* y, size_t n,
                                      float alpha) {
  const __m512 a = _mm512_set1_ps(alpha);
  const __m512i high_mask = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
  // VCVTNE2PS2BF16(hi, lo) puts lo's 16 results below hi's; even output
  // lanes come from lo, odd ones from hi.
  alignas(64) uint16_t order[32];
  for (size_t k = 0; k < 16; ++k) {
    order[2 * k] = static_cast<uint16_t>(k);
    order[2 * k + 1] = static_cast<uint16_t>(16 + k);
  }
  const __m512i pairs = _mm512_load_si512(order);
  unsigned subnormal = 0;
  for (size_t i = 0; i < n; i += 32) {
    const __m512i u = _mm512_load_si512(x + i);
    const __m512 hi =
        _mm512_mul_ps(_mm512_castsi512_ps(_mm512_and_si512(u, high_mask)), a);
    const __m512 lo =
        _mm512_mul_ps(_mm512_castsi512_ps(_mm512_slli_epi32(u, 16)), a);
    subnormal |=
        _mm512_fpclass_ps_mask(hi, 0x20) | _mm512_fpclass_ps_mask(lo, 0x20);
    const __m512i p = _mm512_permutexvar_epi16(
        pairs, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
    _mm512_store_si512(y + i, _mm512_mask_blend_epi16(Scaled<-127>(u), u, p));
  }
  // Keeps the check from being dropped.
  if (subnormal != 0) y[0] ^= 1;
}

LRELU_AVX512_BF16 void ConvertBF16x512(const uint16_t* x, uint16_t* y,
                                       size_t n) {
  for (size_t i = 0; i < n; i += 32) {
    const __m512 f = _mm512_load_ps(x + i);
    _mm512_store_si512(y + i,
                       reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(f, f)));
  }
}

}  // namespace lrelu::bench
