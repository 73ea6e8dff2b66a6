// Contract v1 whatever the caller's floating-point environment: alpha is
// rounded to float32 once, to nearest-even, without flushing, and no product
// is flushed. Every rounding mode x FTZ/DAZ x variant x pool (lrelu's own,
// a caller's whose workers run in the caller's environment) x backend (CPU;
// OpenCL where a device is present), forward and gradient, every dtype,
// against the oracle evaluated in the default environment. Before the fix
// the CPU plan rounded alpha in the caller's environment: alpha 1e-40 under
// FTZ became 0 and 0.1 under round-toward-zero became 0x3dcccccc.
#include <gtest/gtest.h>
#include <xmmintrin.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/float32.h"
#include "lrelu/lrelu.h"
#include "reference/reference.h"
#include "support/test_data.h"

namespace lrelu {
namespace {

using testing::AllDTypes;
using testing::ElementMatches;
using testing::Hex;
using testing::LoadBits;
using testing::RandomBits;
using testing::StoreBits;

constexpr unsigned kFtz = 0x8000;  // MXCSR flush-to-zero
constexpr unsigned kDaz = 0x0040;  // MXCSR denormals-are-zero

struct Env {
  int rounding;    // FE_TONEAREST, ...
  unsigned flush;  // kFtz | kDaz bits
  std::string Name() const {
    const char* r = rounding == FE_TONEAREST  ? "nearest"
                    : rounding == FE_DOWNWARD ? "down"
                    : rounding == FE_UPWARD   ? "up"
                                              : "toward-zero";
    return std::string(r) + ((flush & kFtz) ? "+FTZ" : "") +
           ((flush & kDaz) ? "+DAZ" : "");
  }
};

std::vector<Env> AllEnvs() {
  std::vector<Env> envs;
  for (int r : {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO}) {
    for (unsigned f : {0u, kFtz, kDaz, kFtz | kDaz}) envs.push_back({r, f});
  }
  return envs;
}

// Sets `env` on the calling thread until destroyed (x87 and SSE).
class ScopedEnv {
 public:
  explicit ScopedEnv(const Env& env) {
    std::fegetenv(&saved_);
    std::fesetround(env.rounding);
    _mm_setcsr(_mm_getcsr() | env.flush);
  }
  ~ScopedEnv() { std::fesetenv(&saved_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::fenv_t saved_;
};

// A caller's pool (as XNNPACK's with denormals disabled): each task runs on
// its own thread with the MXCSR of the thread that called parallel_for.
void CallerParallelFor(void*, lrelu_task_fn task, void* context, size_t count) {
  const unsigned csr = _mm_getcsr();
  std::vector<std::thread> threads;
  for (size_t i = 0; i < count; ++i) {
    threads.emplace_back([=] {
      _mm_setcsr(csr);
      task(context, i);
    });
  }
  for (auto& t : threads) t.join();
}
const lrelu_thread_pool_t kCallerPool = {&CallerParallelFor, nullptr, 4};

TEST(RoundToFloat32, MatchesTheDefaultEnvironmentConversion) {
  std::mt19937_64 rng(11);
  std::vector<double> values = {0.1,
                                1e-40,
                                -1e-40,
                                1e-45,
                                7e-46,
                                1.4e-45,
                                0x1p-149,
                                0x1p-150,
                                0x1.8p-150,
                                0x1.000001p-150,
                                0x1.fffffep-127,
                                0x1.ffffffp-127,
                                3.4028235e38,
                                3.4028236e38,
                                0x1.ffffffp127,
                                1e300,
                                -1e-320,
                                0.0,
                                -0.0,
                                INFINITY,
                                -INFINITY,
                                NAN,
                                -NAN};
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = rng();
    if (i % 2 == 0) {  // around the float32 range, where it matters
      const uint64_t exponent = 1023 - 160 + rng() % 330;
      bits = (bits & 0x800fffffffffffffu) | (exponent << 52);
    }
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    values.push_back(d);
  }
  for (double d : values) {
    const float expected = static_cast<float>(d);  // default environment
    const float got = RoundToFloat32(d);
    uint32_t e, g;
    std::memcpy(&e, &expected, 4);
    std::memcpy(&g, &got, 4);
    ASSERT_EQ(e, g) << std::hexfloat << d;
  }
}

TEST(RoundToFloat32, IgnoresTheCallersEnvironment) {
  for (const Env& env : AllEnvs()) {
    float a, b;
    {
      ScopedEnv scoped(env);
      a = RoundToFloat32(0.1);
      b = RoundToFloat32(1e-40);
    }
    uint32_t abits, bbits;
    std::memcpy(&abits, &a, 4);
    std::memcpy(&bbits, &b, 4);
    EXPECT_EQ(abits, 0x3dcccccdu) << env.Name();
    EXPECT_EQ(bbits, 0x000116c2u) << env.Name();  // 1e-40, a subnormal
  }
}

struct Layout {
  const char* variant;
  int64_t stride;  // 1: dense; 2: every other element (a strided view)
};

// x and dy of one dtype and layout, and the oracle's forward and gradient
// (run in the default environment) for each alpha of a list.
struct Data {
  Data(lrelu_dtype_t type, int64_t step, size_t count,
       const std::vector<double>& alphas)
      : dtype(type), size(lrelu_dtype_size(type)), stride(step), n(count) {
    std::mt19937_64 rng(static_cast<uint64_t>(dtype) * 131 + n);
    const size_t span = n * static_cast<size_t>(stride);
    x = RandomBits(dtype, span, rng);
    dy = RandomBits(dtype, span, rng);
    // The reported case: x = -1, dy = -inf (alpha * dy must stay -inf).
    const uint64_t minus_one[] = {0, 0xbf800000u, 0xbc00u, 0xbf80u,
                                  0xbff0000000000000u};
    const uint64_t minus_inf[] = {0, 0xff800000u, 0xfc00u, 0xff80u,
                                  0xfff0000000000000u};
    StoreBits(dtype, x.data(), 0, minus_one[dtype]);
    StoreBits(dtype, dy.data(), 0, minus_inf[dtype]);
    gx = Gather(x);
    gdy = Gather(dy);
    for (double alpha : alphas) {
      std::vector<unsigned char> f(n * size), g(n * size);
      reference::Apply(dtype, gx.data(), gx.data(), f.data(), n, alpha);
      reference::Apply(dtype, gdy.data(), gx.data(), g.data(), n, alpha);
      forward.push_back(std::move(f));
      gradient.push_back(std::move(g));
    }
  }
  // The elements of a view, contiguous.
  std::vector<unsigned char> Gather(const std::vector<unsigned char>& v) const {
    std::vector<unsigned char> out(n * size);
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(&out[i * size], &v[i * static_cast<size_t>(stride) * size],
                  size);
    }
    return out;
  }
  std::string Compare(const std::vector<unsigned char>& s,
                      const std::vector<unsigned char>& expected,
                      const std::vector<unsigned char>& actual) const {
    for (size_t i = 0; i < n; ++i) {
      const uint64_t e = LoadBits(dtype, expected.data(), i);
      const uint64_t a = LoadBits(dtype, actual.data(), i);
      if (!ElementMatches(dtype, LoadBits(dtype, s.data(), i), e, a)) {
        return "element " + std::to_string(i) + ": expected " + Hex(e, size) +
               " got " + Hex(a, size);
      }
    }
    return "";
  }
  lrelu_dtype_t dtype;
  size_t size;
  int64_t stride;
  size_t n;
  std::vector<unsigned char> x, dy, gx, gdy;
  std::vector<std::vector<unsigned char>> forward, gradient;  // per alpha
};

// One forward and one gradient call under `env`, checked against the
// oracle. Returns "" or the first problem.
std::string CheckCalls(const Data& d, lrelu_backend_t backend,
                       const char* variant, const lrelu_thread_pool_t* pool,
                       size_t alpha_index, double alpha, const Env& env) {
  const size_t span = d.n * static_cast<size_t>(d.stride);
  std::vector<unsigned char> y(span * d.size), dx(span * d.size);
  const int64_t shape[1] = {static_cast<int64_t>(d.n)};
  const int64_t strides[1] = {d.stride};
  const int64_t* st = d.stride == 1 ? nullptr : strides;
  auto view = [&](const std::vector<unsigned char>& v) {
    return lrelu_tensor_t{const_cast<unsigned char*>(v.data()), d.dtype, 1,
                          shape, st};
  };
  const lrelu_tensor_t tx = view(d.x), ty = view(y), tdy = view(d.dy),
                       tdx = view(dx);
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.backend = backend;
  options.variant = variant;
  options.thread_pool = pool;
  options.threads = 4;
  lrelu_status_t forward, gradient;
  {
    ScopedEnv scoped(env);
    forward = lrelu_leaky_relu(&tx, alpha, &ty, &options);
    gradient = lrelu_leaky_relu_backward(&tdy, &tx, alpha, LRELU_GRAD_FROM_X,
                                         &tdx, &options);
  }
  if (forward != LRELU_STATUS_OK || gradient != LRELU_STATUS_OK) {
    return std::string("call failed: ") + lrelu_last_error();
  }
  std::string diff = d.Compare(d.gx, d.forward[alpha_index], d.Gather(y));
  if (!diff.empty()) return "forward: " + diff;
  diff = d.Compare(d.gx, d.gradient[alpha_index], d.Gather(dx));
  if (!diff.empty()) return "gradient: " + diff;
  return "";
}

// alpha 1e-40 (a float32 subnormal), 0.1 (0x3dcccccd only to nearest), a
// value that rounds to the smallest subnormal, an ordinary negative one and
// one that overflows to inf.
const std::vector<double> kAlphas = {1e-40, 0.1, 1e-45, -0.3, 3.4028236e38};

// Every mode x variant x dtype x alpha, on the calling thread (one task).
TEST(FloatEnv, CpuEveryModeVariantAndDType) {
  // nullptr: the default options' one-shot short way (Backend::
  // run_unplanned), which plans nothing and still runs in the IEEE default.
  const Layout layouts[] = {
      {"contiguous", 1}, {nullptr, 1}, {"strided", 2}, {"reference", 2}};
  for (lrelu_dtype_t dtype : AllDTypes()) {
    for (int64_t stride : {1, 2}) {
      const Data d(dtype, stride, 2000, kAlphas);
      for (const Layout& layout : layouts) {
        if (layout.stride != stride) continue;
        for (const Env& env : AllEnvs()) {
          for (size_t a = 0; a < kAlphas.size(); ++a) {
            ASSERT_EQ(CheckCalls(d, LRELU_BACKEND_CPU, layout.variant, nullptr,
                                 a, kAlphas[a], env),
                      "")
                << env.Name() << ", "
                << (layout.variant ? layout.variant : "default options") << ", "
                << lrelu_dtype_name(dtype) << ", alpha " << kAlphas[a];
          }
        }
      }
    }
  }
}

// Tasks on lrelu's own pool and on a caller's pool whose workers keep the
// caller's environment: calls large enough for several tasks.
TEST(FloatEnv, CpuEveryModeOnBothPools) {
  const Layout layouts[] = {{"contiguous", 1}, {"strided", 2}};
  const lrelu_thread_pool_t* const pools[] = {nullptr, &kCallerPool};
  const std::vector<double> alphas = {1e-40, 0.1};
  for (lrelu_dtype_t dtype : {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16}) {
    for (const Layout& layout : layouts) {
      const Data d(dtype, layout.stride, size_t{2} << 16, alphas);
      for (const Env& env : AllEnvs()) {
        for (const lrelu_thread_pool_t* pool : pools) {
          for (size_t a = 0; a < alphas.size(); ++a) {
            ASSERT_EQ(CheckCalls(d, LRELU_BACKEND_CPU, layout.variant, pool, a,
                                 alphas[a], env),
                      "")
                << env.Name() << ", " << layout.variant << ", "
                << (pool ? "caller's pool" : "own pool") << ", "
                << lrelu_dtype_name(dtype) << ", alpha " << alphas[a];
          }
        }
      }
    }
  }
}

// PReLU's forward and gradient (dx and the exact dalpha) give the same bits
// under every mode as in the default environment, on 1 and 3 threads,
// NCHW and NHWC (the rows path). Data: random bits (the slots); values of
// similar size (the float64 levels, whose additions a rounding mode would
// change); and negative subnormal x with dy of similar size, whose dalpha
// is tiny and would be zero if DAZ read the subnormals.
enum class Values { kRandomBits, kSimilar, kNegativeSubnormal };

std::vector<unsigned char> PreluData(lrelu_dtype_t dtype, size_t n, Values kind,
                                     std::mt19937_64& rng) {
  std::vector<unsigned char> out = RandomBits(dtype, n, rng);
  if (kind == Values::kRandomBits) return out;
  const int width = static_cast<int>(lrelu_dtype_size(dtype)) * 8;
  const int mbits = dtype == LRELU_DTYPE_FLOAT64   ? 52
                    : dtype == LRELU_DTYPE_FLOAT32 ? 23
                    : dtype == LRELU_DTYPE_FLOAT16 ? 10
                                                   : 7;
  const int bias = (1 << (width - mbits - 2)) - 1;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    const bool subnormal = kind == Values::kNegativeSubnormal;
    const uint64_t field =
        subnormal ? 0 : static_cast<uint64_t>(bias - 4 + (r & 7));
    const uint64_t sign = subnormal ? 1 : (r >> 3) & 1;
    const uint64_t fraction =
        ((r >> 4) & ((uint64_t{1} << mbits) - 1)) | (subnormal ? 1 : 0);
    StoreBits(dtype, out.data(), i,
              sign << (width - 1) | field << mbits | fraction);
  }
  return out;
}

TEST(FloatEnv, PreluEveryModeLayoutAndThreads) {
  struct Shape {
    std::vector<int64_t> x, alpha;
  };
  const Shape shapes[] = {{{2, 6, 40, 7}, {6, 1, 1}}, {{2, 40, 7, 70}, {70}}};
  std::mt19937_64 rng(31);
  for (lrelu_dtype_t dtype : AllDTypes()) {
    const size_t size = lrelu_dtype_size(dtype);
    for (const Shape& shape : shapes) {
      size_t n = 1, na = 1;
      for (int64_t d : shape.x) n *= static_cast<size_t>(d);
      for (int64_t d : shape.alpha) na *= static_cast<size_t>(d);
      for (Values kind : {Values::kRandomBits, Values::kSimilar,
                          Values::kNegativeSubnormal}) {
        const Values others =
            kind == Values::kNegativeSubnormal ? Values::kSimilar : kind;
        const auto x = PreluData(dtype, n, kind, rng);
        const auto dy = PreluData(dtype, n, others, rng);
        const auto alpha = PreluData(dtype, na, others, rng);
        auto t = [&](const std::vector<unsigned char>& v,
                     const std::vector<int64_t>& dims) {
          return lrelu_tensor_t{const_cast<unsigned char*>(v.data()), dtype,
                                static_cast<int32_t>(dims.size()), dims.data(),
                                nullptr};
        };
        // Results: y, dx, dalpha.
        auto run = [&](size_t threads, const Env* env) {
          std::vector<unsigned char> y(n * size), dx(n * size),
              dalpha(na * size);
          lrelu_options_t o;
          lrelu_options_init(&o);
          o.threads = threads;
          const lrelu_tensor_t tx = t(x, shape.x), ta = t(alpha, shape.alpha),
                               tdy = t(dy, shape.x), ty = t(y, shape.x),
                               tdx = t(dx, shape.x),
                               tda = t(dalpha, shape.alpha);
          lrelu_status_t s1, s2;
          {
            std::unique_ptr<ScopedEnv> scoped;
            if (env != nullptr) scoped = std::make_unique<ScopedEnv>(*env);
            s1 = lrelu_prelu(&tx, &ta, &ty, &o);
            s2 = lrelu_prelu_backward(&tdy, &tx, &ta, &tdx, &tda, &o);
          }
          EXPECT_EQ(s1, LRELU_STATUS_OK) << lrelu_last_error();
          EXPECT_EQ(s2, LRELU_STATUS_OK) << lrelu_last_error();
          return std::vector<std::vector<unsigned char>>{y, dx, dalpha};
        };
        const auto want = run(1, nullptr);
        for (const Env& env : AllEnvs()) {
          for (size_t threads : {1, 3}) {
            const auto got = run(threads, &env);
            const char* names[] = {"y", "dx", "dalpha"};
            for (size_t k = 0; k < 3; ++k) {
              // The same bits, but where x < 0 and the product is a NaN any
              // NaN (contract v1; which operand's NaN a multiply returns
              // depends on the code path, and y's alignment picks the path
              // of an element); dalpha NaN for NaN.
              const size_t count = k == 2 ? na : n;
              size_t bad = count;
              for (size_t i = 0; i < count && bad == count; ++i) {
                const uint64_t g = LoadBits(dtype, got[k].data(), i);
                const uint64_t w = LoadBits(dtype, want[k].data(), i);
                const bool ok =
                    k == 2 ? g == w || (testing::IsNaNBits(dtype, g) &&
                                        testing::IsNaNBits(dtype, w))
                           : ElementMatches(dtype, LoadBits(dtype, x.data(), i),
                                            w, g);
                if (!ok) bad = i;
              }
              ASSERT_EQ(bad, count)
                  << names[k] << " element " << bad << " under " << env.Name()
                  << ", " << lrelu_dtype_name(dtype) << ", "
                  << (shape.alpha.size() == 1 ? "NHWC" : "NCHW") << ", "
                  << (kind == Values::kRandomBits ? "random bits"
                      : kind == Values::kSimilar  ? "similar values"
                                                  : "negative subnormal x")
                  << ", " << threads << " threads";
            }
          }
        }
      }
    }
  }
}

TEST(FloatEnv, OpenClEveryModeAndVariant) {
  if (!lrelu_backend_available(LRELU_BACKEND_OPENCL)) {
    GTEST_SKIP() << "no OpenCL device: "
                 << lrelu_backend_unavailable_reason(LRELU_BACKEND_OPENCL);
  }
  for (lrelu_dtype_t dtype : AllDTypes()) {
    const Data d(dtype, 1, 1000, kAlphas);
    for (const char* variant : {"vec4", "scalar"}) {
      for (const Env& env : AllEnvs()) {
        for (size_t a = 0; a < kAlphas.size(); ++a) {
          const std::string problem = CheckCalls(
              d, LRELU_BACKEND_OPENCL, variant, nullptr, a, kAlphas[a], env);
          if (dtype == LRELU_DTYPE_FLOAT64 &&
              problem.rfind("call failed", 0) == 0) {
            break;  // no cl_khr_fp64 on this device
          }
          ASSERT_EQ(problem, "")
              << env.Name() << ", " << variant << ", "
              << lrelu_dtype_name(dtype) << ", alpha " << kAlphas[a];
        }
      }
    }
  }
}

}  // namespace
}  // namespace lrelu
