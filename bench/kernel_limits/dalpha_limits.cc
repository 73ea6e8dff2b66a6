// What this CPU can do per term for PReLU's dalpha (docs/prelu.md, "Not
// done"): the inner loop of each dtype's bounded sum alone (the terms
// x * dy for x < 0, their sum and the magnitudes its bound needs; no runs,
// joins or decisions), next to a vector read of the same x and dy, the
// benchmark's baseline read (bench_copy.h's ReadXAndDy, 64-bit words)
// and the library's whole dalpha call on NCHW planes of 64 and 512
// channels, on the same buffers in the same run. Highway's best target on
// this CPU; times are the fastest of the samples, in ns per term and as
// ratios to the baseline read.
//
//   lrelu_dalpha_limits [elements=65536] [samples=101]
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernel_limits/dalpha_limits.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <hwy/highway.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#ifndef LRELU_BENCH_DALPHA_LIMITS_ONCE
#define LRELU_BENCH_DALPHA_LIMITS_ONCE
namespace lrelu_bench {
// The loops' inputs: x and dy of each dtype, n elements each.
struct Inputs {
  const float* x32;
  const float* dy32;
  const uint16_t* x16;  // float16
  const uint16_t* dy16;
  const uint16_t* xb;  // bfloat16
  const uint16_t* dyb;
  const double* x64;
  const double* dy64;
  size_t n;
};
// A loop's results, kept so that nothing is optimized away.
struct Sink {
  double value = 0;
};
enum Loop { kRead32, kRead16, kRead64, kF32, kF16, kBF16, kF64, kLoops };
}  // namespace lrelu_bench
#endif

HWY_BEFORE_NAMESPACE();
namespace lrelu_bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// XOR of every vector of x and dy (`bytes` each): the read alone.
void ReadVectors(const void* xp, const void* dyp, size_t bytes, Sink* sink) {
  const hn::ScalableTag<uint64_t> d;
  const size_t lanes = hn::Lanes(d);
  const auto* x = static_cast<const uint64_t*>(xp);
  const auto* dy = static_cast<const uint64_t*>(dyp);
  auto a = hn::Zero(d), b = a, c = a, e = a;
  const size_t words = bytes / 8;
  for (size_t i = 0; i + 2 * lanes <= words; i += 2 * lanes) {
    a = hn::Xor(a, hn::LoadU(d, x + i));
    b = hn::Xor(b, hn::LoadU(d, dy + i));
    c = hn::Xor(c, hn::LoadU(d, x + i + lanes));
    e = hn::Xor(e, hn::LoadU(d, dy + i + lanes));
  }
  sink->value +=
      static_cast<double>(hn::GetLane(hn::Xor(hn::Xor(a, b), hn::Xor(c, e))));
}

#if HWY_TARGET != HWY_SCALAR
// float32 (the rows' and AVX-512 runs' form): x and dy widened, the terms
// multiplied and added in float64, the magnitudes in float32; two sets of
// accumulators.
void Float32Terms(const float* x, const float* dy, size_t n, Sink* sink) {
  const hn::ScalableTag<double> d;
  const hn::Repartition<float, decltype(d)> df;
  const hn::Half<decltype(df)> dh;
  const size_t lanes = hn::Lanes(df);
  auto lo0 = hn::Zero(d), hi0 = lo0, lo1 = lo0, hi1 = lo0;
  auto m0 = hn::Zero(df), m1 = m0;
  auto step = [&](size_t i, hn::Vec<decltype(d)>* lo, hn::Vec<decltype(d)>* hi,
                  hn::Vec<decltype(df)>* m) {
    const auto xn = hn::Min(hn::LoadU(df, x + i), hn::Zero(df));
    const auto dyv = hn::LoadU(df, dy + i);
    *lo = hn::MulAdd(hn::PromoteTo(d, hn::LowerHalf(dh, xn)),
                     hn::PromoteTo(d, hn::LowerHalf(dh, dyv)), *lo);
    *hi = hn::MulAdd(hn::PromoteTo(d, hn::UpperHalf(dh, xn)),
                     hn::PromoteTo(d, hn::UpperHalf(dh, dyv)), *hi);
    *m = hn::NegMulAdd(xn, hn::Abs(dyv), *m);
  };
  for (size_t i = 0; i + 2 * lanes <= n; i += 2 * lanes) {
    step(i, &lo0, &hi0, &m0);
    step(i + lanes, &lo1, &hi1, &m1);
  }
  sink->value += hn::GetLane(hn::Add(hn::Add(lo0, hi0), hn::Add(lo1, hi1))) +
                 static_cast<double>(hn::GetLane(hn::Add(m0, m1)));
}

