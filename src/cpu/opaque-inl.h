// Opaque(product): a product the optimiser may not look through, for the
// SIMD kernels of every Highway target (kernels-inl.h, prelu_rows.cc).

// Per-target include guard (Highway's -inl.h convention).
#if defined(LRELU_SRC_CPU_OPAQUE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LRELU_SRC_CPU_OPAQUE_INL_H_
#undef LRELU_SRC_CPU_OPAQUE_INL_H_
#else
#define LRELU_SRC_CPU_OPAQUE_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {

// The product, opaque to the optimiser. clang otherwise rewrites
// IfThenElse(s < 0, v * alpha, v) as v * (s < 0 ? alpha : 1), and v * 1
// quiets a signalling NaN that must pass through untouched. GCC does not.
template <class V>
HWY_INLINE V Opaque(V product) {
#if defined(__clang__) && HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && \
    HWY_TARGET != HWY_SCALAR
  asm("" : "+v"(product.raw));
#elif defined(__clang__)
  asm("" : "+m"(product));
#endif
  return product;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu::cpu
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
