// The CUDA variant table for scripts/gpu-check.sh: every candidate
// configuration of the vec4 kernel (vectors per thread 1/2/4, plain or
// streaming cache hints, 4/8/16 blocks per SM, launch bounds with or
// without a minimum of 8 blocks), the scalar kernel, the forward pass with
// x loaded twice, the library's own call (lrelu_execute on the CUDA
// backend), cudaMemcpy D2D and a grid-stride uint4 copy kernel on the same
// grid. Each is first checked bit for bit against the oracle (specials,
// alpha 0.01 and the subnormal 1e-40, an unaligned head), then timed: CUDA
// events around each launch, median of --reps (>= 5), consecutive launches
// on different memory so small sizes do not time the L2.
//
// Output: CSV on stdout (one row per dtype x pass x size x implementation);
// bandwidth counts bytes read + written (forward 2 streams, gradient 3), so
// ratio_memcpy = this bandwidth / cudaMemcpy's. Exit: 0 all exact, 1 a
// variant is not exact or a CUDA call failed, 3 no CUDA device (not run).
//
//   cuda_bench [--min-log2 20] [--max-log2 30] [--step 2] [--reps 7]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/kernels.cuh"
#include "lrelu/lrelu.h"
#include "support/test_data.h"

namespace {

using namespace lrelu_cuda;
constexpr int kThreads = 256;

#define CHECK_CUDA(call)                                                 \
  do {                                                                   \
    const cudaError_t err_ = (call);                                     \
    if (err_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                            \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

template <class T, bool kOneLoad, int kIlp, int kCache, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    BenchVec4(const typename T::Bits* v, const typename T::Bits* s,
              typename T::Bits* out, long long n, long long head,
              typename T::Alpha alpha) {
  Access16<T, kOneLoad, kIlp, kCache>(v, s, out, n, head, alpha);
}

template <class T, bool kOneLoad>
__global__ void __launch_bounds__(kThreads)
    BenchScalar(const typename T::Bits* v, const typename T::Bits* s,
                typename T::Bits* out, long long n, typename T::Alpha alpha) {
  Scalar<T, kOneLoad>(v, s, out, n, alpha);
}

// The same-grid copy: what the vec4 kernel would cost with no arithmetic.
__global__ void __launch_bounds__(kThreads)
    CopyKernel(const uint4* in, uint4* out, long long vectors) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + stride < vectors; i += 2 * stride) {
    const uint4 a = in[i];
    const uint4 b = in[i + stride];
    out[i] = a;
    out[i + stride] = b;
  }
  for (; i < vectors; i += stride) out[i] = in[i];
}

typedef void (*Launch)(const void* v, const void* s, void* out, long long n,
                       long long head, double alpha, int blocks);

template <class T, bool kOneLoad, int kIlp, int kCache, int kMinBlocks>
void LaunchVec4(const void* v, const void* s, void* out, long long n,
                long long head, double alpha, int blocks) {
  typedef typename T::Bits B;
  BenchVec4<T, kOneLoad, kIlp, kCache, kMinBlocks><<<blocks, kThreads>>>(
      static_cast<const B*>(v), static_cast<const B*>(s), static_cast<B*>(out),
      n, head, static_cast<typename T::Alpha>(alpha));
}

template <class T, bool kOneLoad>
void LaunchScalar(const void* v, const void* s, void* out, long long n,
                  long long, double alpha, int blocks) {
  typedef typename T::Bits B;
  BenchScalar<T, kOneLoad><<<blocks, kThreads>>>(
      static_cast<const B*>(v), static_cast<const B*>(s), static_cast<B*>(out),
      n, static_cast<typename T::Alpha>(alpha));
}

struct Variant {
  std::string name;
  int ilp;  // 0: scalar kernel
  int cache;
  int min_blocks;
  int blocks_per_sm;
  bool one_load;  // forward only
  Launch launch;
};

template <class T, bool kOneLoad, int kIlp, int kCache>
void AddBlocks(std::vector<Variant>* out) {
  for (int bps : {4, 8, 16}) {
    for (int min_blocks : {1, 8}) {
      Variant v;
      v.name = "vec4_ilp" + std::to_string(kIlp) + (kCache ? "_cs" : "_plain") +
               "_bps" + std::to_string(bps) +
               (min_blocks > 1 ? "_lb8" : "_lb1") +
               (kOneLoad ? "" : "_twoload");
      v.ilp = kIlp;
      v.cache = kCache;
      v.min_blocks = min_blocks;
      v.blocks_per_sm = bps;
      v.one_load = kOneLoad;
      v.launch = min_blocks > 1 ? &LaunchVec4<T, kOneLoad, kIlp, kCache, 8>
                                : &LaunchVec4<T, kOneLoad, kIlp, kCache, 1>;
      out->push_back(v);
    }
  }
}

// forward: one load of x (and, once, the two-load kernel for comparison);
// gradient: dy and x loaded.
template <class T>
std::vector<Variant> Variants(bool forward) {
  std::vector<Variant> out;
  if (forward) {
    AddBlocks<T, true, 1, kCacheDefault>(&out);
    AddBlocks<T, true, 2, kCacheDefault>(&out);
    AddBlocks<T, true, 4, kCacheDefault>(&out);
    AddBlocks<T, true, 1, kCacheStreaming>(&out);
    AddBlocks<T, true, 2, kCacheStreaming>(&out);
    AddBlocks<T, true, 4, kCacheStreaming>(&out);
    std::vector<Variant> two;
    AddBlocks<T, false, 2, kCacheDefault>(&two);
    out.push_back(two[2]);  // bps 8, no minimum
  } else {
    AddBlocks<T, false, 1, kCacheDefault>(&out);
    AddBlocks<T, false, 2, kCacheDefault>(&out);
    AddBlocks<T, false, 4, kCacheDefault>(&out);
    AddBlocks<T, false, 1, kCacheStreaming>(&out);
    AddBlocks<T, false, 2, kCacheStreaming>(&out);
    AddBlocks<T, false, 4, kCacheStreaming>(&out);
  }
  Variant scalar{"scalar_bps8",
                 0,
                 0,
                 1,
                 8,
                 forward,
                 forward ? &LaunchScalar<T, true> : &LaunchScalar<T, false>};
  out.push_back(scalar);
  return out;
}

std::vector<Variant> VariantsOf(lrelu_dtype_t dtype, bool forward) {
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32:
      return Variants<F32>(forward);
    case LRELU_DTYPE_FLOAT16:
      return Variants<F16>(forward);
    case LRELU_DTYPE_BFLOAT16:
      return Variants<BF16>(forward);
    default:
      return Variants<F64>(forward);
  }
}

