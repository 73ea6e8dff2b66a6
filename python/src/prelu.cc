#include "prelu.h"

#include <nanobind/stl/optional.h>

#include <memory>
#include <optional>
#include <string>

#include "errors.h"
#include "lrelu/lrelu.h"
#include "tensor_view.h"
#include "threads.h"

namespace nb = nanobind;

namespace lrelu_python {
namespace {

using Role = TensorView::Role;

lrelu_options_t OptionsWith(std::optional<size_t> threads) {
  lrelu_options_t options = CurrentOptions();
  if (threads) options.threads = *threads;
  return options;
}

void PreluForward(nb::handle x, nb::handle alpha, nb::handle y,
                  std::optional<size_t> threads) {
  const TensorView x_view(x, Role::kInput, "x");
  const TensorView alpha_view(alpha, Role::kInput, "alpha");
  const TensorView y_view(y, Role::kOutput, "y");
  const lrelu_options_t options = OptionsWith(threads);
  lrelu_status_t status;
  std::string message;
  {
    nb::gil_scoped_release release;
    status = lrelu_prelu(x_view.tensor(), alpha_view.tensor(), y_view.tensor(),
                         &options);
    if (status != LRELU_STATUS_OK) message = lrelu_last_error();
  }
  if (status != LRELU_STATUS_OK) ThrowStatus(status, message);
}

// dx and dalpha may be None (not computed).
void PreluBackward(nb::handle dy, nb::handle x, nb::handle alpha, nb::handle dx,
                   nb::handle dalpha, std::optional<size_t> threads) {
  const TensorView dy_view(dy, Role::kInput, "dy");
  const TensorView x_view(x, Role::kInput, "x");
  const TensorView alpha_view(alpha, Role::kInput, "alpha");
  std::unique_ptr<TensorView> dx_view, dalpha_view;
  if (!dx.is_none()) {
    dx_view = std::make_unique<TensorView>(dx, Role::kOutput, "dx");
  }
  if (!dalpha.is_none()) {
    dalpha_view = std::make_unique<TensorView>(dalpha, Role::kOutput, "dalpha");
  }
  const lrelu_options_t options = OptionsWith(threads);
  lrelu_status_t status;
  std::string message;
  {
    nb::gil_scoped_release release;
    status = lrelu_prelu_backward(
        dy_view.tensor(), x_view.tensor(), alpha_view.tensor(),
        dx_view ? dx_view->tensor() : nullptr,
        dalpha_view ? dalpha_view->tensor() : nullptr, &options);
    if (status != LRELU_STATUS_OK) message = lrelu_last_error();
  }
  if (status != LRELU_STATUS_OK) ThrowStatus(status, message);
}

}  // namespace

void BindPrelu(nb::module_& m) {
  m.def("prelu_forward", &PreluForward, nb::arg("x"), nb::arg("alpha"),
        nb::arg("y"), nb::arg("threads") = nb::none(),
        "y = x < 0 ? alpha * x : x with alpha broadcast to x (writes y).");
  m.def("prelu_backward", &PreluBackward, nb::arg("dy"), nb::arg("x"),
        nb::arg("alpha"), nb::arg("dx").none(), nb::arg("dalpha").none(),
        nb::arg("threads") = nb::none(),
        "dx and the exactly rounded dalpha (either may be None).");
}

}  // namespace lrelu_python
