// PReLU's row mode (api/prelu_rows.h).
#include "api/prelu_rows.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "cpu/float_env.h"
#include "cpu/invalid_flag.h"
#include "cpu/kernels.h"
#include "cpu/prelu_rows.h"
#include "cpu/stream_bytes.h"
#include "cpu/thread_pool.h"
#include "cpu/tiling.h"
#include "reference/dtype_traits.h"
#include "reference/reference.h"

namespace lrelu::prelu_impl {
namespace {

struct RowJob {
  const RowOperands* ops;
  const RowLayout* layout;        // the caller's (2.5 KiB: not copied per call)
  cpu::PreluRowKernel kernel;     // alpha varies along the row
  cpu::PreluPlanesKernel planes;  // rows with one alpha each, in a run
  const cpu::KernelTable* scalar;  // alpha constant along the row
  bool reference;                  // variant "reference": the oracle
  int64_t rows;
  int64_t per_task;
  bool stream = false;  // non-temporal stores: fenced at the end of a run
  // The kernels for rows whose alphas are all positive and finite
  // (cpu/prelu_rows.h), NULL where there are none: float16's round trip
  // (forward, out of place, where the invalid flag works; `checked`: the
  // flag is read around them) and bfloat16's sign test (forward).
  cpu::PreluRowKernel kernel_positive = nullptr;
  cpu::PreluPlanesKernel planes_positive = nullptr;
  bool checked = false;
  // The 16-bit alphas' widening to float32, and the float64 ones' rounding
  // (cpu/prelu_rows.h).
  cpu::WidenAlphasKernel widen = nullptr;
  cpu::NarrowAlphasKernel narrow = nullptr;
};

// Whether every one of the count float32 alphas is positive and finite
// (the round trip's condition: -0 * alpha must stay -0, no NaN made). On
// the bits: a float comparison with a NaN alpha would raise the invalid
// flag that the round trip reads.
// A reduction without a branch, so that it vectorizes (with `&&` it took
// ~8 % of a 64 Ki-element float16 call at 512 channels).
bool AllPositiveFinite(const float* a, size_t count) {
  uint32_t outside = 0;
  for (size_t i = 0; i < count; ++i) {
    uint32_t b;
    std::memcpy(&b, &a[i], sizeof(b));
    // +0 wraps; sign, inf and NaN exceed.
    outside |= static_cast<uint32_t>(b - 1 >= 0x7f7fffffu);
  }
  return outside == 0;
}

// One float32 or float64 alpha element as a double (exact). The 16-bit
// alphas only come with narrow x, whose float32 alphas FillAlpha32 makes
// on their bits; float64 x takes a float64 alpha (docs/prelu.md, dtypes).
inline double AlphaValue(lrelu_dtype_t dtype, const char* p) {
  if (dtype == LRELU_DTYPE_FLOAT32) {
    float a;
    std::memcpy(&a, p, 4);
    return a;
  }
  double a;
  std::memcpy(&a, p, 8);
  return a;
}

// alpha rounded to float32 once, as LeakyReLU does; a NaN as the default
// quiet NaN, whose lower 16 bits are clear (cpu/prelu_rows.h: a float64
// alpha's payload could set them). A product's NaN may be any NaN.
inline float AlphaFloat32(double a) {
  return a == a ? static_cast<float>(a)
                : std::numeric_limits<float>::quiet_NaN();
}

// `count` alphas from p, `stride` elements apart, as float32 (the narrow
// dtypes' kernels): 16-bit alphas widen on their bits, exactly (a NaN's
// payload stays in the upper bits), contiguous ones through `widen` (the
// target's kernel for the alphas' dtype: the oracle's out-of-line decoder
// took ~13 % of a 64 Ki-element float16 call at 512 channels on the Xeon),
// strided 16-bit ones through that decoder (integer arithmetic, so DAZ/FTZ
// cannot touch a subnormal), others through AlphaValue.
void FillAlpha32(lrelu_dtype_t dtype, const char* p, int64_t stride,
                 size_t count, float* out, const RowJob& job) {
  const int64_t step = stride * static_cast<int64_t>(lrelu_dtype_size(dtype));
  if (dtype == LRELU_DTYPE_BFLOAT16 || dtype == LRELU_DTYPE_FLOAT16) {
    if (step == 2 && reinterpret_cast<uintptr_t>(p) % 2 == 0) {
      job.widen(reinterpret_cast<const uint16_t*>(p), count, out);
      return;
    }
    const bool bfloat16 = dtype == LRELU_DTYPE_BFLOAT16;
    for (size_t i = 0; i < count; ++i) {
      uint16_t bits;
      std::memcpy(&bits, p + static_cast<int64_t>(i) * step, sizeof(bits));
      out[i] = bfloat16 ? reference::BFloat16ToFloat(bits)
                        : reference::HalfToFloat(bits);
    }
    return;
  }
  if (dtype == LRELU_DTYPE_FLOAT64 && step == 8 &&
      reinterpret_cast<uintptr_t>(p) % 8 == 0) {
    // Contiguous float64 alphas (a full-shape alpha; NumPy's ufunc hands
    // its buffered alpha so) through the target's kernel: this loop took
    // ~2-4 ns an alpha, most of a full-alpha call.
    job.narrow(reinterpret_cast<const double*>(p), count, out);
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    out[i] =
        AlphaFloat32(AlphaValue(dtype, p + static_cast<int64_t>(i) * step));
  }
}

// Stack room for one row of alphas (longer rows take the heap), and for the
// planes' alphas.
constexpr int64_t kStackAlphas = 2048;
// Room to start the alphas up to one 64-byte line in (see `shift`).
constexpr size_t kShiftSlack = 16;
// Consecutive rows with one alpha each (NCHW) go up to kPlaneRows at a time
// through the planes kernel, as one span.
constexpr int64_t kPlaneRows = 1024;

// n elements of T: on the stack up to N (a task's usual alpha row), no
// allocation per call; on the heap beyond (longer rows), left uninitialised
// as the stack's are (zeroing a row of 8 Ki alphas took ~20 % of its call).
template <class T, size_t N>
class Buffer {
 public:
  explicit Buffer(size_t n) {
    if (n > N) {
      large_.reset(new T[n]);
      data_ = large_.get();
    }
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  alignas(64) T small_[N];
  std::unique_ptr<T[]> large_;
  T* data_ = small_;
};

// positive: rows whose alphas allow it take job's kernels for positive
// alphas (RunRowsChecked reads the flag around float16's).
void RunRows(const RowJob& job, int64_t begin, int64_t end,
             bool positive_kernels) {
  const RowOperands& p = *job.ops;
  const RowLayout& l = *job.layout;
  cpu::DefaultFloatEnv env;
  const int last = l.rank - 1;
  const int64_t length = l.extent[last];
  const size_t elem = lrelu_dtype_size(p.dtype);
  const auto e = static_cast<int64_t>(elem);
  const size_t alpha_elem = lrelu_dtype_size(p.alpha_dtype);
  const bool wide = p.dtype == LRELU_DTYPE_FLOAT64;
  const bool per_element = l.as[last] != 0;
  // Consecutive rows contiguous in x, v and out, with the same alpha row.
  const bool fuse = per_element && last > 0 && l.as[last - 1] == 0 &&
                    l.xs[last] == 1 && l.vs[last] == 1 && l.os[last] == 1 &&
                    l.xs[last - 1] == length && l.vs[last - 1] == length &&
                    l.os[last - 1] == length;
  // Per-element alphas: the row of them, repeated to a period of at least
  // cpu::kAlphaSlack values and then kAlphaSlack more, so that the row
  // kernel reads alpha[i % period] as one contiguous vector (PreluRowArgs):
  // all the rows that share it then go in one call, and the row stays in L1.
  const size_t distinct = per_element ? static_cast<size_t>(length) : 1;
  const size_t period =
      distinct * ((cpu::kAlphaSlack + distinct - 1) / distinct);
  // The compute type's buffer holds the repeated row; the other only what
  // the oracle fallback and the scalar-alpha kernels read.
  const size_t buffered = per_element ? period + cpu::kAlphaSlack : 1;
  // kShiftSlack more: the row starts `shift` elements in, so that alpha
  // and out are aligned alike (the kernels align out; alpha's loads then
  // split no cache line either).
  Buffer<float, kStackAlphas + kShiftSlack> a32((wide ? distinct : buffered) +
                                                kShiftSlack);
  Buffer<double, kStackAlphas + kShiftSlack> a64((wide ? buffered : distinct) +
                                                 kShiftSlack);
  const size_t alpha_size = wide ? sizeof(double) : sizeof(float);
  size_t shift = 0;
  // Rows with one alpha each, consecutive in x, v and out (NCHW): many per
  // call of the planes kernel, rather than one call of the scalar-alpha
  // kernel each.
  const bool planes = !per_element && last > 0 && l.xs[last - 1] == length &&
                      l.vs[last - 1] == length && l.os[last - 1] == length;
  // Whole images of planes in one run (NCHW batches): the image dimension
  // steps over the channels' rows exactly in x, v and out, alpha is the
  // same for every image, and one image's alphas fit the buffers.
  const bool images_run = planes && last > 1 && l.as[last - 2] == 0 &&
                          l.extent[last - 1] <= kPlaneRows &&
                          l.xs[last - 2] == l.extent[last - 1] * length &&
                          l.vs[last - 2] == l.extent[last - 1] * length &&
                          l.os[last - 2] == l.extent[last - 1] * length;
  // Their alphas share the row buffers (a planes run has no per-element
  // alphas; index 0 keeps the row's own alpha), past the slack.
  static_assert(kPlaneRows <= kStackAlphas, "planes' alphas fit the stack");
  float* const plane_a32 = a32.data() + kShiftSlack;
  double* const plane_a64 = a64.data() + kShiftSlack;
  int64_t idx[kMaxRank];  // set below for the `last` outer dimensions
  // Alpha offsets are element offsets from alpha's data, negative with
  // negative strides: kNone marks "nothing loaded".
  constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
  int64_t plane_ao = kNone, plane_k = 0;  // offset and count in plane_a*
  bool plane_positive = false;  // plane_a32 allows the positive kernels
  int64_t xo = 0, vo = 0, oo = 0, ao = 0;
  std::fill(idx, idx + last, 0);
  // Row `begin`'s indices and offsets (from row 0 all zero: no divisions).
  for (int64_t r = begin, k = last; r != 0 && k-- > 0;) {
    idx[k] = r % l.extent[k];
    r /= l.extent[k];
    xo += idx[k] * l.xs[k];
    vo += idx[k] * l.vs[k];
    oo += idx[k] * l.os[k];
    ao += idx[k] * l.as[k];
  }
  const int64_t xs = l.xs[last], vs = l.vs[last], os = l.os[last],
                as = l.as[last];
  int64_t loaded = kNone;   // alpha offset of the row in a32/a64
  bool t64_filled = false;  // a64 holds the row too (see below)
  bool positive = false;    // the loaded row's alphas allow them too
  for (int64_t row = begin; row < end; ++row) {
    const char* xp = p.x + xo * e;
    const char* vp = p.v + vo * e;
    char* op = p.out + oo * e;
    if (ao != loaded) {
      if (per_element) {
        // Where out's element falls in its 64-byte line, in alpha's units.
        // Kept while the row is: rows of whole lines (C = 64, 512) then
        // always start there; others would need a refill per call.
        shift = reinterpret_cast<uintptr_t>(op) / elem * alpha_size % 64 /
                alpha_size;
      }
      float* t32 = a32.data() + shift;
      double* t64 = a64.data() + shift;
      const char* ap = p.alpha + ao * static_cast<int64_t>(alpha_elem);
      if (!wide && p.alpha_dtype == LRELU_DTYPE_FLOAT32 && as == 1) {
        std::memcpy(t32, ap, distinct * sizeof(float));  // already float32
      } else if (!wide) {
        FillAlpha32(p.alpha_dtype, ap, as, distinct, t32, job);
      } else {
        for (size_t i = 0; i < distinct; ++i) {
          const double a = AlphaValue(
              p.alpha_dtype, ap + static_cast<int64_t>(i) * as *
                                      static_cast<int64_t>(alpha_elem));
          t64[i] = a;  // float64 x (narrow ones took FillAlpha32)
          t32[i] = AlphaFloat32(a);
        }
      }
      // Narrow dtypes compute with t32: t64 is filled from it only for the
      // rows that take the scalar-alpha kernels or the oracle (the exact
      // double of the float32 alpha: the same rounded value).
      t64_filled = wide;
      // The row repeated to fill the buffer, doubling the copied part.
      for (size_t done = distinct; done < buffered;) {
        const size_t k = std::min(done, buffered - done);
        if (wide) {
          std::memcpy(t64 + done, t64, k * sizeof(double));
        } else {
          std::memcpy(t32 + done, t32, k * sizeof(float));
        }
        done += k;
      }
      loaded = ao;
      positive =
          positive_kernels && per_element && AllPositiveFinite(t32, distinct);
    }
    const float* t32 = a32.data() + shift;
    double* t64 = a64.data() + shift;
    const uintptr_t misaligned =
        (reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(vp) |
         reinterpret_cast<uintptr_t>(op)) &
        (elem - 1);
    const bool dense = xs == 1 && vs == 1 && os == 1 && misaligned == 0;
    if (!t64_filled && !(dense && !job.reference && (per_element || planes))) {
      for (size_t i = 0; i < distinct; ++i) t64[i] = t32[i];
      t64_filled = true;
    }
    if (dense && !job.reference && per_element) {
      // With `fuse`, every following row of this task that shares alpha's
      // row, in one call.
      const int64_t k =
          fuse ? std::min(l.extent[last - 1] - idx[last - 1], end - row) : 1;
      (positive ? job.kernel_positive : job.kernel)(
          {vp, xp, op, wide ? nullptr : t32, wide ? t64 : nullptr,
           static_cast<size_t>(length * k), period});
      // The last call: nothing more to step. After a run longer than the
      // caches, the stepping's state would come back from memory.
      if (row + k >= end) break;
      if (k > 1) {  // skip to the last of the k rows; the step below moves on
        idx[last - 1] += k - 1;
        xo += (k - 1) * l.xs[last - 1];
        vo += (k - 1) * l.vs[last - 1];
        oo += (k - 1) * l.os[last - 1];
        row += k - 1;
      }
    } else if (dense && !job.reference && planes) {
      // Up to kPlaneRows short rows at once, each with its own alpha; from
      // an image's first channel, whole images at once (alpha wraps).
      const int64_t channels = l.extent[last - 1];
      const int64_t images = images_run && idx[last - 1] == 0
                                 ? std::min(l.extent[last - 2] - idx[last - 2],
                                            (end - row) / channels)
                                 : 0;
      const int64_t k =
          images > 0
              ? images * channels
              : std::min({kPlaneRows, channels - idx[last - 1], end - row});
      const int64_t loads = images > 0 ? channels : k;
      // alpha in the compute type, contiguous and aligned (float32 alpha
      // for float32 x, float64 for float64): read where it is. Copying
      // 512 of them cost 7 % of a 64 Ki-element call.
      const char* ap = p.alpha + ao * static_cast<int64_t>(alpha_elem);
      const bool direct =
          l.as[last - 1] == 1 &&
          p.alpha_dtype == (wide ? LRELU_DTYPE_FLOAT64 : LRELU_DTYPE_FLOAT32) &&
          reinterpret_cast<uintptr_t>(ap) % alpha_elem == 0;
      const float* a32p = plane_a32;
      const double* a64p = plane_a64;
      if (direct) {
        if (wide) {
          a64p = reinterpret_cast<const double*>(ap);
        } else {
          a32p = reinterpret_cast<const float*>(ap);
        }
      } else if (ao != plane_ao || loads > plane_k) {
        // The same alphas as the last call's (the next image of a batch):
        // already in the buffers.
        const char* first = p.alpha + ao * static_cast<int64_t>(alpha_elem);
        if (wide) {
          for (int64_t j = 0; j < loads; ++j) {
            plane_a64[static_cast<size_t>(j)] = AlphaValue(
                p.alpha_dtype,
                first + j * l.as[last - 1] * static_cast<int64_t>(alpha_elem));
          }
        } else {  // the narrow dtypes' kernels read float32 alphas only
          FillAlpha32(p.alpha_dtype, first, l.as[last - 1],
                      static_cast<size_t>(loads), plane_a32, job);
        }
        plane_ao = ao;
        plane_k = loads;
        plane_positive =
            positive_kernels && !wide &&
            AllPositiveFinite(plane_a32, static_cast<size_t>(loads));
      }
      (!direct && plane_positive ? job.planes_positive : job.planes)(
          {vp, xp, op, a32p, a64p, static_cast<size_t>(length),
           static_cast<size_t>(k), static_cast<size_t>(loads)});
      if (row + k >= end) break;  // the last call (see above)
      // To the last of the k rows; the step below moves on.
      const int64_t in_image = images > 0 ? channels - 1 : k - 1;
      if (images > 1) {
        idx[last - 2] += images - 1;
        xo += (images - 1) * l.xs[last - 2];
        vo += (images - 1) * l.vs[last - 2];
        oo += (images - 1) * l.os[last - 2];
      }
      idx[last - 1] += in_image;
      xo += in_image * l.xs[last - 1];
      vo += in_image * l.vs[last - 1];
      oo += in_image * l.os[last - 1];
      ao += in_image * l.as[last - 1];
      row += k - 1;
      loaded = kNone;  // a32/a64 no longer hold the row at ao
    } else if (dense && !job.reference) {
      // finite_alpha kernels need alpha (as float32) finite and nonzero.
      const float a = t32[0];
      const bool finite =
          wide ? (t64[0] - t64[0] == 0 && t64[0] != 0) : (a - a == 0 && a != 0);
      const int d = cpu::DTypeIndex(p.dtype);
      const cpu::KernelFn k = p.backward ? job.scalar->backward[d][0][finite]
                                         : job.scalar->forward[d][0][finite];
      k({vp, xp, op, static_cast<size_t>(length), a, t64[0], p.dtype});
    } else {
      for (int64_t i = 0; i < length; ++i) {
        reference::Apply(p.dtype, vp + i * vs * e, xp + i * xs * e,
                         op + i * os * e, 1, t64[per_element ? i : 0]);
      }
    }
    for (int k = last; k-- > 0;) {
      if (++idx[k] < l.extent[k]) {
        xo += l.xs[k];
        vo += l.vs[k];
        oo += l.os[k];
        ao += l.as[k];
        break;
      }
      const int64_t back = l.extent[k] - 1;
      xo -= back * l.xs[k];
      vo -= back * l.vs[k];
      oo -= back * l.os[k];
      ao -= back * l.as[k];
      idx[k] = 0;
    }
  }
  if (job.stream) cpu::FlushStreamedRows();
}

// RunRows over rows [begin, end), through the round trip where job has it:
// the invalid flag read around the task, and the task run again with the
// exact kernels where a signalling NaN raised it (x is not the output, so
// it is untouched).
void RunRowsChecked(const RowJob& job, int64_t begin, int64_t end) {
#if defined(__x86_64__) || defined(__i386__)
  if (job.checked) {
    cpu::DefaultFloatEnv env;  // the flag is read and set inside it
    const auto n = static_cast<size_t>(
        (end - begin) * job.layout->extent[job.layout->rank - 1]);
    cpu::RoundTripOrExact(
        n, cpu::ClearInvalidFlagFrom(), [&] { RunRows(job, begin, end, true); },
        [&] { RunRows(job, begin, end, false); });
    return;
  }
#endif
  RunRows(job, begin, end, job.kernel_positive != nullptr);
}

}  // namespace

RowLayout MergeRows(int rank, const int64_t* shape, const int64_t* xs,
                    const int64_t* vs, const int64_t* os, const int64_t* as) {
  RowLayout l;
  for (int k = 0; k < rank; ++k) {
    if (shape[k] == 1) continue;
    const int64_t e = shape[k];
    if (l.rank > 0) {
      const int m = l.rank - 1;
      if (l.xs[m] == xs[k] * e && l.vs[m] == vs[k] * e &&
          l.os[m] == os[k] * e && l.as[m] == as[k] * e) {
        l.extent[m] *= e;
        l.xs[m] = xs[k];
        l.vs[m] = vs[k];
        l.os[m] = os[k];
        l.as[m] = as[k];
        continue;
      }
    }
    l.extent[l.rank] = e;
    l.xs[l.rank] = xs[k];
    l.vs[l.rank] = vs[k];
    l.os[l.rank] = os[k];
    l.as[l.rank] = as[k];
    ++l.rank;
  }
  if (l.rank == 0) {  // one element
    l.rank = 1;
    l.extent[0] = 1;
    l.xs[0] = l.vs[0] = l.os[0] = 1;
    l.as[0] = 0;
  }
  return l;
}

RowLayout MergedLayout(const PreluPlan& p, const View& v, const View& out) {
  return MergeRows(static_cast<int>(p.x.shape.size()), p.x.shape.data(),
                   p.x.strides.data(), v.strides.data(), out.strides.data(),
                   p.alpha_strides_x.data());
}

RowOperands OperandsOf(const PreluPlan& p, const View& v, const View& out) {
  RowOperands ops;
  ops.dtype = p.dtype;
  ops.backward = p.backward;
  ops.x = p.x.data;
  ops.v = v.data;
  ops.out = out.data;
  ops.alpha = p.alpha.data;
  ops.alpha_dtype = p.alpha.dtype;
  ops.n = p.x.n;
  ops.threads = p.threads;
  ops.cpu_target = p.has_target ? p.cpu_target.c_str() : nullptr;
  ops.reference = p.has_variant && p.variant == "reference";
  return ops;
}

bool RowsAreDense(const RowLayout& l) {
  const int last = l.rank - 1;
  return l.xs[last] == 1 && l.vs[last] == 1 && l.os[last] == 1;
}

lrelu_status_t ExecuteRows(const RowOperands& p, const RowLayout& layout,
                           const lrelu_thread_pool_t* caller_pool) {
  int64_t target = cpu::RunnableTargets().front().bit;
  if (p.cpu_target != nullptr) {
    for (const cpu::Target& t : cpu::RunnableTargets()) {
      if (std::strcmp(p.cpu_target, t.name) == 0) target = t.bit;
    }
  }
  RowJob job{&p, &layout, nullptr, nullptr, nullptr, false, 0, 0};
  job.reference = p.reference;
  // Non-temporal stores for large outputs that are not an input (in place,
  // the lines are read anyway).
  const bool stream = static_cast<size_t>(p.n) * lrelu_dtype_size(p.dtype) >=
                          cpu::StreamBytes(1) &&
                      p.out != p.x && p.out != p.v;
  const int d = cpu::DTypeIndex(p.dtype);
  const cpu::PreluRowTable& rows = cpu::PreluRowsFor(target);
  job.stream = stream;
  job.kernel = rows.row[d][p.backward ? 1 : 0][stream ? 1 : 0];
  job.planes = rows.planes[d][p.backward ? 1 : 0][stream ? 1 : 0];
  job.scalar = &cpu::KernelsFor(target);
  job.widen = p.alpha_dtype == LRELU_DTYPE_BFLOAT16 ? rows.widen_bfloat16
                                                    : rows.widen_half;
  job.narrow = rows.narrow_float64;
  if (p.dtype == LRELU_DTYPE_FLOAT16 && !p.backward && p.out != p.x &&
      !p.reference && job.scalar->half_round_trip) {
    job.kernel_positive = rows.row_round_trip[stream ? 1 : 0];
    job.planes_positive = rows.planes_round_trip[stream ? 1 : 0];
    job.checked = true;
  }
  if (p.dtype == LRELU_DTYPE_BFLOAT16 && !p.backward && !p.reference) {
    job.kernel_positive = rows.row_bfloat16_positive[stream ? 1 : 0];
    job.planes_positive = rows.planes_bfloat16_positive[stream ? 1 : 0];
  }
  job.rows = p.n / layout.extent[layout.rank - 1];
  const lrelu_thread_pool_t* pool =
      caller_pool != nullptr ? caller_pool : &cpu::OwnThreadPool();
  const auto bytes = p.n * static_cast<int64_t>(lrelu_dtype_size(p.dtype)) *
                     (p.backward ? 3 : 2);
  auto tasks =
      static_cast<int64_t>(p.threads != 0 ? p.threads : pool->concurrency);
  tasks =
      std::min({tasks, job.rows, std::max<int64_t>(1, bytes / kMinTaskBytes)});
  if (tasks <= 1) {
    RunRowsChecked(job, 0, job.rows);
    return LRELU_STATUS_OK;
  }
  // lrelu's own pool runs pieces, claimed one by one as LeakyReLU's calls
  // do (cpu/tiling.h): with two halves, a worker that woke late held up the
  // whole call (2 threads, 1 Mi elements in cache: 1.3x LeakyReLU's time).
  // A caller's pool gets one task per thread.
  const bool own = caller_pool == nullptr;
  const int64_t pieces =
      own ? std::min<int64_t>(job.rows,
                              static_cast<int64_t>(cpu::ChoosePieces(
                                  static_cast<size_t>(bytes),
                                  static_cast<size_t>(tasks), kMinTaskBytes)))
          : tasks;
  job.per_task = (job.rows + pieces - 1) / pieces;
  const lrelu_task_fn run = [](void* ctx, size_t i) {
    const auto& j = *static_cast<const RowJob*>(ctx);
    const int64_t b = static_cast<int64_t>(i) * j.per_task;
    const int64_t e = std::min(b + j.per_task, j.rows);
    if (b < e) RunRowsChecked(j, b, e);
  };
  if (own) {
    cpu::OwnParallelFor(run, &job, static_cast<size_t>(pieces),
                        static_cast<size_t>(tasks));
  } else {
    pool->parallel_for(pool->pool_context, run, &job,
                       static_cast<size_t>(tasks));
  }
  return LRELU_STATUS_OK;
}

}  // namespace lrelu::prelu_impl
