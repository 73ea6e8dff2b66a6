// PReLU's dalpha: exact sums (reference/exact_sum.h) per alpha element.
#include "api/prelu_dalpha.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "cpu/float_env.h"
#include "cpu/kernels.h"
#include "cpu/prelu_dalpha.h"
#include "cpu/prelu_dalpha_bound.h"
#include "cpu/stream_bytes.h"
#include "reference/exact_sum.h"
#include "reference/reference.h"

namespace lrelu::prelu_impl {
namespace {

// The value of one element of a 32/16-bit dtype as a float32 (exact).
float ValueF32(lrelu_dtype_t dtype, const char* p) {
  uint16_t h;
  switch (dtype) {
    case LRELU_DTYPE_FLOAT16:
      std::memcpy(&h, p, 2);
      return reference::HalfToFloat(h);
    case LRELU_DTYPE_BFLOAT16:
      std::memcpy(&h, p, 2);
      return reference::BFloat16ToFloat(h);
    default: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
  }
}

// Adds x * dy where x < 0 to the sums, for one element.
inline void AddTerm(lrelu_dtype_t dtype, const reference::Format& f,
                    size_t elem, const char* xp, const char* dyp,
                    reference::ExactSum* sum, reference::BinnedSum* bins) {
  if (dtype != LRELU_DTYPE_FLOAT64) {
    // The product of two float32 values is exact in float64.
    const float x = ValueF32(dtype, xp);
    if (!(x < 0)) return;
    const double product =
        static_cast<double>(x) * static_cast<double>(ValueF32(dtype, dyp));
    uint64_t bits;
    std::memcpy(&bits, &product, 8);
    if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) {
      sum->AddSpecial(product);
    } else {
      bins->Add(bits);
    }
    return;
  }
  // float64: the product needs 106 bits; the wide accumulator takes it.
  const reference::Decoded xd = reference::Decode(f, LoadBits(xp, elem));
  if (xd.negative && xd.kind != reference::Decoded::kNaN &&
      xd.kind != reference::Decoded::kZero) {
    sum->AddProduct(xd, reference::Decode(f, LoadBits(dyp, elem)));
  }
}

// The Highway target the options ask for (else the best one).
int64_t TargetBit(const PreluPlan& p) {
  const std::vector<cpu::Target>& targets = cpu::RunnableTargets();
  for (const cpu::Target& t : targets) {
    if (p.has_target && p.cpu_target == t.name) return t.bit;
  }
  return targets[0].bit;
}

// Storage kept between calls, up to kKeepBytes a piece: the gradient of one
// layer, call after call, then touches no new pages (most of an in-cache
// call's time otherwise), and nothing needs zeroing where the sums leave
// their storage zero (BinnedSum after FlushInto, ChannelBins after Flush;
// ExactSum::Clear touches only the limbs used). Pieces are taken from and
// given back to a list under a mutex (an uncontended lock per task), not
// held in thread_local objects, whose destructors would pin liblrelu.so in
// memory after dlclose. Freed when the library is unloaded.
constexpr size_t kKeepBytes = size_t{16} << 20;

template <class T>
class Kept {
 public:
  // At least n elements; `bytes`: what they will hold in all (the cap).
  Kept(size_t n, size_t bytes) {
    if (n == 0) return;  // nothing asked: no piece taken
    if (bytes <= kKeepBytes) {
      {
        std::lock_guard<std::mutex> lock(List().mutex);
        if (!List().free.empty()) {
          held_ = std::move(List().free.back());
          List().free.pop_back();
        }
      }
      if (held_ == nullptr) held_ = std::make_unique<std::vector<T>>();
      if (held_->size() < n) held_->resize(n);
      data_ = held_->data();
    } else {
      local_.resize(n);
      data_ = local_.data();
    }
  }
  ~Kept() {
    if (held_ != nullptr) {
      std::lock_guard<std::mutex> lock(List().mutex);
      List().free.push_back(std::move(held_));
    }
  }
  Kept(const Kept&) = delete;
  Kept& operator=(const Kept&) = delete;
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  struct Pieces {
    std::mutex mutex;
    std::vector<std::unique_ptr<std::vector<T>>> free;
  };
  static Pieces& List() {
    static Pieces pieces;
    return pieces;
  }
  std::unique_ptr<std::vector<T>> held_;
  std::vector<T> local_;
  T* data_ = nullptr;
};

// The first `count` dimensions of `shape` of extent > 1, with x's and dy's
// strides, neighbours merged where both step over the inner one exactly
// (long rows); one dimension of extent 1 when none is left.
struct Dims {
  std::vector<int64_t> extent, xs, dys;
};

Dims MergedDims(const int64_t* shape, size_t count, const View& x,
                const View& dy) {
  Dims d;
  for (size_t k = 0; k < count; ++k) {
    if (shape[k] == 1) continue;
    if (!d.extent.empty() && d.xs.back() == x.strides[k] * shape[k] &&
        d.dys.back() == dy.strides[k] * shape[k]) {
      d.extent.back() *= shape[k];
      d.xs.back() = x.strides[k];
      d.dys.back() = dy.strides[k];
    } else {
      d.extent.push_back(shape[k]);
      d.xs.push_back(x.strides[k]);
      d.dys.push_back(dy.strides[k]);
    }
  }
  if (d.extent.empty()) {
    d.extent.push_back(1);
    d.xs.push_back(0);
    d.dys.push_back(0);
  }
  return d;
}

// One step of an odometer over d's first `count` dimensions (the last
// fastest): idx advances, and the offsets xo and dyo follow d's strides
// times `scale`.
void Advance(const Dims& d, size_t count, int64_t scale,
             std::vector<int64_t>* idx, int64_t* xo, int64_t* dyo) {
  for (size_t k = count; k-- > 0;) {
    if (++(*idx)[k] < d.extent[k]) {
      *xo += d.xs[k] * scale;
      *dyo += d.dys[k] * scale;
      return;
    }
    *xo -= (d.extent[k] - 1) * d.xs[k] * scale;
    *dyo -= (d.extent[k] - 1) * d.dys[k] * scale;
    (*idx)[k] = 0;
  }
}

// What bins and sum hold together, rounded once to f; the bins are left
// empty, the sum holds the total unless it rounded from the bins directly
// (terms of similar size and nothing in the sum: BinnedSum::RoundIfNarrow).
uint64_t RoundBinsAndSum(reference::BinnedSum* bins, reference::ExactSum* sum,
                         const reference::Format& f) {
  uint64_t bits;
  if (sum->empty() && bins->RoundIfNarrow(f, &bits)) return bits;
  bins->FlushInto(sum);
  return sum->Round(f);
}

// Channel c's dalpha (NHWC: alpha along x's last axis) summed exactly
// on its own, row by row: for the few channels the bounded pass leaves
// undecided, cheaper than the exact pass over every channel.
uint64_t ExactChannel(const PreluPlan& p, int64_t c,
                      const reference::Format& fa) {
  cpu::DefaultFloatEnv env;
  const size_t rank = p.x.shape.size();
  const size_t elem = lrelu_dtype_size(p.dtype);
  const auto e = static_cast<int64_t>(elem);
  const reference::Format f = reference::FormatOf(p.dtype);
  const Dims dims = MergedDims(p.x.shape.data(), rank - 1, p.x, p.dy);
  reference::ExactSum sum;
  reference::BinnedSum bins;
  std::vector<int64_t> idx(dims.extent.size(), 0);
  int64_t xo = c * p.x.strides[rank - 1], dyo = c * p.dy.strides[rank - 1];
  int64_t rows = 1;
  for (int64_t n : dims.extent) rows *= n;
  for (int64_t r = 0; r < rows; ++r) {
    AddTerm(p.dtype, f, elem, p.x.data + xo * e, p.dy.data + dyo * e, &sum,
            &bins);
    if (bins.count() > (uint64_t{1} << 42)) bins.FlushInto(&sum);
    Advance(dims, dims.extent.size(), 1, &idx, &xo, &dyo);
  }
  return RoundBinsAndSum(&bins, &sum, fa);
}

// p's bounded kernels, run (index 0) and rows (1), of
// cpu/prelu_dalpha_bound.h: both NULL where there are none (the exact
// paths only).
std::pair<cpu::BoundedRunKernel, cpu::BoundedRowsKernel> BoundedKernelsOf(
    const PreluPlan& p) {
  const int k = cpu::BoundedIndex(p.dtype, p.dalpha.dtype);
  if (k < 0) return {nullptr, nullptr};
  const cpu::BoundedTable& t = cpu::BoundedFor(TargetBit(p));
  return {t.run[k], t.rows[k]};
}

// p's bounded kernels.
const cpu::BoundedTable& BoundedFor(const PreluPlan& p) {
  return cpu::BoundedFor(TargetBit(p));
}
// p's bounded kernel for many contiguous runs a call; NULL where there is
// none (float64 x or dalpha: PairRunsOf).
cpu::BoundedRunsKernel BoundedRunsOf(const PreluPlan& p) {
  const int k = cpu::BoundedIndex(p.dtype, p.dalpha.dtype);
  return k < 0 || k > 2 ? nullptr : BoundedFor(p).runs[k];
}
// p's kernel for many contiguous float16 or bfloat16 runs a call summed
// in float32; NULL where there is none.
cpu::BoundedRunsKernel Runs32Of(const PreluPlan& p) {
  const int k = cpu::BoundedIndex(p.dtype, p.dalpha.dtype);
  return k == 1 || k == 2 ? BoundedFor(p).runs32[k - 1] : nullptr;
}
// The most terms of an element whose 16-bit sums go in float32 (SumRange).
int64_t Terms32(const PreluPlan& p) {
  return p.dtype == LRELU_DTYPE_FLOAT16 ? 4096 : 1 << 20;
}
// p's rows kernel for bfloat16 summed in float32, for NHWC tensors of at
// most kRowsOneRun rows, or of at most kRows32Most whose x and dy fit half
// the L2; NULL otherwise. What it leaves undecided (a share that grows as
// the square root of the rows: ~0.5-1 % of normally distributed channels
// at 128-256 rows, ~3 % at 1024 with the bound of before 2026-12-06, half
// that since: kSums32Height) is summed again per channel from a strided
// gather (BoundedChannel), ~10x a term's cost in the rows kernel, a cost
// that grows with the rows and where the gathers leave the L2 (A/B against
// the float64 rows, Xeon, 2 MiB L2, since the halved bound: 64 channels
// 0.96x at 1024 rows, 0.79x at 2048, 0.62x at 4096; 128 channels 0.59x at
// 1024 rows, 0.79x at 2048 but 1.02x at 4096 (2 MiB of x and dy); 512
// channels 0.88x at 1024 rows but 1.07x at 2048; 2048 channels 1.12x at
// 1024 rows). At least 64 channels: fewer would be mostly the kernel's
// last channels (float64 sums, with the float32 sums' height: more of
// them undecided, 1.13x the time at 16 channels).
constexpr int64_t kRows32Most = 16 * cpu::kRowsOneRun;
cpu::BoundedRowsKernel BFloat16Rows32Of(const PreluPlan& p) {
  const int64_t channels = p.x.shape[p.x.shape.size() - 1];
  const int64_t rows = p.x.n / channels;
  const size_t l2 = cpu::L2Bytes() != 0 ? cpu::L2Bytes() : size_t{512} << 10;
  const bool resident = static_cast<size_t>(p.x.n) * 4 <= l2 / 2;  // x, dy
  return cpu::BoundedIndex(p.dtype, p.dalpha.dtype) == 2 && channels >= 64 &&
                 (rows <= cpu::kRowsOneRun || (rows <= kRows32Most && resident))
             ? BoundedFor(p).bfloat16_rows32
             : nullptr;
}

// The bounded rows kernel a call's NHWC rows take and the height of its
// sums (bfloat16 sums in float32 where the target has them).
struct RowsKernel {
  cpu::BoundedRowsKernel kernel;
  int64_t (*height)(int64_t);
};
RowsKernel RowsKernelOf(const PreluPlan& p) {
  const cpu::BoundedRowsKernel rows32 = BFloat16Rows32Of(p);
  if (rows32 != nullptr) return {rows32, &cpu::Rows32Height};
  return {BoundedKernelsOf(p).second, &cpu::RowsHeight};
}

// The indices k < count where decided[k] is zero, in order, into left;
// returns how many. Branch-free.
size_t Undecided(const uint64_t* decided, size_t count, size_t* left) {
  size_t n = 0;
  for (size_t k = 0; k < count; ++k) {
    left[n] = k;
    n += decided[k] == 0 ? 1 : 0;
  }
  return n;
}

// n elements of `elem` bytes, `step` bytes apart, copied to `out`.
void Gather(const char* p, int64_t step, int64_t elem, int64_t n, char* out) {
  if (elem == 4) {
    for (int64_t i = 0; i < n; ++i) std::memcpy(out + 4 * i, p + i * step, 4);
  } else {
    for (int64_t i = 0; i < n; ++i) std::memcpy(out + 2 * i, p + i * step, 2);
  }
}

// Channel c's dalpha (NHWC) as a bounded float64 sum on its own: its
// column gathered, kBoundedRun elements at a time, through the run kernel.
// For the channels that the float32 sums (bfloat16_rows32) leave
// undecided: nearly all of them are decided here, at a fraction of
// ExactChannel's cost. False where the bound does not decide.
bool BoundedChannel(const PreluPlan& p, int64_t c, const reference::Format& fa,
                    uint64_t* bits) {
  cpu::DefaultFloatEnv env;
  const cpu::BoundedRunKernel run = BoundedKernelsOf(p).first;
  const size_t rank = p.x.shape.size();
  const size_t elem = lrelu_dtype_size(p.dtype);
  const auto e = static_cast<int64_t>(elem);
  const Dims dims = MergedDims(p.x.shape.data(), rank - 1, p.x, p.dy);
  const size_t last = dims.extent.size() - 1;
  const int64_t xs = dims.xs[last] * e, dys = dims.dys[last] * e;
  std::vector<int64_t> idx(last, 0);
  int64_t outer = 1;
  for (size_t k = 0; k < last; ++k) outer *= dims.extent[k];
  int64_t xo = c * p.x.strides[rank - 1], dyo = c * p.dy.strides[rank - 1];
  alignas(64) char xb[cpu::kBoundedRun * 4], dyb[cpu::kBoundedRun * 4];
  cpu::BoundedSum sum;
  for (int64_t o = 0; o < outer; ++o) {
    const char* xr = p.x.data + xo * e;
    const char* dyr = p.dy.data + dyo * e;
    for (int64_t i = 0; i < dims.extent[last]; i += cpu::kBoundedRun) {
      const int64_t n = std::min(cpu::kBoundedRun, dims.extent[last] - i);
      Gather(xr + i * xs, xs, e, n, xb);
      Gather(dyr + i * dys, dys, e, n, dyb);
      run(xb, dyb, static_cast<size_t>(n), &sum);
    }
    Advance(dims, last, 1, &idx, &xo, &dyo);
  }
  return cpu::RoundIfCertain(sum, fa, bits);
}

// p's pair kernel for many contiguous runs a call (float64 dalpha); NULL
// where there is none.
cpu::PairRunsKernel PairRunsOf(const PreluPlan& p) {
  const int k = cpu::BoundedIndex(p.dtype, p.dalpha.dtype);
  return k < 3 ? nullptr : BoundedFor(p).pair_runs[k - 3];
}

// After two alpha elements in a row (or an NHWC call) that the bounded sum
// did not decide, the next kSkipAfterMiss take the exact paths directly:
// data with many exact ties (integers summed past a 16-bit format's
// precision) would otherwise pay both passes every time.
constexpr int kSkipAfterMiss = 4;
// NHWC channels the bounded pass may leave undecided (one in
// kChannelsAlone, at least one) and still be summed on their own
// (ExactChannel: strided, per element) rather than by the exact pass over
// every channel, whose per-term cost is a few times lower for the 32/16-bit
// dtypes.
constexpr size_t kChannelsAlone = 8;

// The chunk length for contiguous runs of `inner` elements longer than
// kBoundedRun: at most kBoundedRun, and at least four chunks a run (a group
// of the runs kernel).
int64_t ChunkLength(int64_t inner) {
  return std::min(cpu::kBoundedRun, std::max<int64_t>(64, inner / 4 / 64 * 64));
}

// Adds chunks [first, last) of the run of `inner` elements at x0 and dy0
// (in elements), `length` a chunk and the last one shorter, to *s through
// the runs kernel: up to 64 full chunks a call, side by side, the shorter
// one alone.
void AddChunks(const PreluPlan& p, cpu::BoundedRunsKernel kernel, int64_t x0,
               int64_t dy0, int64_t inner, int64_t length, int64_t first,
               int64_t last, cpu::BoundedSum* s) {
  constexpr int64_t kChunks = 64;
  double sums[kChunks], abs[kChunks];
  int64_t xo[kChunks], dyo[kChunks];
  auto call = [&](int64_t count, int64_t n) {
    const int64_t h =
        kernel(p.x.data, p.dy.data, xo, dyo, static_cast<size_t>(count),
               static_cast<size_t>(n), sums, abs);
    for (int64_t j = 0; j < count; ++j) s->AddRun(sums[j], abs[j], h);
  };
  const int64_t full = std::min(last, inner / length);
  for (int64_t c = first; c < full; c += kChunks) {
    const int64_t count = std::min(kChunks, full - c);
    for (int64_t j = 0; j < count; ++j) {
      xo[j] = x0 + (c + j) * length;
      dyo[j] = dy0 + (c + j) * length;
    }
    call(count, length);
  }
  if (last > full && inner > full * length) {  // the shorter last chunk
    xo[0] = x0 + full * length;
    dyo[0] = dy0 + full * length;
    call(1, inner - full * length);
  }
}

// dalpha for alpha elements [begin, end): exact sums over each view.
void SumRange(const PreluPlan& p, const std::vector<int64_t>& x_offsets,
              const std::vector<int64_t>& dy_offsets, int64_t begin,
              int64_t end, uint64_t* out) {
  cpu::DefaultFloatEnv env;  // no DAZ while widening subnormals
  // The view's dimensions (alpha's axes at extent 1); the last one is the
  // inner loop.
  const std::vector<int64_t> shape = ViewShape(p);
  // References, not a structured binding: the lambdas below capture them.
  const Dims dims = MergedDims(shape.data(), shape.size(), p.x, p.dy);
  const std::vector<int64_t>& extent = dims.extent;
  const std::vector<int64_t>& xs = dims.xs;
  const std::vector<int64_t>& dys = dims.dys;
  const bool wide = p.dtype == LRELU_DTYPE_FLOAT64;
  // Built (its slots cleared) on the first element the bounded sum leaves
  // to the exact paths.
  std::optional<cpu::ProductBins> products;
  const size_t outer = extent.size() - 1;
  const int64_t inner = extent[outer];
  const size_t elem = lrelu_dtype_size(p.dtype);
  const auto e = static_cast<int64_t>(elem);
  const int64_t xi = xs[outer] * e, dyi = dys[outer] * e;
  const reference::Format f = reference::FormatOf(p.dtype);
  const reference::Format fa = reference::FormatOf(p.dalpha.dtype);
  bool empty = false;
  for (int64_t d : shape) empty = empty || d == 0;
  int64_t rows = 1;
  for (size_t k = 0; k < outer; ++k) rows *= extent[k];
  std::vector<int64_t> idx(outer, 0);
  // One sum reused for every alpha element: Clear() touches only the limbs
  // used, and FlushInto leaves the bins empty.
  reference::ExactSum sum;
  reference::BinnedSum bins;
  // fn(x_row, dy_row) for each of alpha element k's rows.
  auto each_row = [&](int64_t k, auto&& fn) {
    const char* xp = p.x.data + x_offsets[k] * e;
    const char* dyp = p.dy.data + dy_offsets[k] * e;
    std::fill(idx.begin(), idx.end(), 0);
    int64_t xo = 0, dyo = 0;  // bytes
    for (int64_t r = 0; r < rows; ++r) {
      fn(xp + xo, dyp + dyo);
      Advance(dims, outer, e, &idx, &xo, &dyo);
    }
  };
  // The exact sum of alpha element k into out[k].
  auto exact = [&](int64_t k) {
    each_row(k, [&](const char* xr, const char* dyr) {
      if (wide) {
        for (int64_t i = 0; i < inner; ++i) {
          AddTerm(p.dtype, f, elem, xr + i * xi, dyr + i * dyi, &sum, &bins);
        }
      } else {
        if (!products) products.emplace(TargetBit(p));
        products->Add(p.dtype, xr, xs[outer], dyr, dys[outer], inner, &bins,
                      &sum);
      }
    });
    if (products) products->FlushInto(&bins);
    out[k] = RoundBinsAndSum(&bins, &sum, fa);
    sum.Clear();
  };
  if (empty) {
    std::fill(out + begin, out + end, uint64_t{0});  // no term: +0
    return;
  }
  // Contiguous runs try the bounded sum first.
  const bool contiguous = xs[outer] == 1 && dys[outer] == 1;
  const cpu::BoundedRunKernel bounded =
      contiguous ? BoundedKernelsOf(p).first : nullptr;
  // Contiguous runs of at most kBoundedRun elements (NCHW planes, with a
  // batch or without): many elements a kernel call, rounded after it.
  const bool short_runs = contiguous && inner <= cpu::kBoundedRun;
  // 16-bit sums in float32, what they leave undecided again in float64
  // (bounded_sum) before the exact paths, for elements of at most terms32
  // terms: the share left undecided grows as the square root of the terms
  // (normally distributed: float16 ~5 % at 1 Ki terms, 25-40 % at 8-16 Ki;
  // bfloat16 ~1.5 % at 1 Ki, ~9 % at 1 Mi), and each costs a float64 pass
  // more (float16, 64 Ki terms an element: 1.25-1.45x the float64 sums'
  // time).
  const int64_t terms32 = Terms32(p);
  const cpu::BoundedRunsKernel sums32 =
      contiguous && rows * inner <= terms32 ? Runs32Of(p) : nullptr;
  const cpu::BoundedRunsKernel runs32 = short_runs ? sums32 : nullptr;
  const cpu::BoundedRunsKernel runs = runs32 != nullptr ? runs32
                                      : short_runs      ? BoundedRunsOf(p)
                                                        : nullptr;
  // float64 dalpha: the pair kernels' runs, rounded by RoundIfCertain
  // after the call.
  const cpu::PairRunsKernel pair_runs =
      short_runs && runs == nullptr ? PairRunsOf(p) : nullptr;
  // Element k's bounded float64 sum, rounded into *bits where it decides.
  auto bounded_sum = [&](int64_t k, uint64_t* bits) {
    cpu::BoundedSum s;
    each_row(k, [&](const char* xr, const char* dyr) {
      for (int64_t i = 0; i < inner; i += cpu::kBoundedRun) {
        const int64_t n = std::min(cpu::kBoundedRun, inner - i);
        bounded(xr + i * e, dyr + i * e, static_cast<size_t>(n), &s);
      }
    });
    return cpu::RoundIfCertain(s, fa, bits);
  };
  if (runs != nullptr || pair_runs != nullptr) {
    const cpu::RoundSumsKernel round = BoundedFor(p).round_sums;
    constexpr int64_t kBlock = 64;
    double sums[kBlock], abs[kBlock];
    uint64_t decided[kBlock];
    int64_t xr[kBlock], dyr[kBlock];  // this row's runs, in elements
    cpu::BoundedSum totals[kBlock];   // each element's rows (rows > 1)
    bool exact_next = false;  // the block before missed in most elements
    for (int64_t k = begin; k < end; k += kBlock) {
      const int64_t count = std::min(kBlock, end - k);
      if (exact_next) {
        // Data with many exact ties (integers summed past a 16-bit
        // format's precision) would otherwise pay both passes every time.
        for (int64_t j = 0; j < count; ++j) exact(k + j);
        exact_next = false;
        continue;
      }
      const auto c = static_cast<size_t>(count);
      int64_t height = 0;
      const bool by_rows = rows > 1 || pair_runs != nullptr;
      // fn() for each row, with xr and dyr its runs (the same steps for
      // every element), the totals cleared first.
      auto each_row_runs = [&](auto&& fn) {
        std::fill(totals, totals + c, cpu::BoundedSum{});
        std::fill(idx.begin(), idx.end(), 0);
        int64_t xo = 0, dyo = 0;  // elements
        for (int64_t r = 0; r < rows; ++r) {
          for (size_t j = 0; j < c; ++j) {
            xr[j] = x_offsets[k + static_cast<int64_t>(j)] + xo;
            dyr[j] = dy_offsets[k + static_cast<int64_t>(j)] + dyo;
          }
          fn();
          Advance(dims, outer, 1, &idx, &xo, &dyo);
        }
      };
      if (pair_runs != nullptr) {
        each_row_runs([&] {
          pair_runs(p.x.data, p.dy.data, xr, dyr, c, static_cast<size_t>(inner),
                    totals);
        });
        // RoundIfCertain's decision in vectors: what it leaves, the
        // scalar one would leave too.
        if (BoundedFor(p).round_pairs(totals, c, out + k, decided) == 0) {
          exact_next = false;
          continue;
        }
      } else if (rows == 1) {
        height = runs(p.x.data, p.dy.data, &x_offsets[k], &dy_offsets[k], c,
                      static_cast<size_t>(inner), sums, abs);
      } else {
        // Row by row, each row's run a run of the element's BoundedSum.
        each_row_runs([&] {
          const int64_t h = runs(p.x.data, p.dy.data, xr, dyr, c,
                                 static_cast<size_t>(inner), sums, abs);
          for (size_t j = 0; j < c; ++j) totals[j].AddRun(sums[j], abs[j], h);
        });
        height = cpu::RoundSumsInputs(totals, c, sums, abs);
      }
      // The vector decision's bits go straight to out (the loop below
      // writes the undecided ones), and a block it decides whole skips
      // that loop.
      if (pair_runs == nullptr &&
          round(sums, abs, c, height, fa, out + k, decided) == 0) {
        exact_next = false;
        continue;
      }
      int64_t misses = 0;
      // The undecided elements' indices first, in a loop of its own: a
      // loop over the block that skipped the decided ones kept its
      // counters in memory (the lambdas below take them by reference),
      // ~1/20 of a 512-channel float16 call.
      size_t left[kBlock];
      const size_t lefts = Undecided(decided, c, left);
      for (size_t q = 0; q < lefts; ++q) {
        const size_t j = left[q];
        const int64_t at = k + static_cast<int64_t>(j);
        cpu::BoundedSum one;
        if (!by_rows) one.AddRun(sums[j], abs[j], height);
        if ((pair_runs == nullptr &&
             cpu::RoundIfCertain(by_rows ? totals[j] : one, fa, &out[at])) ||
            (runs32 != nullptr && bounded_sum(at, &out[at]))) {
          continue;
        }
        exact(at);
        ++misses;
      }
      exact_next = 2 * misses > count;
    }
    return;
  }
  // Runs longer than kBoundedRun (large planes): each element's chunks as
  // the runs of one runs-kernel call, side by side (four chunks of a plane
  // a group). float32 takes the float64 runs kernel (0.91-0.98x the time
  // of one run after the other, A/B on the Xeon); the 16-bit formats their
  // float32 sums within terms32 (bfloat16 0.57-0.66x in cache, 0.71-0.85x
  // at 1-16 Mi; float16 0.73x), else one run after the other (float16's
  // float64 runs kernel measured no quicker, 1.04x).
  const int dindex = cpu::BoundedIndex(p.dtype, p.dalpha.dtype);
  const cpu::BoundedRunsKernel chunked = !contiguous || short_runs ? nullptr
                                         : dindex == 0 ? BoundedRunsOf(p)
                                                       : sums32;
  const bool chunked32 = chunked != nullptr && dindex != 0;
  const int64_t length = ChunkLength(inner);
  const int64_t chunks = (inner + length - 1) / length;
  auto chunked_sum = [&](int64_t k, uint64_t* bits) {
    cpu::BoundedSum s;
    each_row(k, [&](const char* xr, const char* dyr) {
      AddChunks(p, chunked, (xr - p.x.data) / e, (dyr - p.dy.data) / e, inner,
                length, 0, chunks, &s);
    });
    return cpu::RoundIfCertain(s, fa, bits);
  };
  int skip = 0;  // elements left to skip the bounded sum (kSkipAfterMiss)
  bool missed = false;  // the last element tried missed
  for (int64_t k = begin; k < end; ++k) {
    if (bounded != nullptr && skip > 0) {
      --skip;
    } else if (bounded != nullptr) {
      if ((chunked != nullptr && chunked_sum(k, &out[k])) ||
          ((chunked == nullptr || chunked32) && bounded_sum(k, &out[k]))) {
        missed = false;
        continue;
      }
      // Only a second miss in a row skips: isolated ties (float32-valued
      // float64 data: ~1-2 % of sums) cost their own exact sum only.
      if (missed) skip = kSkipAfterMiss;
      missed = true;
    }
    exact(k);
  }
}

// dalpha when alpha varies along x's last axis only (NHWC per channel):
// rows in memory order, one sum per channel; each task sums its rows, and
// the exact partial sums are merged (order-independent).
struct RowSumJob {
  const PreluPlan* p;
  int64_t rows, per_task;
  reference::ExactSum* partial;  // [task][channel]
  // One task (SumRowSegments): the task rounds its channels' sums to
  // `format` into out itself; NULL otherwise (partial sums to merge).
  uint64_t* out = nullptr;
  reference::Format format{};
  // The bounded pass (channels contiguous, 32/16-bit;
  // cpu/prelu_dalpha_bound.h): task t's sum of channel c at
  // bounded[t * channels + c], cleared by the caller. NULL: the exact pass.
  cpu::BoundedSum* bounded = nullptr;
};

// Rows go through the per-channel kernels (cpu::ChannelBins, or the
// bounded rows kernel) when each row's channels are contiguous and wide
// enough for vectors.
bool ChannelRows(const PreluPlan& p) {
  const size_t rank = p.x.shape.size();
  return p.x.strides[rank - 1] == 1 && p.dy.strides[rank - 1] == 1 &&
         p.x.shape[rank - 1] >= 16;
}

// What task `task` of `job` sums: rows [begin, end) (none where begin >=
// end) of x's `channels`-wide last axis, into its `sums`.
struct RowTask {
  int64_t begin, end;
  size_t rank;
  int64_t channels;
  reference::ExactSum* sums;
};

RowTask TaskOf(const RowSumJob& job, size_t task) {
  const int64_t begin = static_cast<int64_t>(task) * job.per_task;
  const size_t rank = job.p->x.shape.size();
  const int64_t channels = job.p->x.shape[rank - 1];
  return {begin, std::min(begin + job.per_task, job.rows), rank, channels,
          job.partial == nullptr  // the bounded pass
              ? nullptr
              : job.partial + task * static_cast<size_t>(channels)};
}

void SumRows(const RowSumJob& job, size_t task) {
  const PreluPlan& p = *job.p;
  const auto [begin, end, rank, channels, sums] = TaskOf(job, task);
  if (begin >= end) return;
  cpu::DefaultFloatEnv env;  // no DAZ while widening subnormals
  const auto count = static_cast<size_t>(channels);
  Kept<reference::BinnedSum> bins(count, count * sizeof(reference::BinnedSum));
  const size_t elem = lrelu_dtype_size(p.dtype);
  const auto e = static_cast<int64_t>(elem);
  const reference::Format f = reference::FormatOf(p.dtype);
  std::vector<int64_t> idx(rank - 1, 0);
  int64_t xo = 0, dyo = 0, r = begin;
  for (size_t k = rank - 1; k-- > 0;) {
    idx[k] = r % p.x.shape[k];
    r /= p.x.shape[k];
    xo += idx[k] * p.x.strides[k];
    dyo += idx[k] * p.dy.strides[k];
  }
  const int64_t xs = p.x.strides[rank - 1] * e,
                dys = p.dy.strides[rank - 1] * e;
  for (int64_t row = begin; row < end; ++row) {
    const char* xr = p.x.data + xo * e;
    const char* dyr = p.dy.data + dyo * e;
    for (int64_t c = 0; c < channels; ++c) {
      AddTerm(p.dtype, f, elem, xr + c * xs, dyr + c * dys,
              &sums[static_cast<size_t>(c)], &bins[static_cast<size_t>(c)]);
    }
    if (bins[0].count() > (uint64_t{1} << 40)) {
      for (int64_t c = 0; c < channels; ++c) {
        bins[static_cast<size_t>(c)].FlushInto(&sums[static_cast<size_t>(c)]);
      }
    }
    for (size_t k = rank - 1; k-- > 0;) {
      if (++idx[k] < p.x.shape[k]) {
        xo += p.x.strides[k];
        dyo += p.dy.strides[k];
        break;
      }
      xo -= (p.x.shape[k] - 1) * p.x.strides[k];
      dyo -= (p.x.shape[k] - 1) * p.dy.strides[k];
      idx[k] = 0;
    }
  }
  for (int64_t c = 0; c < channels; ++c) {
    bins[static_cast<size_t>(c)].FlushInto(&sums[static_cast<size_t>(c)]);
  }
}

// SumRows for 32/16-bit x: the rows (merged where x and dy both step over
// exactly) in segments of up to kSegment; per channel, one strided run down
// the segment through ProductBins into that channel's BinnedSum. A segment
// is small enough to stay in cache while its channels are read.
constexpr int64_t kSegment = 256;

void SumRowSegments(const RowSumJob& job, size_t task) {
  const PreluPlan& p = *job.p;
  const auto [begin, end, rank, channels, sums] = TaskOf(job, task);
  if (begin >= end) return;
  cpu::DefaultFloatEnv env;  // no DAZ while widening subnormals
  const auto e = static_cast<int64_t>(lrelu_dtype_size(p.dtype));
  const reference::Format f = reference::FormatOf(p.dtype);
  // The rows: every dimension but the channels' last one.
  const Dims dims = MergedDims(p.x.shape.data(), rank - 1, p.x, p.dy);
  const std::vector<int64_t>& ext = dims.extent;
  const std::vector<int64_t>& xs = dims.xs;
  const std::vector<int64_t>& dys = dims.dys;
  const size_t last = ext.size() - 1;
  std::vector<int64_t> idx(ext.size(), 0);
  int64_t xo = 0, dyo = 0, r = begin;
  for (size_t k = ext.size(); k-- > 0;) {
    idx[k] = r % ext[k];
    r /= ext[k];
    xo += idx[k] * xs[k];
    dyo += idx[k] * dys[k];
  }
  const int64_t xc = p.x.strides[rank - 1], dyc = p.dy.strides[rank - 1];
  const auto count = static_cast<size_t>(channels);
  const bool bounded = job.bounded != nullptr;  // then ChannelRows(p)
  Kept<reference::BinnedSum> bins(bounded ? 0 : count,
                                  count * sizeof(reference::BinnedSum));
  std::optional<cpu::ProductBins> products;  // the per-channel runs' only
  if (!bounded && !ChannelRows(p)) products.emplace(TargetBit(p));
  alignas(64) char x_buffer[kSegment * 4], dy_buffer[kSegment * 4];
  const bool rows = !bounded && ChannelRows(p);
  Kept<cpu::ChannelBins> kept_bins(rows ? 1 : 0,
                                   count * cpu::kSlots * sizeof(uint64_t));
  cpu::ChannelBins* by_row = nullptr;
  if (rows) {
    by_row = kept_bins.data();
    by_row->Reset(TargetBit(p), channels);
  }
  // The bounded pass: each segment summed from zero into `block` (sums,
  // the pair kernels' lows, then magnitudes), then added to the channels'
  // BoundedSums as a run.
  const bool pair = p.dalpha.dtype == LRELU_DTYPE_FLOAT64;
  const size_t slots = pair ? 3 : 2;
  std::vector<double> block(bounded ? slots * count : 0);
  cpu::BoundedSum* totals = bounded ? job.bounded + task * count : nullptr;
  const RowsKernel bounded_rows =
      bounded ? RowsKernelOf(p) : RowsKernel{nullptr, nullptr};
  // The task's x and dy: from the L2 (rows side by side) or from memory.
  const bool streamed =
      cpu::StreamedRows(2 * (end - begin) * channels * e, cpu::L2Bytes());
  for (int64_t row = begin; row < end;) {
    const int64_t seg = std::min({kSegment, ext[last] - idx[last], end - row});
    const char* xr = p.x.data + xo * e;
    const char* dyr = p.dy.data + dyo * e;
    if (bounded) {
      const int64_t row_bytes = channels * e;
      const int64_t per_run = cpu::RowsPerRun(row_bytes, end - begin);
      for (int64_t done = 0; done < seg; done += per_run) {
        const int64_t n = std::min(per_run, seg - done);
        bounded_rows.kernel(xr + done * xs[last] * e, xs[last] * e,
                            dyr + done * dys[last] * e, dys[last] * e, n,
                            channels, streamed, block.data());
        cpu::AddRowsBlock(block.data(), count, pair, bounded_rows.height(n),
                          totals);
      }
    } else if (by_row) {  // channels contiguous: whole rows, in memory order
      by_row->AddRows(p.dtype, xr, xs[last] * e, dyr, dys[last] * e, seg,
                      bins.data(), sums);
    }
    for (int64_t c = 0; c < (by_row || bounded ? 0 : channels); ++c) {
      reference::BinnedSum& b = bins[static_cast<size_t>(c)];
      reference::ExactSum& sum = sums[static_cast<size_t>(c)];
      const char* xp = xr + c * xc * e;
      const char* dyp = dyr + c * dyc * e;
      if (seg < 16) {  // a flush of the product bins would cost more
        for (int64_t i = 0; i < seg; ++i) {
          AddTerm(p.dtype, f, static_cast<size_t>(e), xp + i * xs[last] * e,
                  dyp + i * dys[last] * e, &sum, &b);
        }
      } else if (xs[last] == 1 && dys[last] == 1) {
        products->Add(p.dtype, xp, 1, dyp, 1, seg, &b, &sum);
        products->FlushInto(&b);
      } else {
        // Gathered first, so the run takes the SIMD kernel.
        Gather(xp, xs[last] * e, e, seg, x_buffer);
        Gather(dyp, dys[last] * e, e, seg, dy_buffer);
        products->Add(p.dtype, x_buffer, 1, dy_buffer, 1, seg, &b, &sum);
        products->FlushInto(&b);
      }
      if (b.count() > (uint64_t{1} << 42)) b.FlushInto(&sum);
    }
    row += seg;
    idx[last] += seg;
    xo += seg * xs[last];
    dyo += seg * dys[last];
    if (idx[last] < ext[last]) continue;
    xo -= ext[last] * xs[last];
    dyo -= ext[last] * dys[last];
    idx[last] = 0;
    Advance(dims, last, 1, &idx, &xo, &dyo);
  }
  if (bounded) return;
  if (by_row) by_row->Flush(bins.data(), sums);
  for (int64_t c = 0; c < channels; ++c) {
    const auto k = static_cast<size_t>(c);
    if (job.out != nullptr) {
      job.out[k] = RoundBinsAndSum(&bins[k], &sums[k], job.format);
    } else {
      bins[k].FlushInto(&sums[k]);
    }
  }
}

// The bounded pass of a one-task call whose rows, merged, step by one
// stride and take one rows kernel call (at most kRowsOneRun): the kernel's
// sums rounded in vectors straight from its block, without
// SumRowSegments's per-channel BoundedSums, their merge and the inputs
// gathered again (~1/6 of a 512-channel float32 call in cache). False where
// that does not apply (nothing done). Else out holds the channels that
// decided[c] marks; where some are left (*left, their count, nonzero),
// *result holds the block they come from. 32/16-bit dalpha only.
struct OneRowsBlock {
  std::vector<double> block;  // each channel's sum, then its magnitude
  int64_t height = 0;
  // Channel c's BoundedSum: one run from zero, the block's sum exactly.
  cpu::BoundedSum Of(size_t c) const {
    cpu::BoundedSum s;
    s.AddRun(block[c], block[block.size() / 2 + c], height);
    return s;
  }
};
bool OneRowsCall(const PreluPlan& p, int64_t rows, const reference::Format& fa,
                 uint64_t* out, uint64_t* decided, OneRowsBlock* result,
                 size_t* left) {
  const size_t rank = p.x.shape.size();
  const int64_t channels = p.x.shape[rank - 1];
  const auto e = static_cast<int64_t>(lrelu_dtype_size(p.dtype));
  const int64_t row_bytes = channels * e;
  if (rows > cpu::RowsPerRun(row_bytes, rows) || rows > kSegment) {
    return false;
  }
  const Dims dims = MergedDims(p.x.shape.data(), rank - 1, p.x, p.dy);
  if (dims.extent.size() > 1) {
    return false;
  }
  const int64_t xs = dims.extent.empty() ? 0 : dims.xs[0] * e;
  const int64_t dys = dims.extent.empty() ? 0 : dims.dys[0] * e;
  const RowsKernel rows_kernel = RowsKernelOf(p);
  const int64_t height = rows_kernel.height(rows);
  const auto count = static_cast<size_t>(channels);
  std::vector<double> block(2 * count);  // sums, then magnitudes (or E)
  cpu::DefaultFloatEnv env;              // no DAZ while widening subnormals
  rows_kernel.kernel(p.x.data, xs, p.dy.data, dys, rows, channels,
                     cpu::StreamedRows(2 * rows * row_bytes, cpu::L2Bytes()),
                     block.data());
  *left = BoundedFor(p).round_sums(block.data(), block.data() + count, count,
                                   height, fa, out, decided);
  if (*left != 0) {
    result->block = std::move(block);
    result->height = height;
  }
  return true;
}

// Fills dalpha (alpha's element order) for the last-axis-only case.
void SumByRows(const PreluPlan& p, const lrelu_thread_pool_t* pool,
               uint64_t* out) {
  const size_t rank = p.x.shape.size();
  const int64_t channels = p.x.shape[rank - 1];
  RowSumJob job{&p, p.x.n / channels, 0, nullptr};
  auto tasks =
      static_cast<int64_t>(p.threads != 0 ? p.threads : pool->concurrency);
  const int64_t bytes =
      p.x.n * static_cast<int64_t>(lrelu_dtype_size(p.dtype)) * 2;
  tasks =
      std::min({tasks, job.rows, std::max<int64_t>(1, bytes / kMinTaskBytes)});
  const auto sums = static_cast<size_t>(tasks * channels);
  job.per_task = (job.rows + tasks - 1) / tasks;
  const bool wide = p.dtype == LRELU_DTYPE_FLOAT64;
  const reference::Format fa = reference::FormatOf(p.dalpha.dtype);
  // The bounded pass always takes SumRowSegments; the exact one SumRows
  // for float64 x.
  auto run_tasks = [&] {
    const bool rows = wide && job.bounded == nullptr;
    if (tasks == 1) {
      rows ? SumRows(job, 0) : SumRowSegments(job, 0);
    } else {
      pool->parallel_for(
          pool->pool_context,
          rows ? [](void* ctx,
                    size_t i) { SumRows(*static_cast<const RowSumJob*>(ctx), i); }
               : [](void* ctx, size_t i) {
                   SumRowSegments(*static_cast<const RowSumJob*>(ctx), i);
                 },
          &job, static_cast<size_t>(tasks));
    }
  };
  // Calls left to skip the bounded pass, after one whose bound did not
  // decide every channel (as SumRange's elements; shared by every layout
  // and thread: it changes the speed only, never the bits).
  static std::atomic<int> skip{0};
  int left = skip.load(std::memory_order_relaxed);
  while (left > 0 && !skip.compare_exchange_weak(left, left - 1,
                                                 std::memory_order_relaxed)) {
  }
  if (left <= 0 && BoundedKernelsOf(p).second != nullptr && ChannelRows(p)) {
    // The bounded pass first; the exact one only when a channel's bound
    // does not decide its rounding.
    const auto count = static_cast<size_t>(channels);
    const int k = cpu::BoundedIndex(p.dtype, p.dalpha.dtype);
    // The 32/16-bit dalphas decided in vectors first (RoundSumsKernel),
    // float64's (the pair kernels) after the pass (RoundPairsKernel).
    const bool sums_kernel = k >= 0 && k <= 2;
    std::vector<uint64_t> decided(count);
    cpu::DefaultFloatEnv env;  // the rounding of the bounds
    std::vector<cpu::BoundedSum> bounded;
    OneRowsBlock one;           // OneRowsCall's, where it took the call
    size_t left_count = count;  // not decided in vectors
    if (tasks != 1 || !sums_kernel ||
        !OneRowsCall(p, job.rows, fa, out, decided.data(), &one, &left_count)) {
      bounded.resize(sums);
      job.bounded = bounded.data();
      run_tasks();
      job.bounded = nullptr;
      // Each channel's total: the first task's sums, the others merged in.
      for (size_t t = 1; t < static_cast<size_t>(tasks); ++t) {
        for (size_t c = 0; c < count; ++c) {
          bounded[c].Merge(bounded[t * count + c]);
        }
      }
      if (sums_kernel) {
        std::vector<double> total(count), abs(count);
        const int64_t height = cpu::RoundSumsInputs(bounded.data(), count,
                                                    total.data(), abs.data());
        left_count = BoundedFor(p).round_sums(total.data(), abs.data(), count,
                                              height, fa, out, decided.data());
      } else {
        left_count = BoundedFor(p).round_pairs(bounded.data(), count, out,
                                               decided.data());
      }
    }
    std::vector<int64_t> undecided;
    const size_t alone = std::max<size_t>(1, count / kChannelsAlone);
    std::vector<size_t> pending(left_count == 0 ? 0 : count);
    const size_t pendings =
        Undecided(decided.data(), pending.size(), pending.data());
    for (size_t q = 0; q < pendings; ++q) {
      const size_t c = pending[q];
      // The scalar decision where the vectors' covered less (RoundSums:
      // normal ranges only; RoundPairs is RoundPairIfCertain itself).
      if (!sums_kernel ||
          !cpu::RoundIfCertain(one.block.empty() ? bounded[c] : one.Of(c), fa,
                               &out[c])) {
        undecided.push_back(static_cast<int64_t>(c));
        if (undecided.size() > alone) break;
      }
    }
    // A few undecided channels (a sum on a tie, as float32-valued float64
    // data often gives) are summed exactly on their own, others with
    // the exact pass over every channel; bfloat16's float32 sums leave
    // some more, which a float64 bounded sum first decides.
    if (undecided.size() <= alone) {
      const bool rows32 = BFloat16Rows32Of(p) != nullptr;
      for (int64_t c : undecided) {
        if (!rows32 || !BoundedChannel(p, c, fa, &out[c])) {
          out[c] = ExactChannel(p, c, fa);
        }
      }
      return;
    }
    skip.store(kSkipAfterMiss, std::memory_order_relaxed);
  }
  // The exact pass.
  Kept<reference::ExactSum> partial(sums, sums * sizeof(reference::ExactSum));
  for (size_t i = 0; i < sums; ++i) partial[i].Clear();
  job.partial = partial.data();
  if (tasks == 1 && !wide) {
    job.out = out;
    job.format = fa;
  }
  run_tasks();
  if (job.out != nullptr) return;  // the task rounded them
  for (int64_t c = 0; c < channels; ++c) {
    const auto k = static_cast<size_t>(c);
    for (int64_t t = 1; t < tasks; ++t) {
      partial[k].Merge(partial[static_cast<size_t>(t * channels) + k]);
    }
    out[c] = partial[k].Round(fa);
  }
}

// A few alpha elements over more threads than whole elements keep busy
// (alpha of shape [1], nn.PReLU()'s default; three channels on two
// threads): each element's contiguous runs in chunks of at most
// kBoundedRun, the elements' chunks one sequence split evenly among the
// tasks, a task's chunks of an element through the float64 runs kernel
// (as SumRange's long planes, four side by side) into its own BoundedSum
// for that element; each element's sums merged (TwoSum: the decision and
// the bits do not depend on the split). An element left undecided is
// summed again by SumRange on one thread (its float64 and exact paths).
struct FewElementsJob {
  const PreluPlan* p;
  const Dims* dims;
  const int64_t* x0;      // each element's first x, in elements
  const int64_t* dy0;     // and dy
  int64_t inner, length;  // run length; chunk length (the last shorter)
  int64_t chunks, units;  // chunks a run; an element's runs * chunks
  int64_t count;          // elements
  int64_t per_task;       // units (of count * units) a task
  cpu::BoundedRunsKernel kernel;
  cpu::BoundedSum* partial;  // [task * count + element]
};

// Units [begin, end) of element e into *sum.
void SumElementUnits(const FewElementsJob& job, int64_t e, int64_t begin,
                     int64_t end, cpu::BoundedSum* sum) {
  const Dims& d = *job.dims;
  const size_t outer = d.extent.size() - 1;
  // The odometer at run begin / chunks.
  std::vector<int64_t> idx(outer, 0);
  int64_t xo = job.x0[e], dyo = job.dy0[e];
  int64_t r = begin / job.chunks;
  for (size_t k = outer; k-- > 0;) {
    idx[k] = r % d.extent[k];
    r /= d.extent[k];
    xo += idx[k] * d.xs[k];
    dyo += idx[k] * d.dys[k];
  }
  // Each run's share of [begin, end).
  for (int64_t u = begin; u < end;) {
    const int64_t first = u % job.chunks;
    const int64_t last = std::min(job.chunks, first + (end - u));
    AddChunks(*job.p, job.kernel, xo, dyo, job.inner, job.length, first, last,
              sum);
    u += last - first;
    if (last == job.chunks) Advance(d, outer, 1, &idx, &xo, &dyo);
  }
}

void SumFewElementsTask(const FewElementsJob& job, size_t task) {
  const int64_t begin = static_cast<int64_t>(task) * job.per_task;
  const int64_t end = std::min(begin + job.per_task, job.count * job.units);
  cpu::DefaultFloatEnv env;
  for (int64_t u = begin; u < end;) {
    const int64_t e = u / job.units;
    const int64_t stop = std::min(end, (e + 1) * job.units);
    SumElementUnits(job, e, u - e * job.units, stop - e * job.units,
                    &job.partial[static_cast<size_t>(
                        static_cast<int64_t>(task) * job.count + e)]);
    u = stop;
  }
}

// SumDalpha's few alpha elements on `tasks` threads (FewElementsJob), x
// not empty (SumDalpha starts threads for 512 KiB of x and dy or more):
// true with every out[k] set; false, having done nothing, where the
// elements have no contiguous runs or no float64 runs kernel.
bool SumFewElements(const PreluPlan& p, const std::vector<int64_t>& x_offsets,
                    const std::vector<int64_t>& dy_offsets,
                    const lrelu_thread_pool_t* pool, size_t tasks,
                    uint64_t* out) {
  const cpu::BoundedRunsKernel kernel = BoundedRunsOf(p);
  if (kernel == nullptr) return false;
  const std::vector<int64_t> shape = ViewShape(p);
  const Dims dims = MergedDims(shape.data(), shape.size(), p.x, p.dy);
  const size_t outer = dims.extent.size() - 1;
  if (dims.xs[outer] != 1 || dims.dys[outer] != 1) return false;
  const int64_t inner = dims.extent[outer];
  int64_t rows = 1;
  for (size_t k = 0; k < outer; ++k) rows *= dims.extent[k];
  const int64_t length = ChunkLength(inner);
  const int64_t chunks = (inner + length - 1) / length;
  const int64_t units = rows * chunks;
  const int64_t count = p.alpha_count;
  tasks = std::min(tasks, static_cast<size_t>(count * units));
  std::vector<cpu::BoundedSum> partial(tasks * static_cast<size_t>(count));
  const auto t = static_cast<int64_t>(tasks);
  FewElementsJob job{&p,
                     &dims,
                     x_offsets.data(),
                     dy_offsets.data(),
                     inner,
                     length,
                     chunks,
                     units,
                     count,
                     (count * units + t - 1) / t,
                     kernel,
                     partial.data()};
  pool->parallel_for(
      pool->pool_context,
      [](void* ctx, size_t i) {
        SumFewElementsTask(*static_cast<const FewElementsJob*>(ctx), i);
      },
      &job, tasks);
  const reference::Format format = reference::FormatOf(p.dalpha.dtype);
  for (int64_t e = 0; e < count; ++e) {
    cpu::BoundedSum total = partial[static_cast<size_t>(e)];
    for (size_t k = 1; k < tasks; ++k) {
      total.Merge(
          partial[k * static_cast<size_t>(count) + static_cast<size_t>(e)]);
    }
    bool decided = false;
    {
      cpu::DefaultFloatEnv env;
      decided = cpu::RoundIfCertain(total, format, &out[e]);
    }
    if (!decided) SumRange(p, x_offsets, dy_offsets, e, e + 1, out);
  }
  return true;
}

struct SumTask {
  const PreluPlan* p;
  const std::vector<int64_t>* x_offsets;
  const std::vector<int64_t>* dy_offsets;
  uint64_t* out;
  int64_t per_task;
};

}  // namespace