int g_sms = 1;

int Blocks(long long units, int blocks_per_sm) {
  const long long wanted =
      std::max<long long>(1, (units + kThreads - 1) / kThreads);
  return static_cast<int>(
      std::min<long long>(wanted, 1LL * g_sms * blocks_per_sm));
}

// Median and minimum (microseconds) of reps timed calls; call(k) runs the
// k-th repetition (k = -1: the warm-up).
template <class F>
void Time(int reps, F call, double* median_us, double* min_us) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  call(-1);
  CHECK_CUDA(cudaGetLastError());
  std::vector<double> times;
  for (int k = 0; k < reps; ++k) {
    CHECK_CUDA(cudaEventRecord(start));
    call(k);
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    CHECK_CUDA(cudaGetLastError());
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(1000.0 * ms);
  }
  std::sort(times.begin(), times.end());
  *median_us = times[times.size() / 2];
  *min_us = times.front();
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

// Bit-exact check of one variant on n random elements full of specials at
// an unaligned head of 3 (x at dv / ds, dy at dv for the gradient, already
// uploaded), with guards around the output. A small grid, so that the
// kIlp-wide steps, the remainder loop, the head and the tail all run.
constexpr size_t kCheckN = (size_t{1} << 16) + 37;
constexpr size_t kCheckAt = 3;

bool Exact(const Variant& v, lrelu_dtype_t dtype, bool forward, double alpha,
           const std::vector<unsigned char>& x,
           const std::vector<unsigned char>& dy, unsigned char* dv,
           unsigned char* ds, unsigned char* dout, std::string* why) {
  const size_t elem = lrelu_dtype_size(dtype);
  const size_t n = kCheckN, at = kCheckAt;
  const size_t bytes = n * elem;
  CHECK_CUDA(cudaMemset(dout, 0xa5, bytes + 2 * at * elem));
  unsigned char* pv = dv + at * elem;
  unsigned char* ps = forward ? pv : ds + at * elem;
  unsigned char* po = dout + at * elem;
  const long long head = static_cast<long long>(
      (16 - reinterpret_cast<uintptr_t>(po) % 16) % 16 / elem);
  v.launch(pv, ps, po, static_cast<long long>(n), head, alpha, 8);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned char> got(bytes + 2 * at * elem);
  CHECK_CUDA(cudaMemcpy(got.data(), dout, got.size(), cudaMemcpyDeviceToHost));
  const std::vector<unsigned char>& vin = forward ? x : dy;
  *why = lrelu::testing::CompareWithReference(dtype, vin.data(), x.data(),
                                              got.data() + at * elem, n, alpha);
  for (size_t i = 0; why->empty() && i < got.size(); ++i) {
    if ((i < at * elem || i >= at * elem + bytes) && got[i] != 0xa5)
      *why = "wrote outside the output at byte " + std::to_string(i);
  }
  return why->empty();
}

