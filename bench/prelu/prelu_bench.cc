// PReLU benchmark: per-channel alpha (NCHW [C,1,1], NHWC [C];
// 64 and 512 channels; 16-bit also 512 channels of 7x7) against scalar
// alpha on the same tensor (forward
// against LeakyReLU's forward, dx against LeakyReLU's gradient), dalpha
// against one read of x and dy, and oneDNN's PReLU primitive when built
// with it. In cache (64 Ki elements) and out of cache (16 Mi), float32;
// then float16 and bfloat16 (forward and dx against LeakyReLU's, dalpha
// against one read of their own x and dy), and float64's dalpha
// (--sixteen 0 and --float64 0 leave those out).
// Prints a Markdown table: each contender timed in rounds paired with its
// baseline (Compare), the median time and the median ratio with quartiles.
//   prelu_bench [--reps ROUNDS] [--threads T] [--max-elements N]
//               [--sixteen 0|1] [--float64 0|1]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_copy.h"
#include "bench_timing.h"
#include "lrelu/lrelu.h"

#ifdef LRELU_BENCH_HAVE_ONEDNN
#include <dnnl.hpp>
#endif

namespace {

// A paired measurement: rounds of one sample of the baseline then one of
// the contender (each a run of calls lasting ~2 ms), so both see the same
// machine state; the ratio is the median of the rounds' ratios, with its
// quartiles (the spread the shared machine adds).
struct Paired {
  double base_ms, ms, ratio, q1, q3;
};

Paired Compare(int rounds, const std::function<void()>& base,
               const std::function<void()>& run) {
  base();  // warm up (pages, caches, pool)
  run();
  const double once =
      std::max(lrelu_bench::Seconds(1, base), lrelu_bench::Seconds(1, run));
  const size_t calls = static_cast<size_t>(lrelu_bench::CallsPerSample(once));
  std::vector<double> b, r, ratio;
  for (int k = 0; k < rounds; ++k) {
    b.push_back(1e3 * lrelu_bench::Seconds(calls, base) / calls);
    r.push_back(1e3 * lrelu_bench::Seconds(calls, run) / calls);
    ratio.push_back(r.back() / b.back());
  }
  return {lrelu_bench::Median(b), lrelu_bench::Median(r),
          lrelu_bench::Median(ratio), lrelu_bench::Quantile(ratio, 0.25),
          lrelu_bench::Quantile(ratio, 0.75)};
}

lrelu_tensor_t View(void* data, const std::vector<int64_t>& shape,
                    lrelu_dtype_t dtype = LRELU_DTYPE_FLOAT32) {
  return {data, dtype, static_cast<int32_t>(shape.size()), shape.data(),
          nullptr};
}

// A float's bits in a 16-bit format, truncated (benchmark data only):
// float16 for normal magnitudes in its range (smaller ones become zero,
// larger ones its largest value), bfloat16 for any.
uint16_t Sixteen(float v, bool half) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  if (!half) return static_cast<uint16_t>(b >> 16);
  const auto sign = static_cast<uint16_t>(b >> 16 & 0x8000u);
  const int e = static_cast<int>(b >> 23 & 0xffu) - 127 + 15;
  if (e < 1) return sign;
  if (e > 30) return static_cast<uint16_t>(sign | 0x7bffu);
  return static_cast<uint16_t>(sign | e << 10 | (b >> 13 & 0x3ffu));
}

// x's shape and alpha's per channel: layout 0 is NCHW ([1, C, 1, HW],
// alpha [C, 1, 1]), 1 is NHWC ([1, 1, HW, C], alpha [C]).
struct Layout {
  std::vector<int64_t> x, alpha;
};
Layout LayoutOf(int layout, int64_t c, int64_t hw) {
  if (layout == 0) return {{1, c, 1, hw}, {c, 1, 1}};
  return {{1, 1, hw, c}, {c}};
}

