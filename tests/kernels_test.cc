// The SIMD kernels themselves (src/cpu/kernels-inl.h) on every Highway target
// compiled in that this CPU runs, against the reference oracle:
// - each dtype's rule on every partial vector (ForPartialVectors: 1 lane up to
//   a full vector), with all 65,536 float16 and bfloat16 patterns as x, dy and
//   sign source (subnormals, +-0, +-inf, NaN payloads) and alphas whose
//   products tie, underflow and overflow;
// - the table's contiguous loop (head, unrolled body, single vectors, tail),
//   every entry (forward/gradient x stream x finite alpha), every length up
//   to two unrolled blocks past a vector, several output alignments, in
//   place, and no write outside the output;
// - float16's round trip for a positive alpha (F16C targets): exact but for
//   signalling NaNs, which raise MXCSR's invalid flag, and the table's kernel
//   that redoes the task then and keeps the caller's flag.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "cpu/kernels-inl.h"
#include "hwy/highway.h"
#include "hwy/tests/test_util-inl.h"
#include "support/test_data.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

HWY_BEFORE_NAMESPACE();
// Outside namespace lrelu, so that gtest's `testing::` (in HWY_BEFORE_TEST)
// is not lrelu::testing.
namespace lrelu_kernels_test {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace lt = ::lrelu::testing;

using ::lrelu::cpu::DTypeIndex;
using ::lrelu::cpu::KernelArgs;
using ::lrelu::cpu::KernelFn;
using ::lrelu::cpu::KernelTable;
using ::lrelu::cpu::HWY_NAMESPACE::FillKernelTable;
using ::lrelu::cpu::HWY_NAMESPACE::Rule;
using ::lrelu::cpu::HWY_NAMESPACE::RuleBFloat16;
using ::lrelu::cpu::HWY_NAMESPACE::RuleBounded;
using ::lrelu::cpu::HWY_NAMESPACE::RuleFloat16;
using ::lrelu::cpu::HWY_NAMESPACE::RuleFloat16RoundTrip;
#if LRELU_HAVE_F16C && HWY_ARCH_X86
using ::lrelu::cpu::InvalidFlagRaised;
using ::lrelu::cpu::RaiseInvalidFlag;
using ::lrelu::cpu::TakeInvalidFlag;
using ::lrelu::cpu::HWY_NAMESPACE::HalfRoundTripOrExact;
using ::lrelu::cpu::HWY_NAMESPACE::RoundTripRaisesInvalid;
#endif
using ::lrelu::cpu::HWY_NAMESPACE::StorageTag;

// alpha as the kernels receive it: rounded to float32 once (to nearest).
float Alpha32(double alpha) { return static_cast<float>(alpha); }

bool FiniteNonZero(lrelu_dtype_t dtype, double alpha) {
  const double a = dtype == LRELU_DTYPE_FLOAT64 ? alpha : Alpha32(alpha);
  return std::isfinite(a) && a != 0;
}

// Extra alphas for 16-bit products: halving and thirds make exact ties and
// subnormal results; 2^-24 flushes everything small; 65504 overflows.
std::vector<double> RuleAlphas() {
  std::vector<double> alphas = lt::SweepAlphas();
  for (double a : {0.5, 1.0 / 3, 0.75, 1.5, 0x1p-24, 65504.0}) {
    alphas.push_back(a);
  }
  return alphas;
}

// Every 16-bit pattern, and the same patterns in a scrambled order (as sign
// sources unrelated to the values).
std::vector<uint16_t> AllPatterns(bool scrambled) {
  std::vector<uint16_t> bits(65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    bits[i] = static_cast<uint16_t>(scrambled ? (i * 40503u) & 0xffffu : i);
  }
  return bits;
}

// Runs rule R on vectors of tag d over v (and s for the gradient) and
// compares every lane with the oracle.
template <class R, class D>
void CheckRule(D d, lrelu_dtype_t dtype, const typename R::T* v,
               const typename R::T* s, size_t n, double alpha) {
  using T = typename R::T;
  const size_t lanes = hn::Lanes(d);
  n -= n % lanes;
  std::vector<T> out(n);
  const float alpha32 = Alpha32(alpha);
  for (size_t i = 0; i < n; i += lanes) {
    const auto vv = hn::LoadU(d, v + i);
    const auto sv = hn::LoadU(d, s + i);
    hn::StoreU(R::Apply(d, vv, sv, alpha32, alpha), d, out.data() + i);
  }
  const std::string diff =
      lt::CompareWithReference(dtype, v, s, out.data(), n, alpha);
  EXPECT_EQ(diff, "") << lrelu_dtype_name(dtype) << " on " << lanes
                      << " lanes, alpha " << alpha << ", "
                      << hwy::TargetName(HWY_TARGET);
}

// One tag per partial vector: d has float (or double) lanes; the 16-bit rules
// run on the u16 tag with as many lanes.
struct TestRulesOnPartialVectors {
  template <class D>
  void SixteenBit(D d16, const std::vector<uint16_t>& v,
                  const std::vector<uint16_t>& s) {
    for (double alpha : RuleAlphas()) {
      CheckRule<Rule<LRELU_DTYPE_FLOAT16>>(d16, LRELU_DTYPE_FLOAT16, v.data(),
                                           s.data(), v.size(), alpha);
      CheckRule<RuleBFloat16<false>>(d16, LRELU_DTYPE_BFLOAT16, v.data(),
                                     s.data(), v.size(), alpha);
      if (FiniteNonZero(LRELU_DTYPE_BFLOAT16, alpha)) {
        CheckRule<RuleBFloat16<true>>(d16, LRELU_DTYPE_BFLOAT16, v.data(),
                                      s.data(), v.size(), alpha);
      }
      // The forward pass's rules for a positive alpha (-0 joins the
      // scaled lanes).
      if (v.data() == s.data() && FiniteNonZero(LRELU_DTYPE_FLOAT16, alpha) &&
          Alpha32(alpha) > 0) {
        CheckRule<RuleFloat16<true>>(d16, LRELU_DTYPE_FLOAT16, v.data(),
                                     s.data(), v.size(), alpha);
        CheckRule<RuleBFloat16<true, true>>(d16, LRELU_DTYPE_BFLOAT16, v.data(),
                                            s.data(), v.size(), alpha);
      }
    }
  }

