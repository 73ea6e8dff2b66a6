// lrelu C++ API: a thin, header-only RAII layer over the C ABI in lrelu.h
// (the dnnl.hpp-over-dnnl.h pattern), so C++ users get exceptions, owning
// tensors and overloads while the boundary stays a stable C ABI.
//
// Public function names are snake_case to match the C ABI and the Python
// package (lrelu.leaky_relu); types are CamelCase.
#ifndef LRELU_LRELU_HPP_
#define LRELU_LRELU_HPP_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lrelu/lrelu.h"

namespace lrelu {

// Element types; values equal lrelu_dtype_t.
enum class DType : int {
  kFloat32 = LRELU_DTYPE_FLOAT32,
  kFloat16 = LRELU_DTYPE_FLOAT16,
  kBFloat16 = LRELU_DTYPE_BFLOAT16,
  kFloat64 = LRELU_DTYPE_FLOAT64,
};

// Which tensor the gradient takes its sign from (see lrelu_grad_source_t).
enum class GradSource : int {
  kFromX = LRELU_GRAD_FROM_X,
  kFromY = LRELU_GRAD_FROM_Y,
};

constexpr double kDefaultAlpha = LRELU_DEFAULT_ALPHA;

// Bytes per element of `dtype` (0 for an unknown value).
inline std::size_t dtype_size(DType dtype) {
  return lrelu_dtype_size(static_cast<lrelu_dtype_t>(dtype));
}

// "float32", ...; "unknown" for a value outside DType.
inline std::string dtype_name(DType dtype) {
  const char* name = lrelu_dtype_name(static_cast<lrelu_dtype_t>(dtype));
  return name != nullptr ? name : "unknown";
}

// Thrown by every function here when the C call fails. what() is the
// one-line message from lrelu_last_error(); status() the C status.
class Error : public std::runtime_error {
 public:
  Error(lrelu_status_t status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  lrelu_status_t status() const { return status_; }

 private:
  lrelu_status_t status_;
};

// Throws lrelu::Error for any status other than LRELU_STATUS_OK.
inline void check(lrelu_status_t status) {
  if (status != LRELU_STATUS_OK) throw Error(status, lrelu_last_error());
}

// A non-owning view: data pointer, dtype, shape and strides in elements
// (empty strides = C-contiguous). The view owns its shape and strides, so it
// may be built from temporaries.
struct TensorView {
  void* data = nullptr;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;

  TensorView() = default;
  TensorView(void* data_, DType dtype_, std::vector<int64_t> shape_,
             std::vector<int64_t> strides_ = {})
      : data(data_),
        dtype(dtype_),
        shape(std::move(shape_)),
        strides(std::move(strides_)) {}

  // The C view; valid while this object lives and is not modified.
  lrelu_tensor_t c_view() const {
    lrelu_tensor_t t;
    t.data = data;
    t.dtype = static_cast<lrelu_dtype_t>(dtype);
    t.rank = static_cast<int32_t>(shape.size());
    t.shape = shape.empty() ? nullptr : shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    return t;
  }
};

// An owning, C-contiguous tensor with 64-byte-aligned storage.
class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, std::vector<int64_t> shape)
      : dtype_(dtype), shape_(std::move(shape)) {
    std::size_t count = 1;
    for (int64_t d : shape_) {
      if (d < 0)
        throw Error(LRELU_STATUS_INVALID_ARGUMENT, "negative dimension");
      if (d != 0 && count > SIZE_MAX / static_cast<std::size_t>(d)) {
        throw Error(LRELU_STATUS_SIZE_OVERFLOW, "element count overflows");
      }
      count *= static_cast<std::size_t>(d);
    }
    const std::size_t elem = dtype_size(dtype);
    if (elem == 0)
      throw Error(LRELU_STATUS_UNSUPPORTED_DTYPE, "unsupported dtype");
    if (count > SIZE_MAX / elem - 64) {
      throw Error(LRELU_STATUS_SIZE_OVERFLOW, "byte size overflows");
    }
    bytes_ = count * elem;
    if (bytes_ > 0) {
      // aligned_alloc needs a size that is a multiple of the alignment.
      void* p = std::aligned_alloc(64, (bytes_ + 63) / 64 * 64);
      if (p == nullptr)
        throw Error(LRELU_STATUS_OUT_OF_MEMORY, "out of memory");
      data_.reset(static_cast<unsigned char*>(p));
    }
  }

  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }
  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  std::size_t size_bytes() const { return bytes_; }
  std::size_t numel() const {
    const std::size_t elem = dtype_size(dtype_);
    return elem == 0 ? 0 : bytes_ / elem;
  }
  // A view of the whole tensor (mutable: the tensor owns the memory).
  TensorView view() const { return TensorView(data_.get(), dtype_, shape_); }

 private:
  struct Free {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  DType dtype_ = DType::kFloat32;
  std::vector<int64_t> shape_;
  std::size_t bytes_ = 0;
  std::unique_ptr<unsigned char, Free> data_;
};