// dalpha of n elements of x and dy (dtype, named dname; alpha's value
// `alpha_bits`) against lrelu_bench::ReadXAndDy, 64 and 512 channels, NCHW and
// NHWC.
void DalphaRows(int64_t n, int rounds, lrelu_dtype_t dtype, const char* dname,
                void* x, void* dy, uint64_t alpha_bits,
                const lrelu_options_t& o) {
  const size_t elem = lrelu_dtype_size(dtype);
  for (int64_t c : {int64_t{64}, int64_t{512}}) {
    std::vector<unsigned char> alpha(static_cast<size_t>(c) * elem),
        dalpha(alpha.size());
    for (size_t k = 0; k < alpha.size(); k += elem) {
      std::memcpy(alpha.data() + k, &alpha_bits, elem);  // little-endian
    }
    const int64_t hw = n / c;
    for (int layout = 0; layout < 2; ++layout) {
      const Layout lay = LayoutOf(layout, c, hw);
      const std::vector<int64_t>& shape = lay.x;
      const std::vector<int64_t>& ashape = lay.alpha;
      lrelu_tensor_t px = View(x, shape, dtype), pdy = View(dy, shape, dtype),
                     pa = View(alpha.data(), ashape, dtype),
                     pda = View(dalpha.data(), ashape, dtype);
      const Paired m = Compare(
          rounds,
          [&] {
            lrelu_bench::ReadXAndDy(x, dy, static_cast<size_t>(n) * elem);
          },
          [&] { lrelu_prelu_backward(&pdy, &px, &pa, nullptr, &pda, &o); });
      const char* name = layout == 0 ? "NCHW" : "NHWC";
      std::printf(
          "| %lld | %lld | %s | read x and dy once (%s) | %.3f | 1.00 | "
          "1.00-1.00 |\n",
          static_cast<long long>(n), static_cast<long long>(c), name, dname,
          m.base_ms);
      std::printf(
          "| %lld | %lld | %s | lrelu dalpha (exact, %s) | %.3f | "
          "%.2f | %.2f-%.2f |\n",
          static_cast<long long>(n), static_cast<long long>(c), name, dname,
          m.ms, m.ratio, m.q1, m.q3);
    }
  }
}

// The forward pass and dx of n 16-bit elements (dtype, named dname; alpha's
// value `alpha_bits`, per channel and as LeakyReLU's scalar) against
// LeakyReLU's on the same tensor, `channels` channels (n / C elements
// each), NCHW and NHWC.
void ForwardRows(int64_t n, int rounds, lrelu_dtype_t dtype, const char* dname,
                 void* x, void* dy, uint16_t alpha_bits, double alpha,
                 const std::vector<int64_t>& channels,
                 const lrelu_options_t& o) {
  std::vector<uint16_t> y(static_cast<size_t>(n)), dx(y.size());
  const std::vector<int64_t> flat = {n};
  const lrelu_tensor_t tx = View(x, flat, dtype),
                       ty = View(y.data(), flat, dtype),
                       tdy = View(dy, flat, dtype),
                       tdx = View(dx.data(), flat, dtype);
  for (int64_t c : channels) {
    std::vector<uint16_t> a(static_cast<size_t>(c), alpha_bits);
    const int64_t hw = n / c;
    for (int layout = 0; layout < 2; ++layout) {
      const Layout lay = LayoutOf(layout, c, hw);
      const std::vector<int64_t>& shape = lay.x;
      const std::vector<int64_t>& ashape = lay.alpha;
      const lrelu_tensor_t px = View(x, shape, dtype),
                           py = View(y.data(), shape, dtype),
                           pdy = View(dy, shape, dtype),
                           pdx = View(dx.data(), shape, dtype),
                           pa = View(a.data(), ashape, dtype);
      const Paired fwd = Compare(
          rounds, [&] { lrelu_leaky_relu(&tx, alpha, &ty, &o); },
          [&] { lrelu_prelu(&px, &pa, &py, &o); });
      const Paired bwd = Compare(
          rounds,
          [&] {
            lrelu_leaky_relu_backward(&tdy, &tx, alpha, LRELU_GRAD_FROM_X, &tdx,
                                      &o);
          },
          [&] { lrelu_prelu_backward(&pdy, &px, &pa, &pdx, nullptr, &o); });
      const char* name = layout == 0 ? "NCHW" : "NHWC";
      for (const auto& [what, m] :
           {std::pair<const char*, Paired>{"forward", fwd}, {"dx", bwd}}) {
        std::printf(
            "| %lld | %lld | %s | lrelu scalar alpha %s (%s) | %.3f | 1.00 | "
            "1.00-1.00 |\n",
            static_cast<long long>(n), static_cast<long long>(c), name, what,
            dname, m.base_ms);
        std::printf(
            "| %lld | %lld | %s | lrelu prelu %s (%s) | %.3f | %.2f | "
            "%.2f-%.2f |\n",
            static_cast<long long>(n), static_cast<long long>(c), name, what,
            dname, m.ms, m.ratio, m.q1, m.q3);
      }
    }
  }
}