  template <lrelu_dtype_t kDType, class D>
  void Wide(D d) {
    using R = Rule<kDType>;
    using T = typename R::T;
    std::mt19937_64 rng(11);
    const size_t n = 4096;
    const auto v = lt::RandomBits(kDType, n, rng);
    const auto s = lt::RandomBits(kDType, n, rng);
    const T* pv = reinterpret_cast<const T*>(v.data());
    const T* ps = reinterpret_cast<const T*>(s.data());
    std::vector<double> alphas = RuleAlphas();
    // Around 1, where the bounded rules change; subnormal alphas.
    for (double a : {1.0, std::nextafter(1.0, 0.0), std::nextafter(1.0, 2.0),
                     double{std::nextafter(1.0f, 0.0f)},
                     double{std::nextafter(1.0f, 2.0f)}, 1e-40, 1e-310}) {
      alphas.push_back(a);
    }
    for (double alpha : alphas) {
      CheckRule<R>(d, kDType, pv, pv, n, alpha);
      CheckRule<R>(d, kDType, pv, ps, n, alpha);
      // The forward pass's bounded rules, for a positive finite alpha.
      const double a = kDType == LRELU_DTYPE_FLOAT64 ? alpha : Alpha32(alpha);
      if (FiniteNonZero(kDType, alpha) && a > 0) {
        if (a <= 1) {
          CheckRule<RuleBounded<kDType, true>>(d, kDType, pv, pv, n, alpha);
        } else {
          CheckRule<RuleBounded<kDType, false>>(d, kDType, pv, pv, n, alpha);
        }
      }
    }
  }

