#include "api/executors.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>

namespace lrelu {
namespace {

struct Slot {
  // First member: a handle is the address of its slot.
  alignas(lrelu_executor) unsigned char storage[sizeof(lrelu_executor)];
  std::atomic<uint32_t> live{0};
  Slot* next_free = nullptr;
};

// Slab k holds kFirstSlab << k slots; 40 slabs are more than memory holds.
constexpr size_t kFirstSlab = 16;
constexpr int kMaxSlabs = 40;

// Published with release after the slab's slots exist; readers stop at the
// first null. Constant-initialised (no guard on the lock-free path).
std::atomic<Slot*> g_slabs[kMaxSlabs] = {};

struct Store {
  std::mutex mutex;  // creation and destruction only
  // First in, first out: a destroyed executor's slot is reused as late as
  // possible, so a stale handle is reported as destroyed for as long as
  // possible rather than naming the next plan at once.
  Slot* free_list = nullptr;
  Slot* free_tail = nullptr;
  int slab_count = 0;
};

Store& TheStore() {
  static auto* store = new Store();  // never destroyed: handles may outlive
  return *store;
}

// Adds a slab to the free list; under the mutex.
bool Grow(Store& s) {
  if (s.slab_count == kMaxSlabs) return false;
  const size_t count = kFirstSlab << s.slab_count;
  Slot* slab = new (std::nothrow) Slot[count];
  if (slab == nullptr) return false;
  for (size_t i = count; i-- > 0;) {
    slab[i].next_free = s.free_list;
    if (s.free_list == nullptr) s.free_tail = &slab[i];
    s.free_list = &slab[i];
  }
  g_slabs[s.slab_count].store(slab, std::memory_order_release);
  ++s.slab_count;
  return true;
}

// The slot whose executor e is, or nullptr. Compares addresses as integers:
// e may point anywhere.
Slot* FindSlot(const lrelu_executor* e) {
  const auto address = reinterpret_cast<uintptr_t>(e);
  for (int k = 0; k < kMaxSlabs; ++k) {
    Slot* slab = g_slabs[k].load(std::memory_order_acquire);
    if (slab == nullptr) break;
    const auto begin = reinterpret_cast<uintptr_t>(slab);
    const size_t bytes = (kFirstSlab << k) * sizeof(Slot);
    if (address >= begin && address - begin < bytes) {
      if ((address - begin) % sizeof(Slot) != 0) return nullptr;
      return slab + (address - begin) / sizeof(Slot);
    }
  }
  return nullptr;
}

}  // namespace

lrelu_executor* CreateExecutor(const Plan& plan) {
  Store& s = TheStore();
  Slot* slot;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.free_list == nullptr && !Grow(s)) return nullptr;
    slot = s.free_list;
    s.free_list = slot->next_free;
    if (s.free_list == nullptr) s.free_tail = nullptr;
  }
  auto* e = new (slot->storage) lrelu_executor{plan};
  slot->live.store(1, std::memory_order_release);
  return e;
}

bool IsLiveExecutor(const lrelu_executor* e) {
  const Slot* slot = FindSlot(e);
  return slot != nullptr && slot->live.load(std::memory_order_acquire) != 0;
}

bool DestroyExecutor(lrelu_executor* e) {
  Slot* slot = FindSlot(e);
  if (slot == nullptr) return false;
  Store& s = TheStore();
  std::lock_guard<std::mutex> lock(s.mutex);
  // Under the mutex, so two threads destroying one handle free it once.
  if (slot->live.exchange(0, std::memory_order_acq_rel) == 0) return false;
  e->~lrelu_executor();
  slot->next_free = nullptr;
  if (s.free_tail != nullptr) {
    s.free_tail->next_free = slot;
  } else {
    s.free_list = slot;
  }
  s.free_tail = slot;
  return true;
}

}  // namespace lrelu