// float16 and bfloat16 (normally distributed float32 values, truncated):
// the forward pass and dx against LeakyReLU's, and dalpha against one read
// of the same 16-bit x and dy.
void SixteenBit(int reps, int64_t max_elements, const lrelu_options_t& o) {
  std::mt19937 rng(2);
  std::normal_distribution<float> normal;
  for (int64_t n : {int64_t{1} << 16, int64_t{1} << 24}) {
    if (n > max_elements) continue;
    const int rounds = n > (1 << 20) ? std::max(3, reps / 4) : reps;
    std::vector<float> xf(static_cast<size_t>(n)), dyf(xf.size());
    for (auto& v : xf) v = normal(rng);
    for (auto& v : dyf) v = normal(rng);
    for (const bool half : {true, false}) {
      std::vector<uint16_t> x(xf.size()), dy(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        x[i] = Sixteen(xf[i], half);
        dy[i] = Sixteen(dyf[i], half);
      }
      const lrelu_dtype_t dtype =
          half ? LRELU_DTYPE_FLOAT16 : LRELU_DTYPE_BFLOAT16;
      const char* dname = half ? "float16" : "bfloat16";
      const uint16_t quarter = half ? 0x3400u : 0x3e80u;  // 0.25
      ForwardRows(n, rounds, dtype, dname, x.data(), dy.data(), quarter, 0.25,
                  {64, 512}, o);
      // 512 channels of 7x7 (a CNN's last stage): planes shorter than two
      // vectors, about one seam a vector.
      if (n <= (1 << 20)) {
        ForwardRows(512 * 49, rounds, dtype, dname, x.data(), dy.data(),
                    quarter, 0.25, {512}, o);
      }
      DalphaRows(n, rounds, dtype, dname, x.data(), dy.data(), quarter, o);
    }
  }
}

