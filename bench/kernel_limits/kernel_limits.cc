// What this CPU can do per element for the LeakyReLU kernels, in cache:
// minimal AVX2/F16C loops for each ingredient (a copy, the F16C
// conversions alone, XNNPACK's float16 schedule and the same with the
// conversions' other operand forms, lrelu's exact float16 and bfloat16
// schedules; float32's compare-and-blend and max schedules) next to lrelu's
// own kernels (the table entries the library picks), all on the same
// buffers in the same run; where the CPU has AVX-512, the same at 64 bytes
// per vector and the AVX-512 BF16 conversion (loops_avx512.h). Times are the
// fastest of 201 samples (and the median), as ns/element and as a ratio to
// the copy. Not a test: the loops below are not bit-exact for every input
// (XNNPACK's rounds through float16 alpha; none handles heads and tails).
//
//   kernel_limits [elements=16384] [passes per sample=20] [s = small inputs
//   whose float16 products are subnormal]
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cpu/kernels.h"
#include "hwy/aligned_allocator.h"
#include "loops_avx512.h"

namespace {

#define LRELU_AVX2 __attribute__((target("avx2,f16c,fma"), noinline))

LRELU_AVX2 void Copy(const uint16_t* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    _mm256_store_si256(
        reinterpret_cast<__m256i*>(y + i),
        _mm256_load_si256(reinterpret_cast<const __m256i*>(x + i)));
  }
}

// The narrowed value in a register, stored by a plain store: the compiler
// would otherwise fold the store into VCVTPS2PH's memory form.
__attribute__((target("avx2"), always_inline)) inline void StoreHalves(
    uint16_t* y, __m128i h) {
  asm("" : "+x"(h));
  _mm_store_si128(reinterpret_cast<__m128i*>(y), h);
}

// The loaded value in a register: the compiler would otherwise fold the
// load into VCVTPH2PS's memory form.
__attribute__((target("avx2"), always_inline)) inline __m128i LoadInRegister(
    const uint16_t* x) {
  __m128i h = _mm_load_si128(reinterpret_cast<const __m128i*>(x));
  asm("" : "+x"(h));
  return h;
}

// float16 -> float32 -> float16, nothing else: the conversion ports alone
// (each instruction's memory form, as XNNPACK's binary uses them).
LRELU_AVX2 void ConvertBoth(const uint16_t* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    const __m256 f = _mm256_cvtph_ps(
        _mm_load_si128(reinterpret_cast<const __m128i*>(x + i)));
    StoreHalves(y + i, _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT));
  }
}

// XNNPACK's f16-vlrelu F16C schedule, as Debian's libXNNPACK compiles it:
// VCVTPH2PS from memory, multiply, blend by the float sign, VCVTPS2PH to a
// register and a store (16 elements per iteration). With kRegisterSource
// the load goes to a register first; with kMemoryStore VCVTPS2PH writes
// memory itself: each form costs ~1.5x on this CPU (Zen).
template <bool kRegisterSource, bool kMemoryStore>
LRELU_AVX2 void XnnpackF16(const uint16_t* x, uint16_t* y, size_t n,
                           float alpha) {
  const __m256 a = _mm256_set1_ps(alpha);
  for (size_t i = 0; i < n; i += 16) {
    for (size_t k = i; k < i + 16; k += 8) {
      const __m256 x0 = kRegisterSource
                            ? _mm256_cvtph_ps(LoadInRegister(x + k))
                            : _mm256_cvtph_ps(_mm_load_si128(
                                  reinterpret_cast<const __m128i*>(x + k)));
      const __m128i h0 =
          _mm256_cvtps_ph(_mm256_blendv_ps(x0, _mm256_mul_ps(x0, a), x0),
                          _MM_FROUND_TO_NEAREST_INT);
      if (kMemoryStore) {
        _mm_store_si128(reinterpret_cast<__m128i*>(y + k), h0);
      } else {
        StoreHalves(y + k, h0);
      }
    }
  }
}

// lrelu's float16 rule: convert, multiply, convert back, then keep the
// original bits unless the integer sign test says negative.
LRELU_AVX2 void LreluF16(const uint16_t* x, uint16_t* y, size_t n,
                         float alpha) {
  const __m256 a = _mm256_set1_ps(alpha);
  const __m128i one = _mm_set1_epi16(1);
  const __m128i limit = _mm_set1_epi16(-1024);
  for (size_t i = 0; i < n; i += 8) {
    const __m128i h = _mm_load_si128(reinterpret_cast<const __m128i*>(x + i));
    const __m128i p = _mm256_cvtps_ph(_mm256_mul_ps(_mm256_cvtph_ps(h), a),
                                      _MM_FROUND_TO_NEAREST_INT);
    const __m128i negative = _mm_cmplt_epi16(_mm_sub_epi16(h, one), limit);
    _mm_store_si128(reinterpret_cast<__m128i*>(y + i),
                    _mm_blendv_epi8(h, p, negative));
  }
}

