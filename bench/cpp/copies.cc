// The copy baselines every LeakyReLU is measured against (bench/common's
// memcpy, SIMD load/store loop and non-temporal-store loop) as variants, on 1
// thread and split over 2.
#include <pthreadpool.h>

#include "bench_copy.h"
#include "contender.h"

namespace lrelu_bench {
namespace {

// One pool of two threads for every 2-thread copy: the same kind of pool
// (pthreadpool) that lrelu and XNNPACK use, so its hand-off cost is typical.
pthreadpool_t CopyPool() {
  static pthreadpool_t pool = pthreadpool_create(2);
  return pool;
}

class Copy final : public Contender {
 public:
  Copy(const char* name, CopyFunction fn, int threads)
      : Contender("copy", name, threads, false, true), fn_(fn) {}
  bool Supports(lrelu_dtype_t) const override { return true; }
  bool Setup(const Buffers& p, std::string*) override {
    dst_ = static_cast<char*>(p.y);
    src_ = static_cast<const char*>(p.x);
    bytes_ = p.n * lrelu_dtype_size(p.dtype);
    if (threads() > 1) CopyPool();
    return true;
  }
  void Run(size_t) override {
    if (threads() == 1) {
      fn_(dst_, src_, bytes_);
      return;
    }
    pthreadpool_parallelize_1d(
        CopyPool(),
        [](void* self, size_t task) {
          auto c = static_cast<Copy*>(self);
          // Two halves split at a cache line, so the threads never share one.
          size_t begin = 0, end = 0;
          CopyTaskRange(task, 2, c->bytes_, &begin, &end);
          c->fn_(c->dst_ + begin, c->src_ + begin, end - begin);
        },
        this, 2, 0);
  }

 private:
  CopyFunction fn_;
  char* dst_ = nullptr;
  const char* src_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace

void AddCopyVariants(ContenderList* out) {
  const CopyFunction simd = SimdCopyFunction();
  const CopyFunction nt = NtCopyFunction();
  for (int threads : {1, 2}) {
    out->push_back(std::make_unique<Copy>("memcpy", &MemcpyCopy, threads));
    // Without AVX2 (or off x86) only memcpy is left.
    if (simd)
      out->push_back(std::make_unique<Copy>(SimdCopyName(), simd, threads));
    if (nt) out->push_back(std::make_unique<Copy>(NtCopyName(), nt, threads));
  }
}

}  // namespace lrelu_bench
