// lrelu itself, through its C ABI: the one-call entry point (planning
// included, what most callers pay) and the two-stage API (plan once, then
// lrelu_execute per call), each out of place and in place.
#include <string>

#include "contender.h"

namespace lrelu_bench {
namespace {

lrelu_tensor_t View(void* data, lrelu_dtype_t dtype, const int64_t* shape) {
  lrelu_tensor_t t;
  t.data = data;
  t.dtype = dtype;
  t.rank = 1;
  t.shape = shape;
  t.strides = nullptr;
  return t;
}

class Lrelu final : public Contender {
 public:
  Lrelu(bool planned, int threads, bool inplace)
      : Contender("lrelu",
                  std::string(planned ? "lrelu_execute (planned)"
                                      : "lrelu_leaky_relu (one call)") +
                      (inplace ? ", in-place" : ""),
                  threads, inplace),
        planned_(planned) {}
  ~Lrelu() override { Teardown(); }

  bool Supports(lrelu_dtype_t) const override { return true; }

  bool Setup(const Buffers& p, std::string* why) override {
    shape_ = static_cast<int64_t>(p.n);
    x_ = View(inplace() ? p.y : const_cast<void*>(p.x), p.dtype, &shape_);
    y_ = View(p.y, p.dtype, &shape_);
    lrelu_options_init(&options_);
    options_.threads = static_cast<size_t>(threads());
    if (!planned_) return true;
    // In place alternates alpha per call; a plan fixes alpha, so make two.
    for (int k = 0; k < (inplace() ? 2 : 1); ++k) {
      size_t ws = 0;
      const lrelu_status_t s = lrelu_leaky_relu_get_workspace_size(
          &x_, InPlaceAlpha(k), &y_, &options_, &ws, &plan_[k]);
      if (s != LRELU_STATUS_OK || ws != 0) {
        *why = s != LRELU_STATUS_OK ? lrelu_last_error()
                                    : "plan wants a workspace";
        return false;
      }
    }
    return true;
  }

  void Run(size_t call) override {
    // Statuses are checked once by the correctness pass; the timed loop
    // measures the calls only.
    if (planned_) {
      lrelu_execute(nullptr, 0, plan_[inplace() ? call % 2 : 0], nullptr);
    } else {
      lrelu_leaky_relu(&x_, inplace() ? InPlaceAlpha(call) : kAlpha, &y_,
                       &options_);
    }
  }

  void Teardown() override {
    for (auto& plan : plan_) {
      lrelu_executor_destroy(plan);
      plan = nullptr;
    }
  }

  std::string Info() const override {
    if (!plan_[0]) return {};
    return std::string(lrelu_executor_variant(plan_[0])) + " " +
           lrelu_executor_cpu_target(plan_[0]) + ", " +
           std::to_string(lrelu_executor_tasks(plan_[0])) + " task(s)";
  }

 private:
  bool planned_;
  int64_t shape_ = 0;
  lrelu_tensor_t x_{}, y_{};
  lrelu_options_t options_{};
  lrelu_executor_t* plan_[2] = {nullptr, nullptr};
};

}  // namespace

void AddLreluVariants(ContenderList* out) {
  for (int threads : {1, 2}) {
    for (bool inplace : {false, true}) {
      for (bool planned : {false, true}) {
        out->push_back(std::make_unique<Lrelu>(planned, threads, inplace));
      }
    }
  }
}

}  // namespace lrelu_bench