// Per-call options (see lrelu_options_t).
struct Options {
  std::size_t threads = 0;  // 0 = all hardware threads
  const lrelu_thread_pool_t* thread_pool = nullptr;
  std::string variant;     // "" = auto; "reference", "contiguous", "strided"
  std::string cpu_target;  // "" = best supported
  // Device backends (see lrelu_backend_t): where data lives and runs.
  lrelu_backend_t backend = LRELU_BACKEND_CPU;
  void* stream = nullptr;  // CUDA: cudaStream_t (NULL = default stream)
  int device = 0;          // index in [0, device_count(backend))

  lrelu_options_t c_options() const {
    lrelu_options_t o;
    lrelu_options_init(&o);
    o.threads = threads;
    o.thread_pool = thread_pool;
    o.variant = variant.empty() ? nullptr : variant.c_str();
    o.cpu_target = cpu_target.empty() ? nullptr : cpu_target.c_str();
    o.backend = backend;
    o.stream = stream;
    o.device = static_cast<int32_t>(device);
    return o;
  }
};

// y = x < 0 ? alpha * x : x. y may be x (in-place). Arguments in the C
// ABI's order (x, alpha, y), as Executor::forward.
inline void leaky_relu(const TensorView& x, double alpha, const TensorView& y,
                       const Options& options = Options()) {
  const lrelu_tensor_t cx = x.c_view();
  const lrelu_tensor_t cy = y.c_view();
  const lrelu_options_t o = options.c_options();
  check(lrelu_leaky_relu(&cx, alpha, &cy, &o));
}

// The same with y before alpha: the order of lrelu 0.1's first C++ layer,
// kept so that existing callers still compile. New code uses the order
// above.
inline void leaky_relu(const TensorView& x, const TensorView& y,
                       double alpha = kDefaultAlpha,
                       const Options& options = Options()) {
  leaky_relu(x, alpha, y, options);
}

// Allocates y with x's shape and dtype and returns it.
inline Tensor leaky_relu(const TensorView& x, double alpha = kDefaultAlpha,
                         const Options& options = Options()) {
  Tensor y(x.dtype, x.shape);
  leaky_relu(x, alpha, y.view(), options);
  return y;
}

// dx = s < 0 ? alpha * dy : dy with s = x (or y, for alpha > 0). Arguments
// in the C ABI's order (dy, s, alpha, source, dx), as Executor::backward.
inline void leaky_relu_backward(const TensorView& dy, const TensorView& s,
                                double alpha, GradSource source,
                                const TensorView& dx,
                                const Options& options = Options()) {
  const lrelu_tensor_t cdy = dy.c_view();
  const lrelu_tensor_t cs = s.c_view();
  const lrelu_tensor_t cdx = dx.c_view();
  const lrelu_options_t o = options.c_options();
  check(lrelu_leaky_relu_backward(
      &cdy, &cs, alpha, static_cast<lrelu_grad_source_t>(source), &cdx, &o));
}

// The same with dx before alpha (lrelu 0.1's first order), kept so that
// existing callers still compile. New code uses the order above.
inline void leaky_relu_backward(const TensorView& dy, const TensorView& s,
                                const TensorView& dx,
                                double alpha = kDefaultAlpha,
                                GradSource source = GradSource::kFromX,
                                const Options& options = Options()) {
  leaky_relu_backward(dy, s, alpha, source, dx, options);
}