// Random ordinary values of both signs, as storage bits (timing data).
void FillRandom(lrelu_dtype_t dtype, unsigned char* d, size_t bytes) {
  const size_t elem = lrelu_dtype_size(dtype);
  const size_t chunk_n = (size_t{1} << 24) / elem;
  std::mt19937_64 rng(99);
  std::vector<unsigned char> host =
      lrelu::testing::RandomBits(dtype, chunk_n, rng);
  const size_t chunk = chunk_n * elem;
  size_t done = std::min(bytes, chunk);
  CHECK_CUDA(cudaMemcpy(d, host.data(), done, cudaMemcpyHostToDevice));
  while (done < bytes) {  // double on the device
    const size_t step = std::min(done, bytes - done);
    CHECK_CUDA(cudaMemcpy(d + done, d, step, cudaMemcpyDeviceToDevice));
    done += step;
  }
}

}  // namespace

int main(int argc, char** argv) {
  int min_log2 = 20, max_log2 = 30, step = 2, reps = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const int value = std::atoi(argv[i + 1]);
    if (a == "--min-log2")
      min_log2 = value;
    else if (a == "--max-log2")
      max_log2 = value;
    else if (a == "--step")
      step = std::max(1, value);
    else if (a == "--reps")
      reps = std::max(5, value);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "NOT RUN: no CUDA device (%s)\n",
                 cudaGetErrorString(cudaGetLastError()));
    return 3;
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  g_sms = prop.multiProcessorCount;
  std::fprintf(stderr, "device: %s, %d SMs\n", prop.name, g_sms);

  // One pool per operand, 8 GiB each (2^30 float64): the largest size fits
  // once, smaller ones rotate through it.
  const size_t pool = size_t{8} << 30;
  unsigned char *px, *pdy, *py;
  CHECK_CUDA(cudaMalloc(&px, pool));
  CHECK_CUDA(cudaMalloc(&pdy, pool));
  CHECK_CUDA(cudaMalloc(&py, pool));

  std::printf(
      "dtype,pass,log2n,n,impl,variant,ilp,cache,blocks_per_sm,min_blocks,"
      "median_us,min_us,gbps,ratio_memcpy,ratio_copy_kernel,exact\n");
  int failures = 0;
  const lrelu_dtype_t dtypes[] = {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16,
                                  LRELU_DTYPE_BFLOAT16, LRELU_DTYPE_FLOAT64};
  for (lrelu_dtype_t dtype : dtypes) {
    const size_t elem = lrelu_dtype_size(dtype);
    const char* dname = lrelu_dtype_name(dtype);
    FillRandom(dtype, px, pool);
    FillRandom(dtype, pdy, pool);
    for (bool forward : {true, false}) {
      const char* pass = forward ? "forward" : "gradient";
      const std::vector<Variant> variants = VariantsOf(dtype, forward);
      std::vector<int> exact(variants.size(), 1);
      std::mt19937_64 rng(static_cast<unsigned>(dtype) * 31u +
                          (forward ? 1 : 2));
      const auto x = lrelu::testing::RandomBits(dtype, kCheckN, rng);
      const auto dy = lrelu::testing::RandomBits(dtype, kCheckN, rng);
      CHECK_CUDA(cudaMemcpy(pdy + kCheckAt * elem, x.data(), kCheckN * elem,
                            cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(px + kCheckAt * elem, (forward ? x : dy).data(),
                            kCheckN * elem, cudaMemcpyHostToDevice));
      for (size_t k = 0; k < variants.size(); ++k) {
        for (double alpha : {0.01, 1e-40, -0.5}) {
          std::string why;
          // v (x or dy) at px, s (x) at pdy.
          if (!Exact(variants[k], dtype, forward, alpha, x, dy, px, pdy, py,
                     &why)) {
            exact[k] = 0;
            ++failures;
            std::fprintf(stderr, "NOT EXACT %s %s %s alpha %g: %s\n", dname,
                         pass, variants[k].name.c_str(), alpha, why.c_str());
          }
        }
      }
      FillRandom(dtype, px, pool);  // the checks overwrote the start
      FillRandom(dtype, pdy, pool);
      const int streams = forward ? 2 : 3;
      for (int log2 = min_log2; log2 <= max_log2; log2 += step) {
        const long long n = 1LL << log2;
        const size_t bytes = static_cast<size_t>(n) * elem;
        if (bytes > pool) break;
        const size_t slots = pool / bytes;  // rotation
        auto at = [&](unsigned char* base, int k) {
          return base + (static_cast<size_t>(k < 0 ? 0 : k) % slots) * bytes;
        };
        const double moved = static_cast<double>(streams) * bytes;
        double memcpy_us, copy_us = 0, min_us;
        Time(
            reps,
            [&](int k) {
              CHECK_CUDA(cudaMemcpyAsync(at(py, k), at(px, k), bytes,
                                         cudaMemcpyDeviceToDevice));
            },
            &memcpy_us, &min_us);
        const double memcpy_gbps = 2.0 * bytes / memcpy_us / 1e3;
        auto row = [&](const char* impl, const std::string& variant, int ilp,
                       int cache, int bps, int min_blocks, double med,
                       double mn, double gbps, double copy_kernel_gbps,
                       int ok) {
          std::printf(
              "%s,%s,%d,%lld,%s,%s,%d,%d,%d,%d,%.2f,%.2f,%.1f,%.4f,%.4f,%d\n",
              dname, pass, log2, n, impl, variant.c_str(), ilp, cache, bps,
              min_blocks, med, mn, gbps, gbps / memcpy_gbps,
              copy_kernel_gbps > 0 ? gbps / copy_kernel_gbps : 0.0, ok);
        };
        row("memcpy", "cudaMemcpy", 0, 0, 0, 0, memcpy_us, min_us, memcpy_gbps,
            0, 1);
        double copy_gbps[17] = {0};
        for (int bps : {4, 8, 16}) {
          const long long vectors = static_cast<long long>(bytes / 16);
          Time(
              reps,
              [&](int k) {
                CopyKernel<<<Blocks(vectors, bps), kThreads>>>(
                    reinterpret_cast<const uint4*>(at(px, k)),
                    reinterpret_cast<uint4*>(at(py, k)), vectors);
              },
              &copy_us, &min_us);
          copy_gbps[bps] = 2.0 * bytes / copy_us / 1e3;
          row("copy_kernel", "copy_ilp2_bps" + std::to_string(bps), 2, 0, bps,
              1, copy_us, min_us, copy_gbps[bps], copy_gbps[bps], 1);
        }
        for (size_t k = 0; k < variants.size(); ++k) {
          const Variant& v = variants[k];
          const long long units =
              v.ilp ? static_cast<long long>(bytes / 16) : n;
          const int blocks = Blocks(units, v.blocks_per_sm);
          double med;
          Time(
              reps,
              [&](int r) {
                unsigned char* x = at(px, r);
                v.launch(forward ? x : at(pdy, r), x, at(py, r), n, 0, 0.01,
                         blocks);
              },
              &med, &min_us);
          row("lrelu_kernel", v.name, v.ilp, v.cache, v.blocks_per_sm,
              v.min_blocks, med, min_us, moved / med / 1e3,
              copy_gbps[v.blocks_per_sm], exact[k]);
        }
        // The library's own call: plan once, execute per repetition.
        lrelu_options_t options;
        lrelu_options_init(&options);
        options.backend = LRELU_BACKEND_CUDA;
        const int64_t shape[1] = {n};
        double med = 0;
        bool planned = true;
        Time(
            reps,
            [&](int r) {
              unsigned char* x = at(px, r);
              lrelu_tensor_t tx = {x, dtype, 1, shape, nullptr};
              lrelu_tensor_t tdy = {at(pdy, r), dtype, 1, shape, nullptr};
              lrelu_tensor_t ty = {at(py, r), dtype, 1, shape, nullptr};
              const lrelu_status_t status =
                  forward
                      ? lrelu_leaky_relu(&tx, 0.01, &ty, &options)
                      : lrelu_leaky_relu_backward(
                            &tdy, &tx, 0.01, LRELU_GRAD_FROM_X, &ty, &options);
              if (status != LRELU_STATUS_OK && planned) {
                planned = false;
                std::fprintf(stderr, "library call failed: %s\n",
                             lrelu_last_error());
              }
            },
            &med, &min_us);
        if (!planned) ++failures;
        row("lrelu_library", "auto", 0, 0, 0, 0, med, min_us, moved / med / 1e3,
            copy_gbps[8], planned ? 1 : 0);
        std::fflush(stdout);
      }
    }
  }
  cudaFree(px);
  cudaFree(pdy);
  cudaFree(py);
  std::fprintf(stderr, "cuda_bench: %d failures\n", failures);
  return failures ? 1 : 0;
}