// dalpha for float64 x, alpha and dy (normally distributed, all 53 bits)
// against one read of the same x and dy.
void Float64Dalpha(int reps, int64_t max_elements, const lrelu_options_t& o) {
  std::mt19937 rng(3);
  std::normal_distribution<double> normal;
  for (int64_t n : {int64_t{1} << 16, int64_t{1} << 24}) {
    if (n > max_elements) continue;
    const int rounds = n > (1 << 20) ? std::max(3, reps / 4) : reps;
    std::vector<double> x(static_cast<size_t>(n)), dy(x.size());
    for (auto& v : x) v = normal(rng);
    for (auto& v : dy) v = normal(rng);
    DalphaRows(n, rounds, LRELU_DTYPE_FLOAT64, "float64", x.data(), dy.data(),
               0x3fd0000000000000u, o);  // 0.25
  }
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 21;
  size_t threads = 1;
  int64_t max_elements = int64_t{1} << 24;
  bool sixteen = true, float64 = true;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--max-elements") == 0) {
      max_elements = std::atoll(argv[i + 1]);
    }
    if (std::strcmp(argv[i], "--sixteen") == 0) {
      sixteen = std::atoi(argv[i + 1]) != 0;
    }
    if (std::strcmp(argv[i], "--float64") == 0) {
      float64 = std::atoi(argv[i + 1]) != 0;
    }
    if (std::strcmp(argv[i], "--threads") == 0) {
      threads = static_cast<size_t>(std::atoi(argv[i + 1]));
    }
  }
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.threads = threads;
  std::printf(
      "| elements | channels | layout | operation | ms | vs baseline | "
      "quartiles |\n");
  std::printf("|---:|---:|---|---|---:|---:|---|\n");
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  for (int64_t n : {int64_t{1} << 16, int64_t{1} << 24}) {
    if (n > max_elements) continue;
    std::vector<float> x(static_cast<size_t>(n)), y(x.size()), dy(x.size()),
        dx(x.size());
    for (auto& v : x) v = normal(rng);
    for (auto& v : dy) v = normal(rng);
    const int rounds = n > (1 << 20) ? std::max(3, reps / 4) : reps;
    for (int64_t c : {int64_t{64}, int64_t{512}}) {
      std::vector<float> alpha(static_cast<size_t>(c), 0.25f),
          dalpha(alpha.size());
      const int64_t hw = n / c;
      const std::vector<int64_t> flat = {n};
      const lrelu_tensor_t tx = View(x.data(), flat), ty = View(y.data(), flat);
      const auto scalar = [&] { lrelu_leaky_relu(&tx, 0.25, &ty, &o); };
      const lrelu_tensor_t tdy = View(dy.data(), flat),
                           tdx = View(dx.data(), flat);
      // dx's baseline: LeakyReLU's gradient (two inputs, one output).
      const auto scalar_dx = [&] {
        lrelu_leaky_relu_backward(&tdy, &tx, 0.25, LRELU_GRAD_FROM_X, &tdx, &o);
      };
      const auto read_once = [&] {
        // 16 independent sums: vectorizes without reassociation.
        float acc[16] = {};
        for (size_t i = 0; i + 16 <= x.size(); i += 16) {
          for (int k = 0; k < 16; ++k) acc[k] += x[i + k] + dy[i + k];
        }
        float s = 0;
        for (float a : acc) s += a;
        volatile float sink = s;
        (void)sink;
      };
      for (int layout = 0; layout < 2; ++layout) {
        const Layout lay = LayoutOf(layout, c, hw);
        const std::vector<int64_t>& shape = lay.x;
        const std::vector<int64_t>& ashape = lay.alpha;
        const lrelu_tensor_t px = View(x.data(), shape),
                             py = View(y.data(), shape),
                             pdy = View(dy.data(), shape),
                             pdx = View(dx.data(), shape),
                             pa = View(alpha.data(), ashape),
                             pda = View(dalpha.data(), ashape);
        const char* name = layout == 0 ? "NCHW" : "NHWC";
        const auto print = [&](const char* what, const Paired& m) {
          std::printf("| %lld | %lld | %s | %s | %.3f | %.2f | %.2f-%.2f |\n",
                      static_cast<long long>(n), static_cast<long long>(c),
                      name, what, m.ms, m.ratio, m.q1, m.q3);
        };
        const Paired fwd =
            Compare(rounds, scalar, [&] { lrelu_prelu(&px, &pa, &py, &o); });
        const Paired bwd_dx = Compare(rounds, scalar_dx, [&] {
          lrelu_prelu_backward(&pdy, &px, &pa, &pdx, nullptr, &o);
        });
        const Paired bwd_da = Compare(rounds, read_once, [&] {
          lrelu_prelu_backward(&pdy, &px, &pa, nullptr, &pda, &o);
        });
        print("lrelu scalar alpha", {fwd.base_ms, fwd.base_ms, 1, 1, 1});
        print("lrelu prelu forward", fwd);
        print("lrelu scalar alpha dx",
              {bwd_dx.base_ms, bwd_dx.base_ms, 1, 1, 1});
        print("lrelu prelu dx", bwd_dx);
        print("read x and dy once", {bwd_da.base_ms, bwd_da.base_ms, 1, 1, 1});
        print("lrelu dalpha (exact)", bwd_da);
#ifdef LRELU_BENCH_HAVE_ONEDNN
        try {
          using dnnl::memory;
          dnnl::engine eng(dnnl::engine::kind::cpu, 0);
          dnnl::stream st(eng);
          const memory::dims dims = {1, c, 1, hw};
          const auto tag =
              layout == 0 ? memory::format_tag::nchw : memory::format_tag::nhwc;
          const memory::desc md(dims, memory::data_type::f32, tag);
          const memory::desc wd({1, c, 1, 1}, memory::data_type::f32,
                                memory::format_tag::nchw);
          const dnnl::prelu_forward::desc d(dnnl::prop_kind::forward_training,
                                            md, wd);
          const dnnl::prelu_forward::primitive_desc pd(d, eng);
          dnnl::prelu_forward prim(pd);
          memory src(md, eng, x.data()), dst(md, eng, y.data()),
              w(wd, eng, alpha.data());
          print("oneDNN prelu forward", Compare(rounds, scalar, [&] {
                  prim.execute(st, {{DNNL_ARG_SRC, src},
                                    {DNNL_ARG_WEIGHTS, w},
                                    {DNNL_ARG_DST, dst}});
                  st.wait();
                }));
          const dnnl::prelu_backward::desc bd(md, wd, md, wd);
          const dnnl::prelu_backward::primitive_desc bpd(bd, eng, pd);
          dnnl::prelu_backward bprim(bpd);
          memory ddst(md, eng, dy.data()), dsrc(md, eng, dx.data()),
              dw(wd, eng, dalpha.data());
          print("oneDNN prelu backward (dx+dalpha)",
                Compare(rounds, read_once, [&] {
                  bprim.execute(st, {{DNNL_ARG_SRC, src},
                                     {DNNL_ARG_WEIGHTS, w},
                                     {DNNL_ARG_DIFF_DST, ddst},
                                     {DNNL_ARG_DIFF_SRC, dsrc},
                                     {DNNL_ARG_DIFF_WEIGHTS, dw}});
                  st.wait();
                }));
        } catch (const dnnl::error& e) {
          std::printf("| %lld | %lld | %s | oneDNN prelu: %s | - | - | - |\n",
                      static_cast<long long>(n), static_cast<long long>(c),
                      name, e.what());
        }
#endif
      }
    }
  }
  if (sixteen) SixteenBit(reps, max_elements, o);
  if (float64) Float64Dalpha(reps, max_elements, o);
  return 0;
}
