// The kernel table of every Highway target (foreach_target.h re-includes
// this file; the rules and the loop are in kernels-inl.h), and the targets.
#include "cpu/kernels.h"

#include <string>
#include <vector>

#include "cpu/cpu_kind.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h to avoid redefinition errors.
#include "cpu/kernels-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lrelu::cpu {
namespace HWY_NAMESPACE {

// The target this pass compiles for. It only returns a constant, so it
// executes no instruction of its target and may be called for any slot of
// the exported table, even one this CPU cannot run.
int64_t CompiledTarget() { return HWY_TARGET; }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace lrelu::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lrelu::cpu {

bool HalfRoundTripPays() { return !IsZen1(); }

size_t ClearInvalidFlagFrom() {
  static const size_t from = IsAmd() ? 64 : size_t{64} << 10;
  return from;
}

HWY_EXPORT(CompiledTarget);
HWY_EXPORT(FillKernelTable);

namespace {

constexpr size_t kTableSlots = sizeof(HWY_DISPATCH_TABLE(CompiledTarget)) /
                               sizeof(HWY_DISPATCH_TABLE(CompiledTarget)[0]);

// The target of each slot of the exported tables (0: none), asked of the
// slot's own function; every HWY_EXPORT table of a build has the same
// layout. The first entry is Highway's dispatcher (it would set the
// process-wide choice and call the best target), never a target's own
// function, so it is skipped; empty slots are null.
// Indexed by the target's bit position (targets are single bits), so that
// a small call's table lookup is one load, not a search.
struct SlotsByBit {
  size_t slot[64] = {};  // 0: not compiled in
};

const SlotsByBit& SlotTargets() {
  static const SlotsByBit slots = [] {
    SlotsByBit s;
    for (size_t i = 1; i < kTableSlots; ++i) {
      const auto target_of = HWY_DISPATCH_TABLE(CompiledTarget)[i];
      if (target_of != nullptr) s.slot[__builtin_ctzll(target_of())] = i;
    }
    return s;
  }();
  return slots;
}

}  // namespace

size_t DispatchIndex(int64_t target) {
  const size_t index =
      target > 0 && (target & (target - 1)) == 0
          ? SlotTargets().slot[__builtin_ctzll(static_cast<uint64_t>(target))]
          : 0;
  if (index == 0) {
    HWY_ABORT("lrelu: target %s is not compiled in", hwy::TargetName(target));
  }
  return index;
}

const std::vector<Target>& RunnableTargets() {
  static const std::vector<Target> targets = [] {
    std::vector<Target> list;
    // Lower bits are better targets on every architecture Highway knows.
    for (const int64_t bit : hwy::SupportedAndGeneratedTargets()) {
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
  return FilledTable(target, HWY_DISPATCH_TABLE(FillKernelTable));
}

}  // namespace lrelu::cpu
#endif  // HWY_ONCE
