// lrelu._lrelu: the extension behind the lrelu package. Binds the C ABI
// (lrelu.h) only: the ufunc, forward and gradient calls on NumPy arrays or
// DLPack tensors, threads, version and target queries.
#define LRELU_PYTHON_IMPORT_NUMPY
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dtypes.h"
#include "errors.h"
#include "lrelu/lrelu.h"
#include "numpy_api.h"
#include "prelu.h"
#include "tensor_view.h"
#include "threads.h"
#include "ufunc.h"

namespace nb = nanobind;

namespace lrelu_python {
namespace {

using Role = TensorView::Role;

lrelu_options_t OptionsFor(std::optional<size_t> threads) {
  lrelu_options_t options = CurrentOptions();
  if (threads) options.threads = *threads;
  return options;
}

void Forward(nb::handle x, double alpha, nb::handle y,
             std::optional<size_t> threads) {
  const TensorView x_view(x, Role::kInput, "x");
  const TensorView y_view(y, Role::kOutput, "y");
  const lrelu_options_t options = OptionsFor(threads);
  lrelu_status_t status;
  std::string message;
  {
    nb::gil_scoped_release release;
    status =
        lrelu_leaky_relu(x_view.tensor(), alpha, y_view.tensor(), &options);
    if (status != LRELU_STATUS_OK) message = lrelu_last_error();
  }
  if (status != LRELU_STATUS_OK) ThrowStatus(status, message);
}

void Backward(nb::handle dy, nb::handle s, double alpha, bool from_output,
              nb::handle dx, std::optional<size_t> threads) {
  const TensorView dy_view(dy, Role::kInput, "dy");
  const TensorView s_view(s, Role::kInput, from_output ? "y" : "x");
  const TensorView dx_view(dx, Role::kOutput, "dx");
  const lrelu_options_t options = OptionsFor(threads);
  const lrelu_grad_source_t source =
      from_output ? LRELU_GRAD_FROM_Y : LRELU_GRAD_FROM_X;
  lrelu_status_t status;
  std::string message;
  {
    nb::gil_scoped_release release;
    status = lrelu_leaky_relu_backward(dy_view.tensor(), s_view.tensor(), alpha,
                                       source, dx_view.tensor(), &options);
    if (status != LRELU_STATUS_OK) message = lrelu_last_error();
  }
  if (status != LRELU_STATUS_OK) ThrowStatus(status, message);
}

std::vector<std::string> CpuTargets() {
  std::vector<std::string> names;
  for (size_t i = 0; i < lrelu_cpu_target_count(); ++i) {
    names.emplace_back(lrelu_cpu_target_name(i));
  }
  return names;
}

// Records ml_dtypes.bfloat16's type number so that the ufunc can register a
// loop for it. ml_dtypes is optional: without it bfloat16 is unsupported.
std::string FindBFloat16() {
  try {
    nb::module_ ml_dtypes = nb::module_::import_("ml_dtypes");
    nb::module_ np = nb::module_::import_("numpy");
    nb::object dtype = np.attr("dtype")(ml_dtypes.attr("bfloat16"));
    SetBFloat16TypeNum(nb::cast<int>(dtype.attr("num")));
    return "";
  } catch (nb::python_error& e) {
    return e.what();
  }
}

}  // namespace
}  // namespace lrelu_python

NB_MODULE(_lrelu, m) {
  namespace lp = lrelu_python;
  if (_import_array() < 0 || _import_umath() < 0) throw nb::python_error();

  const std::string bfloat16_problem = lp::FindBFloat16();
  m.attr("bfloat16_unavailable_reason") =
      bfloat16_problem.empty() ? nb::none() : nb::str(bfloat16_problem.c_str());
  m.attr("ufunc") = lp::MakeUfunc();
  lp::BindPrelu(m);

  m.def("forward", &lp::Forward, nb::arg("x"), nb::arg("alpha"), nb::arg("y"),
        nb::arg("threads") = nb::none(),
        "y = x < 0 ? alpha * x : x into the existing y (NumPy array or DLPack "
        "tensor; y may be x for in place).");
  m.def("backward", &lp::Backward, nb::arg("dy"), nb::arg("s"),
        nb::arg("alpha"), nb::arg("from_output"), nb::arg("dx"),
        nb::arg("threads") = nb::none(),
        "dx = s < 0 ? alpha * dy : dy into the existing dx; s is x, or y when "
        "from_output (alpha > 0 only).");
  m.def(
      "data_ptr",
      [](nb::handle object) {
        const lp::TensorView view(object, lp::TensorView::Role::kInput, "x");
        return reinterpret_cast<uintptr_t>(view.tensor()->data);
      },
      nb::arg("x"),
      "The address lrelu reads x's first element from (shows that a DLPack "
      "import does not copy).");
  m.def("last_loop_held_gil", &lp::LastLoopHeldGil,
        "Whether the ufunc's most recent inner loop ran holding the GIL.");
  m.def("default_threads", &lp::DefaultThreads);
  m.def("set_default_threads", &lp::SetDefaultThreads, nb::arg("threads"));
  m.def("swap_thread_override", &lp::SwapThreadOverride, nb::arg("threads"));
  m.def("version", [] { return std::string(lrelu_version()); });
  m.def("contract_version", &lrelu_contract_version);
  m.def("cpu_targets", &lp::CpuTargets);
  m.def("cpu_targets_compiled",
        [] { return std::string(lrelu_cpu_targets_compiled()); });
  m.def("hardware_threads", &lrelu_hardware_threads);
  m.attr("default_alpha") = LRELU_DEFAULT_ALPHA;
}