// Float32 bits rounded to nearest even into their high 16 bits.
__attribute__((target("avx2"), always_inline)) inline __m256i RoundHigh(
    __m256i v, __m256i bias, __m256i one32) {
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(v, 16), one32);
  return _mm256_add_epi32(_mm256_add_epi32(v, bias), odd);
}

// lrelu's bfloat16 rule (finite alpha): two values per 32-bit lane, widen by
// mask/shift, multiply, round to nearest even by integer add, blend.
LRELU_AVX2 void LreluBF16(const uint16_t* x, uint16_t* y, size_t n,
                          float alpha) {
  const __m256 a = _mm256_set1_ps(alpha);
  const __m256i high_mask = _mm256_set1_epi32(static_cast<int>(0xffff0000u));
  const __m256i bias = _mm256_set1_epi32(0x7fff);
  const __m256i one32 = _mm256_set1_epi32(1);
  const __m256i one = _mm256_set1_epi16(1);
  const __m256i limit = _mm256_set1_epi16(-128);
  for (size_t i = 0; i < n; i += 16) {
    const __m256i u =
        _mm256_load_si256(reinterpret_cast<const __m256i*>(x + i));
    const __m256i hi = _mm256_castps_si256(
        _mm256_mul_ps(_mm256_castsi256_ps(_mm256_and_si256(u, high_mask)), a));
    const __m256i lo = _mm256_castps_si256(
        _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(u, 16)), a));
    const __m256i p = _mm256_blend_epi16(
        RoundHigh(hi, bias, one32),
        _mm256_srli_epi32(RoundHigh(lo, bias, one32), 16), 0x55);
    const __m256i negative =
        _mm256_cmpgt_epi16(limit, _mm256_sub_epi16(u, one));
    _mm256_store_si256(reinterpret_cast<__m256i*>(y + i),
                       _mm256_blendv_epi8(u, p, negative));
  }
}

// float32: the copy, the compare-and-blend schedule the general rule
// compiles to, and the max form of the forward rule for alpha in (0, 1]
// (cpu/kernels-inl.h RuleBounded).
LRELU_AVX2 void Widen(const uint16_t* h, float* f, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    _mm256_store_ps(f + i, _mm256_cvtph_ps(_mm_load_si128(
                               reinterpret_cast<const __m128i*>(h + i))));
  }
}

LRELU_AVX2 void CopyF32(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    _mm256_store_ps(y + i, _mm256_load_ps(x + i));
  }
}

LRELU_AVX2 void BlendF32(const float* x, float* y, size_t n, float alpha) {
  const __m256 a = _mm256_set1_ps(alpha);
  for (size_t i = 0; i < n; i += 8) {
    const __m256 v = _mm256_load_ps(x + i);
    const __m256 negative = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ);
    _mm256_store_ps(y + i, _mm256_blendv_ps(v, _mm256_mul_ps(v, a), negative));
  }
}

LRELU_AVX2 void MaxF32(const float* x, float* y, size_t n, float alpha) {
  const __m256 a = _mm256_set1_ps(alpha);
  for (size_t i = 0; i < n; i += 8) {
    const __m256 v = _mm256_load_ps(x + i);
    _mm256_store_ps(y + i, _mm256_max_ps(_mm256_mul_ps(v, a), v));
  }
}

// The fastest of many short samples: on a shared machine the minimum is
// the estimate least disturbed by other processes (the median is printed
// too, as the spread).
struct Timing {
  double min;
  double median;
};

