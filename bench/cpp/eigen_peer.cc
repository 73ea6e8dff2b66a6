// Eigen 3.4: (x >= 0).select(x, alpha * x), as an Array expression (one
// thread; Array cannot thread) and as a Tensor expression (DefaultDevice for
// one thread, ThreadPoolDevice for two). Compiled with -march=native so that
// Eigen vectorizes for this CPU, as a user's build would.
#define EIGEN_USE_THREADS
#include <Eigen/Core>
#include <memory>
#include <unsupported/Eigen/CXX11/Tensor>

#include "contender.h"

namespace lrelu_bench {
namespace {

template <typename T>
void ArraySelect(const void* x, void* y, size_t n) {
  const Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> xa(
      static_cast<const T*>(x), static_cast<Eigen::Index>(n));
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> ya(
      static_cast<T*>(y), static_cast<Eigen::Index>(n));
  const T alpha = static_cast<T>(kAlpha);
  ya = (xa >= T(0)).select(xa, alpha * xa);
}

template <typename T, typename Device>
void TensorSelect(const void* x, void* y, size_t n, const Device& device) {
  const Eigen::TensorMap<Eigen::Tensor<const T, 1>> xt(
      static_cast<const T*>(x), static_cast<Eigen::Index>(n));
  Eigen::TensorMap<Eigen::Tensor<T, 1>> yt(static_cast<T*>(y),
                                           static_cast<Eigen::Index>(n));
  yt.device(device) =
      (xt >= xt.constant(T(0))).select(xt, xt * xt.constant(T(kAlpha)));
}

template <typename Device>
void TensorSelect(const Buffers& p, const Device& device) {
  switch (p.dtype) {
    case LRELU_DTYPE_FLOAT32:
      return TensorSelect<float>(p.x, p.y, p.n, device);
    case LRELU_DTYPE_FLOAT64:
      return TensorSelect<double>(p.x, p.y, p.n, device);
    case LRELU_DTYPE_FLOAT16:
      return TensorSelect<Eigen::half>(p.x, p.y, p.n, device);
    case LRELU_DTYPE_BFLOAT16:
      return TensorSelect<Eigen::bfloat16>(p.x, p.y, p.n, device);
  }
}

class EigenArray final : public Contender {
 public:
  EigenArray() : Contender("Eigen", "Array (x>=0).select(x, a*x)", 1, false) {}
  bool Supports(lrelu_dtype_t) const override { return true; }
  bool Setup(const Buffers& p, std::string*) override {
    p_ = p;
    return true;
  }
  void Run(size_t) override {
    switch (p_.dtype) {
      case LRELU_DTYPE_FLOAT32:
        return ArraySelect<float>(p_.x, p_.y, p_.n);
      case LRELU_DTYPE_FLOAT64:
        return ArraySelect<double>(p_.x, p_.y, p_.n);
      case LRELU_DTYPE_FLOAT16:
        return ArraySelect<Eigen::half>(p_.x, p_.y, p_.n);
      case LRELU_DTYPE_BFLOAT16:
        return ArraySelect<Eigen::bfloat16>(p_.x, p_.y, p_.n);
    }
  }

 private:
  Buffers p_{};
};

class EigenTensor final : public Contender {
 public:
  explicit EigenTensor(int threads)
      : Contender("Eigen",
                  threads > 1 ? "Tensor select, ThreadPoolDevice"
                              : "Tensor select, DefaultDevice",
                  threads, false) {}
  bool Supports(lrelu_dtype_t) const override { return true; }
  bool Setup(const Buffers& p, std::string*) override {
    p_ = p;
    if (threads() > 1 && !pool_) {
      pool_ = std::make_unique<Eigen::ThreadPool>(threads());
      device_ =
          std::make_unique<Eigen::ThreadPoolDevice>(pool_.get(), threads());
    }
    return true;
  }
  void Run(size_t) override {
    if (device_) {
      TensorSelect(p_, *device_);
    } else {
      TensorSelect(p_, Eigen::DefaultDevice());
    }
  }

 private:
  Buffers p_{};
  std::unique_ptr<Eigen::ThreadPool> pool_;
  std::unique_ptr<Eigen::ThreadPoolDevice> device_;
};

}  // namespace

void AddEigenVariants(ContenderList* out) {
  out->push_back(std::make_unique<EigenArray>());
  out->push_back(std::make_unique<EigenTensor>(1));
  out->push_back(std::make_unique<EigenTensor>(2));
}

}  // namespace lrelu_bench