  template <class T, class D>
  HWY_NOINLINE void operator()(T /*unused*/, D d) {
    if constexpr (sizeof(T) == 8) {
      Wide<LRELU_DTYPE_FLOAT64>(d);
    } else {
      Wide<LRELU_DTYPE_FLOAT32>(d);
      const hn::Rebind<uint16_t, D> d16;
      const auto all = AllPatterns(false);
      SixteenBit(d16, all, all);                // forward: s == v
      SixteenBit(d16, all, AllPatterns(true));  // gradient, mixed signs
      SixteenBit(d16, all, std::vector<uint16_t>(all.size(), 0xbc00));
    }
  }
};

HWY_NOINLINE void TestRules() {
  hn::ForPartialVectors<TestRulesOnPartialVectors>()(float());
  hn::ForPartialVectors<TestRulesOnPartialVectors>()(double());
}

// bfloat16's full vectors take a different path (two values per u32 lane);
// check it too, not only through the loop.
HWY_NOINLINE void TestBFloat16FullVectors() {
  const StorageTag<RuleBFloat16<false>> d;
  const auto all = AllPatterns(false);
  const auto mixed = AllPatterns(true);
  for (double alpha : RuleAlphas()) {
    for (const auto* s : {&all, &mixed}) {
      CheckRule<RuleBFloat16<false>>(d, LRELU_DTYPE_BFLOAT16, all.data(),
                                     s->data(), all.size(), alpha);
      if (FiniteNonZero(LRELU_DTYPE_BFLOAT16, alpha)) {
        CheckRule<RuleBFloat16<true>>(d, LRELU_DTYPE_BFLOAT16, all.data(),
                                      s->data(), all.size(), alpha);
      }
      if (s == &all && FiniteNonZero(LRELU_DTYPE_BFLOAT16, alpha) &&
          Alpha32(alpha) > 0) {
        CheckRule<RuleBFloat16<true, true>>(d, LRELU_DTYPE_BFLOAT16, all.data(),
                                            all.data(), all.size(), alpha);
      }
    }
  }
}

// One kernel of the table on n elements whose output starts `offset`
// elements past a 64-byte boundary; in place or not.
std::string RunKernel(KernelFn kernel, lrelu_dtype_t dtype, bool forward,
                      size_t n, size_t offset, bool in_place, double alpha,
                      std::mt19937_64& rng) {
  const size_t size = lrelu_dtype_size(dtype);
  const auto v = lt::RandomBits(dtype, n, rng);
  const auto s = forward ? v : lt::RandomBits(dtype, n, rng);
  constexpr size_t kGuard = 64;
  auto* buffer = static_cast<unsigned char*>(
      hwy::AllocateAlignedBytes(n * size + 3 * kGuard, nullptr, nullptr));
  unsigned char* out = buffer + kGuard + offset * size;
  std::memset(buffer, 0xa5, n * size + 3 * kGuard);
  std::vector<unsigned char> sbuf(s);
  if (in_place && !v.empty()) std::memcpy(out, v.data(), v.size());
  KernelArgs args;
  args.v = in_place ? out : v.data();
  args.s = forward ? args.v : sbuf.data();
  args.out = out;
  args.n = n;
  args.alpha32 = Alpha32(alpha);
  args.alpha = alpha;
  args.dtype = dtype;
  kernel(args);
  std::string diff =
      lt::CompareWithReference(dtype, v.data(), s.data(), out, n, alpha);
  for (unsigned char* p = buffer; p < buffer + n * size + 3 * kGuard; ++p) {
    if ((p < out || p >= out + n * size) && *p != 0xa5) {
      diff += " wrote outside the output";
      break;
    }
  }
  hwy::FreeAlignedBytes(buffer, nullptr, nullptr);
  return diff;
}

HWY_NOINLINE void TestKernelTable() {
  KernelTable table;
  FillKernelTable(&table);
  std::mt19937_64 rng(12);
  const double alphas[] = {0.01, -0.5, 1.5,      3.0,
                           1.0,  0.0,  HUGE_VAL, std::nan("")};
  for (lrelu_dtype_t dtype : lt::AllDTypes()) {
    const size_t size = lrelu_dtype_size(dtype);
    // Past two unrolled blocks of the widest vector (64 bytes), plus a tail.
    const size_t max_n = 2 * 4 * HWY_MAX_BYTES / size + 2 * 64 / size + 3;
    for (int forward = 0; forward < 2; ++forward) {
      for (int stream = 0; stream < 2; ++stream) {
        for (int finite = 0; finite < 2; ++finite) {
          const int t = DTypeIndex(dtype);
          const KernelFn kernel = forward ? table.forward[t][stream][finite]
                                          : table.backward[t][stream][finite];
          ASSERT_NE(kernel, nullptr);
          for (double alpha : alphas) {
            if (finite && !FiniteNonZero(dtype, alpha)) continue;
            for (size_t n = 0; n <= max_n; ++n) {
              for (size_t offset : {size_t{0}, size_t{1}, 16 / size - 1}) {
                const bool in_place = (n + offset) % 3 == 0 && !stream;
                const std::string diff =
                    RunKernel(kernel, dtype, forward != 0, n, offset, in_place,
                              alpha, rng);
                ASSERT_EQ(diff, "")
                    << lrelu_dtype_name(dtype) << " forward " << forward
                    << " stream " << stream << " finite " << finite << " n "
                    << n << " offset " << offset << " alpha " << alpha << " "
                    << hwy::TargetName(HWY_TARGET);
              }
            }
          }
        }
      }
    }
  }
}

bool SignallingHalfNaN(uint16_t h) {
  return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0 && (h & 0x200) == 0;
}

#if LRELU_HAVE_F16C && HWY_ARCH_X86
void SetInvalidFlag(bool set) {
  TakeInvalidFlag();
  if (set) RaiseInvalidFlag();
}

// The round trip on every pattern, one vector of each partial width: lanes
// match the oracle except at signalling NaNs, and a vector raises the
// invalid flag exactly when it holds one.
struct TestRoundTripOnPartialVectors {
  template <class T, class D>
  HWY_NOINLINE void operator()(T /*unused*/, D /*d*/) {
    const hn::Rebind<uint16_t, D> d16;
    const size_t lanes = hn::Lanes(d16);
    const auto all = AllPatterns(false);
    std::vector<uint16_t> out(lanes);
    const bool flag_works = RoundTripRaisesInvalid();
    for (double alpha : {0.01, 0.5, 1.0 / 3, 1.0, 1.5, 65504.0, 0x1p-24}) {
      const float alpha32 = Alpha32(alpha);
      for (size_t i = 0; i + lanes <= all.size(); i += lanes) {
        const auto v = hn::LoadU(d16, all.data() + i);
        SetInvalidFlag(false);
        const auto y = RuleFloat16RoundTrip::Apply(d16, v, v, alpha32, alpha);
        hn::StoreU(y, d16, out.data());
        const bool raised = InvalidFlagRaised();
        bool signalling = false;
        for (size_t k = 0; k < lanes; ++k) {
          const uint16_t x = all[i + k];
          signalling = signalling || SignallingHalfNaN(x);
          if (!SignallingHalfNaN(x)) {
            ASSERT_EQ(lt::CompareWithReference(LRELU_DTYPE_FLOAT16, &x, &x,
                                               &out[k], 1, alpha),
                      "")
                << "alpha " << alpha << " on " << lanes << " lanes, "
                << hwy::TargetName(HWY_TARGET);
          }
        }
        if (flag_works) {
          ASSERT_EQ(raised, signalling)
              << "patterns from " << i << " on " << lanes << " lanes, "
              << hwy::TargetName(HWY_TARGET);
        }
      }
    }
  }
};
#endif

// RaiseInvalidFlag (a comparison with a NaN, not a write to MXCSR), as each
// target's code inlines it, raises the invalid flag and no other, and keeps
// the flags already raised.
HWY_NOINLINE void TestRaiseInvalidFlag() {
#if LRELU_HAVE_F16C && HWY_ARCH_X86
  const unsigned csr = _mm_getcsr();
  for (const unsigned before : {0u, 0x20u, 0x3eu}) {  // none, PE, all others
    _mm_setcsr((csr & ~0x3fu) | before);
    RaiseInvalidFlag();
    const unsigned flags = _mm_getcsr() & 0x3fu;
    _mm_setcsr(csr);
    EXPECT_EQ(flags, before | 1u) << "flags before: " << before;
  }
#endif
}

HWY_NOINLINE void TestHalfRoundTrip() {
#if LRELU_HAVE_F16C && HWY_ARCH_X86
  // Hardware raises the flag; an emulator that does not (valgrind) must
  // leave the table's kernel exact all the same, which the rest checks.
  const bool flag_works = RoundTripRaisesInvalid();
  if (!flag_works) {
    fprintf(stderr, "MXCSR's invalid flag is not raised here (an emulator?)\n");
  }
  hn::ForPartialVectors<TestRoundTripOnPartialVectors>()(float());
  // The table's kernel (the round trip, or on Zen 1 the exact kernel:
  // HalfRoundTripPays) and the round trip itself where the flag works, on
  // all 65,536 patterns out of place (signalling NaNs in the unrolled body,
  // so the exact kernel redoes the task), and on the non-signalling ones
  // alone (the round trip's result stands): the oracle's bits either way,
  // and the caller's invalid flag as it was, or raised by the signalling
  // NaNs.
  KernelTable table;
  FillKernelTable(&table);
  const int t = DTypeIndex(LRELU_DTYPE_FLOAT16);
  const auto all = AllPatterns(false);
  std::vector<uint16_t> quiet;
  for (uint16_t h : all) {
    if (!SignallingHalfNaN(h)) quiet.push_back(h);
  }
  const std::vector<uint16_t>* inputs[] = {&all, &quiet};
  for (const std::vector<uint16_t>* x : inputs) {
    for (int run = 0; run < 4; ++run) {
      const int stream = run % 2;
      const bool from_table = run < 2;
      for (bool caller_flag : {false, true}) {
        // A raised flag cleared around the round trip (0) or left to the
        // exact kernel.
        for (size_t clear_from : {size_t{0}, SIZE_MAX}) {
          if (from_table && clear_from != 0) continue;  // the table's own
          for (double alpha : {0.01, 1.5}) {
            std::vector<uint16_t> y(x->size() + 8);
            KernelArgs args;
            args.v = x->data();
            args.s = x->data();
            args.out = y.data() + 3;  // not vector-aligned: a head too
            args.n = x->size();
            args.alpha32 = Alpha32(alpha);
            args.alpha = alpha;
            args.dtype = LRELU_DTYPE_FLOAT16;
            SetInvalidFlag(caller_flag);
            if (from_table) {
              table.forward[t][stream][1](args);
            } else if (stream == 1) {
              HalfRoundTripOrExact<true>(args, flag_works, clear_from);
            } else {
              HalfRoundTripOrExact<false>(args, flag_works, clear_from);
            }
            const bool flag = InvalidFlagRaised();
            SetInvalidFlag(false);
            EXPECT_EQ(lt::CompareWithReference(LRELU_DTYPE_FLOAT16, x->data(),
                                               x->data(), y.data() + 3,
                                               x->size(), alpha),
                      "")
                << "signalling NaNs " << (x == &all) << " stream " << stream
                << " table " << from_table << " alpha " << alpha << " "
                << hwy::TargetName(HWY_TARGET);
            if (flag_works) {
              EXPECT_EQ(flag, caller_flag || x == &all)
                  << "signalling NaNs " << (x == &all) << " caller's flag "
                  << caller_flag << " table " << from_table << " clear from "
                  << clear_from << " " << hwy::TargetName(HWY_TARGET);
            }
          }
        }
      }
    }
  }
#endif
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu_kernels_test
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lrelu_kernels_test {
HWY_BEFORE_TEST(KernelsTest);
HWY_EXPORT_AND_TEST_P(KernelsTest, TestRules);
HWY_EXPORT_AND_TEST_P(KernelsTest, TestBFloat16FullVectors);
HWY_EXPORT_AND_TEST_P(KernelsTest, TestKernelTable);
HWY_EXPORT_AND_TEST_P(KernelsTest, TestRaiseInvalidFlag);
HWY_EXPORT_AND_TEST_P(KernelsTest, TestHalfRoundTrip);
}  // namespace lrelu_kernels_test
#endif  // HWY_ONCE
