// The kernel table of every Highway target (foreach_target.h re-includes
// this file; the rules and the loop are in kernels-inl.h), and the targets.
#include "cpu/kernels.h"

#include <mutex>
#include <string>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h to avoid redefinition errors.
#include "cpu/kernels-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {

// Rules for any alpha (General) and for finite nonzero alpha (Finite).
template <class General, class Finite>
void FillDType(lrelu_dtype_t dtype, KernelTable* table) {
  const int t = DTypeIndex(dtype);
  table->forward[t][0][0] = &Contiguous<General, true, false>;
  table->forward[t][1][0] = &Contiguous<General, true, true>;
  table->backward[t][0][0] = &Contiguous<General, false, false>;
  table->backward[t][1][0] = &Contiguous<General, false, true>;
  table->forward[t][0][1] = &Contiguous<Finite, true, false>;
  table->forward[t][1][1] = &Contiguous<Finite, true, true>;
  table->backward[t][0][1] = &Contiguous<Finite, false, false>;
  table->backward[t][1][1] = &Contiguous<Finite, false, true>;
}

void FillKernelTable(KernelTable* table) {
  using F32 = Rule<LRELU_DTYPE_FLOAT32>;
  using F16 = Rule<LRELU_DTYPE_FLOAT16>;
  using F64 = Rule<LRELU_DTYPE_FLOAT64>;
  FillDType<F32, F32>(LRELU_DTYPE_FLOAT32, table);
  FillDType<F16, F16>(LRELU_DTYPE_FLOAT16, table);
  FillDType<RuleBFloat16<false>, RuleBFloat16<true>>(LRELU_DTYPE_BFLOAT16,
                                                     table);
  FillDType<F64, F64>(LRELU_DTYPE_FLOAT64, table);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lrelu::cpu {

HWY_EXPORT(FillKernelTable);

size_t DispatchIndex(int64_t target) {
  const int64_t mask =
      (HWY_CHOSEN_TARGET_SHIFT(target) | HWY_CHOSEN_TARGET_MASK_SCALAR) &
      HWY_CHOSEN_TARGET_MASK_TARGETS;
  return hwy::Num0BitsBelowLS1Bit_Nonzero64(static_cast<uint64_t>(mask));
}

namespace {

constexpr size_t kTableSlots = HWY_MAX_DYNAMIC_TARGETS + 2;

}  // namespace

const std::vector<Target>& RunnableTargets() {
  static const std::vector<Target> targets = [] {
    std::vector<Target> list;
    // Lower bits are better targets on every architecture Highway knows.
    for (int64_t bits = hwy::SupportedTargets() & HWY_TARGETS; bits != 0;
         bits &= bits - 1) {
      const int64_t bit = bits & -bits;
      list.push_back({bit, hwy::TargetName(bit)});
    }
    return list;
  }();
  return targets;
}

const char* CompiledTargetNames() {
  static const std::string names = [] {
    std::string list;
    for (int64_t bits = HWY_TARGETS; bits != 0; bits &= bits - 1) {
      if (!list.empty()) list += ' ';
      list += hwy::TargetName(bits & -bits);
    }
    return list;
  }();
  return names.c_str();
}

const KernelTable& KernelsFor(int64_t target) {
  static KernelTable tables[kTableSlots];
  static std::once_flag filled[kTableSlots];
  const size_t index = DispatchIndex(target);
  std::call_once(filled[index], [index] {
    HWY_DISPATCH_TABLE(FillKernelTable)[index](&tables[index]);
  });
  return tables[index];
}

}  // namespace lrelu::cpu
#endif  // HWY_ONCE