bool DalphaByRows(const PreluPlan& p) {
  return p.alpha_axes.size() == 1 &&
         p.alpha_axes[0] == static_cast<int>(p.x.shape.size()) - 1 && p.x.n > 0;
}

void SumDalpha(const PreluPlan& p, const std::vector<int64_t>& x_offsets,
               const std::vector<int64_t>& dy_offsets,
               const lrelu_thread_pool_t* run_pool, uint64_t* out) {
  const int64_t bytes =
      p.x.n * static_cast<int64_t>(lrelu_dtype_size(p.dtype)) * 2;
  // Threads worth starting (one per kMinTaskBytes of x and dy at most),
  // and tasks of whole alpha elements.
  const size_t threads = std::min<size_t>(
      p.threads != 0 ? p.threads : run_pool->concurrency,
      static_cast<size_t>(std::max<int64_t>(1, bytes / kMinTaskBytes)));
  const size_t tasks = std::min(threads, static_cast<size_t>(p.alpha_count));
  // Fewer elements than make whole elements an even split (one on two
  // threads; three on two, where one thread summed two while the other
  // summed one) go through every thread each, in float64 runs; not 16-bit
  // elements that SumRange sums in float32 (~0.6x the float64 runs' time:
  // whole elements a thread were quicker, bfloat16 5 channels on two
  // threads 0.5-0.6x), but for a lone element.
  const auto count = static_cast<size_t>(p.alpha_count);
  const bool sums32 =
      Runs32Of(p) != nullptr && p.x.n / p.alpha_count <= Terms32(p);
  const bool few =
      threads > 1 &&
      (count == 1 || (!sums32 && count % threads != 0 && count < 4 * threads));
  if (DalphaByRows(p)) {
    SumByRows(p, run_pool, out);
  } else if (few &&
             SumFewElements(p, x_offsets, dy_offsets, run_pool, threads, out)) {
    // Done.
  } else if (tasks <= 1) {
    SumRange(p, x_offsets, dy_offsets, 0, p.alpha_count, out);
  } else {
    SumTask t{&p, &x_offsets, &dy_offsets, out,
              (p.alpha_count + static_cast<int64_t>(tasks) - 1) /
                  static_cast<int64_t>(tasks)};
    run_pool->parallel_for(
        run_pool->pool_context,
        [](void* ctx, size_t i) {
          const auto& task = *static_cast<SumTask*>(ctx);
          const int64_t b = static_cast<int64_t>(i) * task.per_task;
          const int64_t e = std::min(b + task.per_task, task.p->alpha_count);
          if (b < e) {
            SumRange(*task.p, *task.x_offsets, *task.dy_offsets, b, e,
                     task.out);
          }
        },
        &t, tasks);
  }
}

}  // namespace lrelu::prelu_impl