// The binade of r (its exponent bits): what the 16-bit formats' float32
// sums add after each addition for their running bound.
template <class DF>
HWY_INLINE hn::Vec<DF> Binade(DF df, hn::Vec<DF> r) {
  const hn::RebindToUnsigned<DF> du;
  return hn::BitCast(df, hn::And(hn::BitCast(du, r), hn::Set(du, 0x7f800000u)));
}

// float16 (the runs' float32 sums): x and dy widened by F16C, the exact
// product added to a float32 sum, its binade to E; four accumulators.
void Float16Terms(const uint16_t* x, const uint16_t* dy, size_t n, Sink* sink) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const size_t lanes = hn::Lanes(df);
  const auto* xh = reinterpret_cast<const hwy::float16_t*>(x);
  const auto* dyh = reinterpret_cast<const hwy::float16_t*>(dy);
  hn::Vec<decltype(df)> s[4], e[4];
  for (int k = 0; k < 4; ++k) s[k] = e[k] = hn::Zero(df);
  for (size_t i = 0; i + 4 * lanes <= n; i += 4 * lanes) {
    for (size_t k = 0; k < 4; ++k) {
      const auto xv = hn::PromoteTo(df, hn::LoadU(dh, xh + i + k * lanes));
      const auto dyv = hn::PromoteTo(df, hn::LoadU(dh, dyh + i + k * lanes));
      s[k] = hn::MulAdd(hn::Min(xv, hn::Zero(df)), dyv, s[k]);
      e[k] = hn::Add(e[k], Binade(df, s[k]));
    }
  }
  const auto t = hn::Add(hn::Add(s[0], s[1]), hn::Add(s[2], s[3]));
  const auto u = hn::Add(hn::Add(e[0], e[1]), hn::Add(e[2], e[3]));
  sink->value += static_cast<double>(hn::GetLane(hn::Add(t, u)));
}

// bfloat16 (the runs' float32 sums): each 32-bit word's two values shifted
// or masked into float32 lanes, their exact products added to a float32
// sum, two binades to E; two accumulators.
void BFloat16Terms(const uint16_t* x, const uint16_t* dy, size_t n,
                   Sink* sink) {
  const hn::ScalableTag<uint32_t> du;
  const hn::Repartition<float, decltype(du)> df;
  const size_t words = hn::Lanes(du);
  const auto upper = hn::Set(du, 0xffff0000u);
  hn::Vec<decltype(df)> s[2], e[2];
  for (int k = 0; k < 2; ++k) s[k] = e[k] = hn::Zero(df);
  for (size_t i = 0; i + 4 * words <= n; i += 4 * words) {
    for (size_t k = 0; k < 2; ++k) {
      const auto xw = hn::LoadU(
          du, reinterpret_cast<const uint32_t*>(x + i + 2 * k * words));
      const auto dyw = hn::LoadU(
          du, reinterpret_cast<const uint32_t*>(dy + i + 2 * k * words));
      const auto low =
          hn::Mul(hn::Min(hn::BitCast(df, hn::ShiftLeft<16>(xw)), hn::Zero(df)),
                  hn::BitCast(df, hn::ShiftLeft<16>(dyw)));
      const auto high =
          hn::Mul(hn::Min(hn::BitCast(df, hn::And(xw, upper)), hn::Zero(df)),
                  hn::BitCast(df, hn::And(dyw, upper)));
      const auto s1 = hn::Add(s[k], low);
      s[k] = hn::Add(s1, high);
      e[k] = hn::Add(hn::Add(e[k], Binade(df, s1)), Binade(df, s[k]));
    }
  }
  sink->value += static_cast<double>(
      hn::GetLane(hn::Add(hn::Add(s[0], s[1]), hn::Add(e[0], e[1]))));
}

