// XNNPACK (Debian's 2022 snapshot): the leaky_relu_nc operator, f32 and f16.
// Creation and setup are untimed; a call is xnn_run_operator. One thread runs
// without a pool; two threads use pthreadpool_create(2).
#include <pthreadpool.h>
#include <xnnpack.h>

#include "contender.h"

namespace lrelu_bench {
namespace {

class Xnnpack final : public Contender {
 public:
  explicit Xnnpack(int threads)
      : Contender("XNNPACK", "leaky_relu_nc", threads, false) {}
  ~Xnnpack() override {
    Teardown();
    if (pool_) pthreadpool_destroy(pool_);
  }

  bool Supports(lrelu_dtype_t dtype) const override {
    return dtype == LRELU_DTYPE_FLOAT32 || dtype == LRELU_DTYPE_FLOAT16;
  }

  bool Setup(const Buffers& p, std::string* why) override {
    if (xnn_initialize(nullptr) != xnn_status_success) {
      *why = "xnn_initialize failed (CPU not supported?)";
      return false;
    }
    if (threads() > 1 && !pool_) pool_ = pthreadpool_create(threads());
    const float slope = static_cast<float>(kAlpha);
    // One channel, n rows: XNNPACK sees a dense array and tiles it itself.
    xnn_status s;
    if (p.dtype == LRELU_DTYPE_FLOAT32) {
      s = xnn_create_leaky_relu_nc_f32(1, 1, 1, slope, 0, &op_);
      if (s == xnn_status_success) {
        s = xnn_setup_leaky_relu_nc_f32(op_, p.n,
                                        static_cast<const float*>(p.x),
                                        static_cast<float*>(p.y), pool_);
      }
    } else {
      s = xnn_create_leaky_relu_nc_f16(1, 1, 1, slope, 0, &op_);
      if (s == xnn_status_success) {
        s = xnn_setup_leaky_relu_nc_f16(op_, p.n, p.x, p.y, pool_);
      }
    }
    if (s != xnn_status_success) {
      *why = "create/setup failed with xnn_status " + std::to_string(s);
      Teardown();
      return false;
    }
    return true;
  }

  void Run(size_t) override { xnn_run_operator(op_, pool_); }

  void Teardown() override {
    if (op_) xnn_delete_operator(op_);
    op_ = nullptr;
  }

 private:
  pthreadpool_t pool_ = nullptr;
  xnn_operator_t op_ = nullptr;
};

}  // namespace

void AddXnnpackVariants(ContenderList* out) {
  for (int threads : {1, 2}) out->push_back(std::make_unique<Xnnpack>(threads));
}

}  // namespace lrelu_bench
