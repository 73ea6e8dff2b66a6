#include "autograd.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/autograd/VariableTypeUtils.h>
#include <torch/csrc/autograd/custom_function.h>

#include "kernels.h"

namespace lrelu_torch {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

bool WantsGradient(const at::Tensor& t) {
  return t.requires_grad() && at::GradMode::is_enabled();
}

// Through the dispatcher, so that a gradient of the gradient is recorded.
at::Tensor BackwardOp(const at::Tensor& dy, const at::Tensor& s, double alpha,
                      bool from_output) {
  static const auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("lrelu::leaky_relu_backward", "")
          .typed<at::Tensor(const at::Tensor&, const at::Tensor&, double,
                            bool)>();
  return op.call(dy, s, alpha, from_output);
}

void Save(AutogradContext* ctx, const at::Tensor& s, double alpha,
          bool from_output) {
  ctx->saved_data["alpha"] = alpha;
  ctx->saved_data["from_output"] = from_output;
  ctx->save_for_backward({s});
}

at::Tensor SavedBackward(AutogradContext* ctx, const at::Tensor& dy) {
  const variable_list saved = ctx->get_saved_variables();
  return BackwardOp(dy, saved[0], ctx->saved_data["alpha"].toDouble(),
                    ctx->saved_data["from_output"].toBool());
}

class LeakyReLUFunction : public torch::autograd::Function<LeakyReLUFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x,
                            double alpha) {
    Save(ctx, x, alpha, false);
    at::AutoDispatchBelowADInplaceOrView guard;
    return Forward(x, alpha);
  }
  static variable_list backward(AutogradContext* ctx, variable_list dy) {
    return {SavedBackward(ctx, dy[0]), at::Tensor()};
  }
};

class LeakyReLUInPlaceFunction
    : public torch::autograd::Function<LeakyReLUInPlaceFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, at::Tensor x, double alpha) {
    // From y when alpha > 0; at alpha == 0, y = -0 hides whether x was -0
    // (gradient dy) or negative (gradient 0): keep a copy of x.
    const bool from_output = alpha > 0;
    Save(ctx, from_output ? x : x.clone(), alpha, from_output);
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      ForwardInPlace(x, alpha);
    }
    ctx->mark_dirty({x});  // bumps the version counter
    return x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list dy) {
    return {SavedBackward(ctx, dy[0]), at::Tensor()};
  }
};

// Linear in dy with the same mask; zero derivative in s almost everywhere.
class BackwardFunction : public torch::autograd::Function<BackwardFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& dy,
                            const at::Tensor& s, double alpha,
                            bool from_output) {
    Save(ctx, s, alpha, from_output);
    at::AutoDispatchBelowADInplaceOrView guard;
    return Backward(dy, s, alpha, from_output);
  }
  static variable_list backward(AutogradContext* ctx, variable_list ddx) {
    return {SavedBackward(ctx, ddx[0]), at::Tensor(), at::Tensor(),
            at::Tensor()};
  }
};

}  // namespace

at::Tensor ForwardAutograd(const at::Tensor& x, double alpha) {
  if (WantsGradient(x)) return LeakyReLUFunction::apply(x, alpha);
  at::AutoDispatchBelowADInplaceOrView guard;
  return Forward(x, alpha);
}

at::Tensor& ForwardInPlaceAutograd(at::Tensor& x, double alpha) {
  if (WantsGradient(x)) {
    TORCH_CHECK_VALUE(alpha >= 0,
                      "lrelu.torch: in-place leaky_relu with "
                      "negative_slope ",
                      alpha,
                      " cannot be differentiated: "
                      "y no longer shows where x < 0; use inplace=False");
    LeakyReLUInPlaceFunction::apply(x, alpha);
    return x;
  }
  at::AutoDispatchBelowADInplaceOrView guard;
  ForwardInPlace(x, alpha);
  torch::autograd::increment_version(x);
  return x;
}

at::Tensor& ForwardOutAutograd(const at::Tensor& x, double alpha,
                               at::Tensor& y) {
  TORCH_CHECK(!WantsGradient(x) && !WantsGradient(y),
              "lrelu.leaky_relu(out=...) does not support automatic "
              "differentiation; use lrelu.torch.leaky_relu or detach first");
  at::AutoDispatchBelowADInplaceOrView guard;
  ForwardOut(x, alpha, y);
  torch::autograd::increment_version(y);
  return y;
}

at::Tensor BackwardAutograd(const at::Tensor& dy, const at::Tensor& s,
                            double alpha, bool from_output) {
  if (WantsGradient(dy) || WantsGradient(s)) {
    return BackwardFunction::apply(dy, s, alpha, from_output);
  }
  at::AutoDispatchBelowADInplaceOrView guard;
  return Backward(dy, s, alpha, from_output);
}

}  // namespace lrelu_torch