// Allocates dx with dy's shape and dtype and returns it.
inline Tensor leaky_relu_backward(const TensorView& dy, const TensorView& s,
                                  double alpha = kDefaultAlpha,
                                  GradSource source = GradSource::kFromX,
                                  const Options& options = Options()) {
  Tensor dx(dy.dtype, dy.shape);
  leaky_relu_backward(dy, s, alpha, source, dx.view(), options);
  return dx;
}

// PReLU (contract ai.onnx.PRelu v1): y = x < 0 ? alpha * x : x with alpha
// a tensor broadcast to x (see lrelu_prelu). y may be x (in-place).
inline void prelu(const TensorView& x, const TensorView& alpha,
                  const TensorView& y, const Options& options = Options()) {
  const lrelu_tensor_t cx = x.c_view();
  const lrelu_tensor_t ca = alpha.c_view();
  const lrelu_tensor_t cy = y.c_view();
  const lrelu_options_t o = options.c_options();
  check(lrelu_prelu(&cx, &ca, &cy, &o));
}

// Allocates y with x's shape and dtype and returns it.
inline Tensor prelu(const TensorView& x, const TensorView& alpha,
                    const Options& options = Options()) {
  Tensor y(x.dtype, x.shape);
  prelu(x, alpha, y.view(), options);
  return y;
}

// PReLU's gradient: dx and the exactly rounded dalpha (see
// lrelu_prelu_backward); either pointer may be nullptr (not computed).
inline void prelu_backward(const TensorView& dy, const TensorView& x,
                           const TensorView& alpha, const TensorView* dx,
                           const TensorView* dalpha,
                           const Options& options = Options()) {
  const lrelu_tensor_t cdy = dy.c_view();
  const lrelu_tensor_t cx = x.c_view();
  const lrelu_tensor_t ca = alpha.c_view();
  lrelu_tensor_t cdx{}, cda{};
  if (dx != nullptr) cdx = dx->c_view();
  if (dalpha != nullptr) cda = dalpha->c_view();
  const lrelu_options_t o = options.c_options();
  check(lrelu_prelu_backward(&cdy, &cx, &ca, dx != nullptr ? &cdx : nullptr,
                             dalpha != nullptr ? &cda : nullptr, &o));
}

// The two-stage call as an RAII object: construct (stage one: validate and
// plan), then execute() any number of times (stage two).
class Executor {
 public:
  // Plans y = leaky_relu(x, alpha).
  static Executor forward(const TensorView& x, double alpha,
                          const TensorView& y,
                          const Options& options = Options()) {
    const lrelu_tensor_t cx = x.c_view();
    const lrelu_tensor_t cy = y.c_view();
    const lrelu_options_t o = options.c_options();
    Executor e;
    check(lrelu_leaky_relu_get_workspace_size(&cx, alpha, &cy, &o,
                                              &e.workspace_size_, &e.raw_));
    return e;
  }

  // Plans dx = leaky_relu_backward(dy, s, alpha, source).
  static Executor backward(const TensorView& dy, const TensorView& s,
                           double alpha, GradSource source,
                           const TensorView& dx,
                           const Options& options = Options()) {
    const lrelu_tensor_t cdy = dy.c_view();
    const lrelu_tensor_t cs = s.c_view();
    const lrelu_tensor_t cdx = dx.c_view();
    const lrelu_options_t o = options.c_options();
    Executor e;
    check(lrelu_leaky_relu_backward_get_workspace_size(
        &cdy, &cs, alpha, static_cast<lrelu_grad_source_t>(source), &cdx, &o,
        &e.workspace_size_, &e.raw_));
    return e;
  }

  Executor(Executor&& other) noexcept
      : raw_(std::exchange(other.raw_, nullptr)),
        workspace_size_(other.workspace_size_) {}
  Executor& operator=(Executor&& other) noexcept {
    if (this != &other) {
      lrelu_executor_destroy(raw_);
      raw_ = std::exchange(other.raw_, nullptr);
      workspace_size_ = other.workspace_size_;
    }
    return *this;
  }
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  ~Executor() { lrelu_executor_destroy(raw_); }

