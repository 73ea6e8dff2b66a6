// The loop anyone would write first, compiled with -O3 -march=native
// -fno-trapping-math (see CMakeLists.txt): what the compiler's
// auto-vectorizer gives for free. Without -fno-trapping-math GCC 12 keeps
// `x < 0 ? alpha * x : x` scalar on AVX2 (it may not speculate a multiply
// that could raise an FP exception; AVX-512 masks avoid that), which would
// make a peer that says nothing. The 2-thread form adds `omp parallel for`.
#include <cstdint>
#include <cstring>

#include "contender.h"

namespace lrelu_bench {
namespace {

// The OpenMP `if` keeps 1-thread calls off the runtime's threads.
template <typename T>
void Loop(const T* x, T* y, size_t n, T alpha, int threads) {
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (size_t i = 0; i < n; ++i) y[i] = x[i] < 0 ? alpha * x[i] : x[i];
}

// float16 through the compiler's _Float16: product in float32, rounded once.
void LoopF16(const _Float16* x, _Float16* y, size_t n, float alpha,
             int threads) {
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (size_t i = 0; i < n; ++i) {
    const _Float16 v = x[i];
    y[i] = v < 0 ? static_cast<_Float16>(alpha * static_cast<float>(v)) : v;
  }
}

// bfloat16 as bits: widen to float32, multiply, round to nearest even.
void LoopBf16(const uint16_t* x, uint16_t* y, size_t n, float alpha,
              int threads) {
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (size_t i = 0; i < n; ++i) {
    const uint32_t wide = static_cast<uint32_t>(x[i]) << 16;
    float v;
    std::memcpy(&v, &wide, 4);
    const float p = alpha * v;
    uint32_t u;
    std::memcpy(&u, &p, 4);
    const uint16_t rounded =
        static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    y[i] = v < 0 ? rounded : x[i];
  }
}

class Plain final : public Contender {
 public:
  explicit Plain(int threads)
      : Contender("plain loop",
                  threads > 1 ? "-O3 -march=native -fno-trapping-math, omp"
                              : "-O3 -march=native -fno-trapping-math",
                  threads, false) {}
  bool Supports(lrelu_dtype_t) const override { return true; }
  bool Setup(const Buffers& p, std::string*) override {
    p_ = p;
    return true;
  }
  void Run(size_t) override {
    const int t = threads();
    switch (p_.dtype) {
      case LRELU_DTYPE_FLOAT32:
        Loop(static_cast<const float*>(p_.x), static_cast<float*>(p_.y), p_.n,
             static_cast<float>(kAlpha), t);
        break;
      case LRELU_DTYPE_FLOAT64:
        Loop(static_cast<const double*>(p_.x), static_cast<double*>(p_.y), p_.n,
             kAlpha, t);
        break;
      case LRELU_DTYPE_FLOAT16:
        LoopF16(static_cast<const _Float16*>(p_.x),
                static_cast<_Float16*>(p_.y), p_.n, static_cast<float>(kAlpha),
                t);
        break;
      case LRELU_DTYPE_BFLOAT16:
        LoopBf16(static_cast<const uint16_t*>(p_.x),
                 static_cast<uint16_t*>(p_.y), p_.n, static_cast<float>(kAlpha),
                 t);
        break;
    }
  }

 private:
  Buffers p_{};
};

}  // namespace

void AddPlainVariants(ContenderList* out) {
  out->push_back(std::make_unique<Plain>(1));
#ifdef LRELU_BENCH_HAVE_OPENMP
  out->push_back(std::make_unique<Plain>(2));
#endif
}

}  // namespace lrelu_bench