// float64 (the pair kernels' Dot2 step): TwoProduct, TwoSum, the
// compensation and the magnitude; two chains.
void Float64Terms(const double* x, const double* dy, size_t n, Sink* sink) {
  const hn::ScalableTag<double> d;
  const size_t lanes = hn::Lanes(d);
  hn::Vec<decltype(d)> s[2], c[2], a[2];
  for (int k = 0; k < 2; ++k) s[k] = c[k] = a[k] = hn::Zero(d);
  for (size_t i = 0; i + 2 * lanes <= n; i += 2 * lanes) {
    for (size_t k = 0; k < 2; ++k) {
      const auto xn = hn::Min(hn::LoadU(d, x + i + k * lanes), hn::Zero(d));
      const auto dyv = hn::LoadU(d, dy + i + k * lanes);
      const auto p = hn::Mul(xn, dyv);
      const auto t = hn::Add(s[k], p);
      const auto z = hn::Sub(t, s[k]);
      const auto err =
          hn::Add(hn::Add(hn::Sub(s[k], hn::Sub(t, z)), hn::Sub(p, z)),
                  hn::MulSub(xn, dyv, p));
      s[k] = t;
      c[k] = hn::Add(c[k], err);
      a[k] = hn::Add(a[k], hn::Abs(p));
    }
  }
  sink->value += hn::GetLane(hn::Add(
      hn::Add(hn::Add(s[0], s[1]), hn::Add(c[0], c[1])), hn::Add(a[0], a[1])));
}
#endif  // HWY_TARGET != HWY_SCALAR