  std::size_t workspace_size() const { return workspace_size_; }
  // Runs the plan; allocates the workspace itself when none is given.
  void execute(void* workspace = nullptr, std::size_t workspace_bytes = 0,
               const lrelu_thread_pool_t* thread_pool = nullptr) {
    std::vector<unsigned char> own;
    if (workspace == nullptr && workspace_size_ > 0) {
      own.resize(workspace_size_);
      workspace = own.data();
      workspace_bytes = own.size();
    }
    check(lrelu_execute(workspace, workspace_bytes, raw_, thread_pool));
  }
  // Points a forward plan at new data of the same layout
  // (lrelu_executor_bind): plan once, bind per call, execute.
  void bind(const void* x, void* y) {
    void* const data[] = {const_cast<void*>(x), y};
    check(lrelu_executor_bind(raw_, data, 2));
  }
  // The same for a gradient plan: dy, s (x or y, as planned), dx.
  void bind(const void* dy, const void* s, void* dx) {
    void* const data[] = {const_cast<void*>(dy), const_cast<void*>(s), dx};
    check(lrelu_executor_bind(raw_, data, 3));
  }
  std::string variant() const { return lrelu_executor_variant(raw_); }
  // SIMD target ("" on a device backend) and the device that runs the plan.
  std::string cpu_target() const { return lrelu_executor_cpu_target(raw_); }
  std::string device() const { return lrelu_executor_device(raw_); }
  std::size_t tasks() const { return lrelu_executor_tasks(raw_); }
  lrelu_executor_t* get() const { return raw_; }

 private:
  Executor() = default;
  lrelu_executor_t* raw_ = nullptr;
  std::size_t workspace_size_ = 0;
};

// Library facts for `lrelu info` and the like.
inline std::string version() { return lrelu_version(); }
inline int contract_version() { return lrelu_contract_version(); }
inline std::vector<std::string> cpu_targets() {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < lrelu_cpu_target_count(); ++i) {
    names.emplace_back(lrelu_cpu_target_name(i));
  }
  return names;
}

// Device backends: built in? devices now? their names.
inline bool backend_available(lrelu_backend_t backend) {
  return lrelu_backend_available(backend) != 0;
}
inline int device_count(lrelu_backend_t backend) {
  return lrelu_device_count(backend);
}
inline std::vector<std::string> device_names(lrelu_backend_t backend) {
  std::vector<std::string> names;
  for (int i = 0; i < lrelu_device_count(backend); ++i) {
    const char* name = lrelu_device_name(backend, i);
    names.emplace_back(name != nullptr ? name : "");
  }
  return names;
}
// The variants options.variant can force (lrelu_backend_variant).
inline std::vector<std::string> backend_variants(lrelu_backend_t backend) {
  std::vector<std::string> names;
  for (std::size_t i = 0; lrelu_backend_variant(backend, i) != nullptr; ++i) {
    names.emplace_back(lrelu_backend_variant(backend, i));
  }
  return names;
}
// "" when the backend has a device, else why not.
inline std::string backend_unavailable_reason(lrelu_backend_t backend) {
  return lrelu_backend_unavailable_reason(backend);
}

// Kernel source for target "wgsl", "opencl" or "cuda" (lrelu_kernel_source).
inline std::string kernel_source(const std::string& target, DType dtype,
                                 const std::string& variant,
                                 uint32_t workgroup_size = 0) {
  const auto d = static_cast<lrelu_dtype_t>(dtype);
  std::size_t length = 0;
  check(lrelu_kernel_source(target.c_str(), d, variant.c_str(), workgroup_size,
                            nullptr, 0, &length));
  std::string text(length + 1, '\0');
  check(lrelu_kernel_source(target.c_str(), d, variant.c_str(), workgroup_size,
                            text.data(), text.size(), &length));
  text.resize(length);
  return text;
}

}  // namespace lrelu

#endif  // LRELU_LRELU_HPP_