template <class F>
Timing NsPerElement(const F& f, size_t n, int passes) {
  std::vector<double> ns;
  for (int r = 0; r < 201; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int p = 0; p < passes; ++p) f();
    const auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                 (static_cast<double>(passes) * static_cast<double>(n)));
  }
  std::sort(ns.begin(), ns.end());
  return {ns.front(), ns[ns.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc && i < 3; ++i) {
    if (std::strspn(argv[i], "0123456789") != std::strlen(argv[i]) ||
        std::strtoull(argv[i], nullptr, 10) == 0) {
      std::fprintf(stderr,
                   "usage: kernel_limits [elements=16384] [passes=20] [s]\n");
      return 2;
    }
  }
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 16384;
  const int passes = argc > 2 ? std::atoi(argv[2]) : 20;
  if (n % 32 != 0 || !__builtin_cpu_supports("avx2") ||
      !__builtin_cpu_supports("f16c")) {
    std::fprintf(stderr, "needs AVX2 + F16C and a multiple of 32 elements\n");
    return 2;
  }
  auto x = hwy::AllocateAligned<uint16_t>(n);
  auto y = hwy::AllocateAligned<uint16_t>(n);
  // Normal values of both signs whose products stay normal in float16 and
  // bfloat16 (exponents 2^-4..2^4 in float16 terms, alpha 0.01): subnormal
  // results cost microcode assists in F16C on some CPUs, which the
  // "subnormal" rows show separately.
  const bool subnormal = argc > 3 && argv[3][0] == 's';
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = static_cast<uint32_t>(i) * 2654435761u;
    const uint32_t exponent = subnormal ? 1 + r % 8 : 11 + r % 9;
    x[i] = static_cast<uint16_t>(((r >> 16) & 0x8000u) | (exponent << 10) |
                                 ((r >> 8) & 0x3ffu));
  }
  const float alpha = 0.01f;
  namespace cpu = lrelu::cpu;
  const auto& table = cpu::KernelsFor(cpu::RunnableTargets().front().bit);
  auto kernel_args = [&](lrelu_dtype_t dtype) {
    cpu::KernelArgs args{x.get(), x.get(), y.get(), n, alpha, alpha, dtype};
    return args;
  };
  const cpu::KernelArgs f16 = kernel_args(LRELU_DTYPE_FLOAT16);
  const cpu::KernelArgs bf16 = kernel_args(LRELU_DTYPE_BFLOAT16);
  const cpu::KernelFn f16_kernel =
      table.forward[cpu::DTypeIndex(LRELU_DTYPE_FLOAT16)][0][1];
  const cpu::KernelFn bf16_kernel =
      table.forward[cpu::DTypeIndex(LRELU_DTYPE_BFLOAT16)][0][1];

  struct Row {
    const char* name;
    Timing t;
    const Timing* base = nullptr;  // its copy; NULL: the 16-bit one
  };
  std::vector<Row> rows;
  const Timing copy =
      NsPerElement([&] { Copy(x.get(), y.get(), n); }, n, passes);
  rows.push_back({"copy (32-byte loads/stores)", copy});
  rows.push_back(
      {"F16C convert both ways only",
       NsPerElement([&] { ConvertBoth(x.get(), y.get(), n); }, n, passes)});
  rows.push_back(
      {"XNNPACK f16 schedule (cvt, mul, blendvps, cvt)",
       NsPerElement(
           [&] { XnnpackF16<false, false>(x.get(), y.get(), n, alpha); }, n,
           passes)});
  rows.push_back(
      {"  the same, VCVTPH2PS from a register",
       NsPerElement(
           [&] { XnnpackF16<true, false>(x.get(), y.get(), n, alpha); }, n,
           passes)});
  rows.push_back(
      {"  the same, VCVTPS2PH to memory",
       NsPerElement(
           [&] { XnnpackF16<false, true>(x.get(), y.get(), n, alpha); }, n,
           passes)});
  rows.push_back(
      {"lrelu f16 schedule (cvt, mul, cvt, int sign, blend)",
       NsPerElement([&] { LreluF16(x.get(), y.get(), n, alpha); }, n, passes)});
  const Timing f16_library = NsPerElement([&] { f16_kernel(f16); }, n, passes);
  rows.push_back({"lrelu f16 kernel (library table)", f16_library});
  // alpha < 0 takes the exact kernel (as in place and the gradient do).
  cpu::KernelArgs f16_negative = f16;
  f16_negative.alpha32 = -alpha;
  f16_negative.alpha = -alpha;
  rows.push_back({"lrelu f16 exact kernel (alpha < 0, in place, gradient)",
                  NsPerElement([&] { f16_kernel(f16_negative); }, n, passes)});
  rows.push_back({"lrelu bf16 schedule (paired lanes, int RNE, blend)",
                  NsPerElement([&] { LreluBF16(x.get(), y.get(), n, alpha); },
                               n, passes)});
  const Timing bf16_library =
      NsPerElement([&] { bf16_kernel(bf16); }, n, passes);
  rows.push_back({"lrelu bf16 kernel (library table)", bf16_library});
  // float32 from the float16 values (both signs, normal).
  auto xf = hwy::AllocateAligned<float>(n);
  auto yf = hwy::AllocateAligned<float>(n);
  Widen(x.get(), xf.get(), n);
  const cpu::KernelArgs f32{xf.get(), xf.get(), yf.get(),           n,
                            alpha,    alpha,    LRELU_DTYPE_FLOAT32};
  const cpu::KernelFn f32_kernel =
      table.forward[cpu::DTypeIndex(LRELU_DTYPE_FLOAT32)][0][1];
  const Timing copy32 =
      NsPerElement([&] { CopyF32(xf.get(), yf.get(), n); }, n, passes);
  rows.push_back({"f32 copy (32-byte loads/stores)", copy32, &copy32});
  rows.push_back(
      {"f32 schedule (mul, cmp, blendvps)",
       NsPerElement([&] { BlendF32(xf.get(), yf.get(), n, alpha); }, n, passes),
       &copy32});
  rows.push_back(
      {"f32 schedule (mul, maxps: alpha in (0, 1])",
       NsPerElement([&] { MaxF32(xf.get(), yf.get(), n, alpha); }, n, passes),
       &copy32});
  const Timing f32_library = NsPerElement([&] { f32_kernel(f32); }, n, passes);
  rows.push_back({"lrelu f32 kernel (library table)", f32_library, &copy32});
  // At 64 bytes per vector, where the CPU has AVX-512: the library's
  // kernels above are then Highway's AVX3 ones, and are compared here with
  // the 64-byte copy too.
  Timing copy512{};
  Timing copy512_f32{};
  if (lrelu::bench::HasAvx512()) {
    namespace b = lrelu::bench;
    copy512 = NsPerElement([&] { b::Copy512(x.get(), y.get(), n); }, n, passes);
    rows.push_back({"zmm: copy (64-byte loads/stores)", copy512, &copy512});
    rows.push_back(
        {"zmm: F16C convert both ways only",
         NsPerElement([&] { b::ConvertBoth512(x.get(), y.get(), n); }, n,
                      passes),
         &copy512});
    rows.push_back(
        {"zmm: XNNPACK f16 schedule (cvt, masked mul, cvt)",
         NsPerElement([&] { b::XnnpackF16x512(x.get(), y.get(), n, alpha); }, n,
                      passes),
         &copy512});
    rows.push_back(
        {"zmm: lrelu f16 kernel (library table)", f16_library, &copy512});
    if (b::HasAvx512Bf16()) {
      rows.push_back(
          {"zmm: vcvtne2ps2bf16 only (one per 32 elements)",
           NsPerElement([&] { b::ConvertBF16x512(x.get(), y.get(), n); }, n,
                        passes),
           &copy512});
      rows.push_back(
          {"zmm: AVX512-BF16 schedule (vcvtne2ps2bf16, vpermw; not exact)",
           NsPerElement([&] { b::NativeBF16x512(x.get(), y.get(), n, alpha); },
                        n, passes),
           &copy512});
    }
    rows.push_back(
        {"zmm: lrelu bf16 kernel (library table)", bf16_library, &copy512});
    // float32 against a copy of its own bytes (4 per element).
    copy512_f32 =
        NsPerElement([&] { b::CopyF32x512(xf.get(), yf.get(), n); }, n, passes);
    rows.push_back(
        {"zmm: f32 copy (64-byte loads/stores)", copy512_f32, &copy512_f32});
    rows.push_back(
        {"zmm: f32 schedule (mul, maxps: alpha in (0, 1])",
         NsPerElement([&] { b::MaxF32x512(xf.get(), yf.get(), n, alpha); }, n,
                      passes),
         &copy512_f32});
    rows.push_back(
        {"zmm: lrelu f32 kernel (library table)", f32_library, &copy512_f32});
  }
  std::printf("%zu elements, %d passes x 201 samples; target %s; %s inputs\n",
              n, passes, cpu::RunnableTargets().front().name,
              subnormal ? "small (subnormal float16 products)" : "normal");
  for (const Row& r : rows) {
    const Timing& base = r.base != nullptr ? *r.base : copy;
    std::printf("%-52s min %7.4f ns/elem %5.2fx copy  (median %5.2fx)\n",
                r.name, r.t.min, r.t.min / base.min, r.t.median / base.median);
  }
  return 0;
}