// Runs `loop` once over `in` (kLoops: the target's name into *name only).
// Returns false where this target has no such loop.
bool RunLoop(int loop, const Inputs& in, Sink* sink, const char** name) {
  *name = hwy::TargetName(HWY_TARGET);
  const size_t n = in.n;
  switch (loop) {
    case kRead32:
      ReadVectors(in.x32, in.dy32, n * 4, sink);
      return true;
    case kRead16:
      ReadVectors(in.x16, in.dy16, n * 2, sink);
      return true;
    case kRead64:
      ReadVectors(in.x64, in.dy64, n * 8, sink);
      return true;
#if HWY_TARGET != HWY_SCALAR
    case kF32:
      Float32Terms(in.x32, in.dy32, n, sink);
      return true;
    case kF16:
      Float16Terms(in.x16, in.dy16, n, sink);
      return true;
    case kBF16:
      BFloat16Terms(in.xb, in.dyb, n, sink);
      return true;
    case kF64:
      Float64Terms(in.x64, in.dy64, n, sink);
      return true;
#endif
    default:
      return false;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace lrelu_bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "bench_copy.h"
#include "lrelu/lrelu.h"

namespace lrelu_bench {
HWY_EXPORT(RunLoop);

namespace {

// The fastest of `samples` runs of f, in ns.
template <class F>
double Fastest(int samples, F&& f) {
  double best = 1e300;
  for (int s = 0; s < samples; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best,
                    std::chrono::duration<double, std::nano>(t1 - t0).count());
  }
  return best;
}

uint16_t HalfOf(float v) {  // round to nearest even; normal range only
  uint32_t b;
  std::memcpy(&b, &v, 4);
  const uint32_t sign = b >> 16 & 0x8000u;
  const int e = static_cast<int>(b >> 23 & 0xff) - 127 + 15;
  const uint32_t m = b & 0x7fffffu;
  if (e <= 0) return static_cast<uint16_t>(sign);
  uint32_t h = static_cast<uint32_t>(e) << 10 | m >> 13;
  const uint32_t rest = m & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

uint16_t BFloat16Of(float v) {  // round to nearest even; finite values
  uint32_t b;
  std::memcpy(&b, &v, 4);
  b += 0x7fffu + (b >> 16 & 1u);
  return static_cast<uint16_t>(b >> 16);
}

// The library's dalpha alone (no dx) for NCHW [1, c, 1, n / c] of `dtype`.
double LibraryDalpha(lrelu_dtype_t dtype, void* x, void* dy, size_t n,
                     int64_t c, int samples) {
  const std::vector<int64_t> shape = {1, c, 1, static_cast<int64_t>(n) / c};
  const std::vector<int64_t> ashape = {c, 1, 1};
  const size_t e = lrelu_dtype_size(dtype);
  std::vector<unsigned char> alpha(static_cast<size_t>(c) * e),
      dalpha(alpha.size());
  const lrelu_tensor_t tx{x, dtype, 4, shape.data(), nullptr};
  const lrelu_tensor_t tdy{dy, dtype, 4, shape.data(), nullptr};
  const lrelu_tensor_t ta{alpha.data(), dtype, 3, ashape.data(), nullptr};
  const lrelu_tensor_t tda{dalpha.data(), dtype, 3, ashape.data(), nullptr};
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.threads = 1;
  return Fastest(samples, [&] {
    if (lrelu_prelu_backward(&tdy, &tx, &ta, nullptr, &tda, &o) !=
        LRELU_STATUS_OK) {
      std::fprintf(stderr, "lrelu_prelu_backward: %s\n", lrelu_last_error());
      std::exit(1);
    }
  });
}

}  // namespace
}  // namespace lrelu_bench

int main(int argc, char** argv) {
  using namespace lrelu_bench;  // NOLINT: this tool's own names
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 65536;
  const int samples =
      argc > 2 ? static_cast<int>(std::strtol(argv[2], nullptr, 10)) : 101;
  if (n < 512 || n % 512 != 0 || samples < 1) {
    std::fprintf(stderr,
                 "usage: lrelu_dalpha_limits [elements, a multiple of 512] "
                 "[samples]\n");
    return 2;
  }
  // Normally distributed x and dy, stored in each dtype.
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::vector<float> x32(n), dy32(n);
  std::vector<uint16_t> x16(n), dy16(n), xb(n), dyb(n);
  std::vector<double> x64(n), dy64(n);
  for (size_t i = 0; i < n; ++i) {
    x32[i] = normal(rng);
    dy32[i] = normal(rng);
    x16[i] = HalfOf(x32[i]);
    dy16[i] = HalfOf(dy32[i]);
    xb[i] = BFloat16Of(x32[i]);
    dyb[i] = BFloat16Of(dy32[i]);
    x64[i] = static_cast<double>(x32[i]) + 1e-9 * normal(rng);
    dy64[i] = static_cast<double>(dy32[i]);
  }
  const Inputs in{x32.data(),  dy32.data(), x16.data(),
                  dy16.data(), xb.data(),   dyb.data(),
                  x64.data(),  dy64.data(), n};
  Sink sink;
  const char* target = "";
  HWY_DYNAMIC_DISPATCH(RunLoop)(kLoops, in, &sink, &target);
  std::printf(
      "dalpha's inner loops alone against reading x and dy, %zu elements "
      "(%zu KiB of float32 x and dy), Highway target %s, fastest of %d\n\n",
      n, n * 8 / 1024, target, samples);
  std::printf(
      "| dtype | baseline read (ReadXAndDy) ns | vector read ns | terms loop "
      "ns | loop / baseline | loop / vector read | lrelu dalpha 64 ch / "
      "baseline | 512 ch / baseline |\n|---|---:|---:|---:|---:|---:|---:|"
      "---:|\n");
  struct Row {
    const char* name;
    lrelu_dtype_t dtype;
    int read, loop;
    void *x, *dy;
    size_t elem;
  };
  const Row rows[] = {
      {"float32", LRELU_DTYPE_FLOAT32, kRead32, kF32, x32.data(), dy32.data(),
       4},
      {"float16", LRELU_DTYPE_FLOAT16, kRead16, kF16, x16.data(), dy16.data(),
       2},
      {"bfloat16", LRELU_DTYPE_BFLOAT16, kRead16, kBF16, xb.data(), dyb.data(),
       2},
      {"float64", LRELU_DTYPE_FLOAT64, kRead64, kF64, x64.data(), dy64.data(),
       8},
  };
  for (const Row& r : rows) {
    const double base =
        Fastest(samples, [&] { ReadXAndDy(r.x, r.dy, n * r.elem); });
    const double read = Fastest(samples, [&] {
      HWY_DYNAMIC_DISPATCH(RunLoop)(r.read, in, &sink, &target);
    });
    bool has = true;
    const double loop = Fastest(samples, [&] {
      has = HWY_DYNAMIC_DISPATCH(RunLoop)(r.loop, in, &sink, &target);
    });
    const double lib64 = LibraryDalpha(r.dtype, r.x, r.dy, n, 64, samples);
    const double lib512 = LibraryDalpha(r.dtype, r.x, r.dy, n, 512, samples);
    const auto per = [&](double ns) { return ns / static_cast<double>(n); };
    if (has) {
      std::printf("| %s | %.4f | %.4f | %.4f | %.2f | %.2f | %.2f | %.2f |\n",
                  r.name, per(base), per(read), per(loop), loop / base,
                  loop / read, lib64 / base, lib512 / base);
    } else {
      std::printf("| %s | %.4f | %.4f | - | - | - | %.2f | %.2f |\n", r.name,
                  per(base), per(read), lib64 / base, lib512 / base);
    }
  }
  std::printf("\n(ns columns: per element; sink %g)\n", sink.value);
  return 0;
}
#endif  // HWY_ONCE
