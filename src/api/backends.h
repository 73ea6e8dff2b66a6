// The backend table: one row per lrelu_backend_t, CPU first. Selection,
// the info entry points (lrelu_backend_name, lrelu_device_count, ...) and
// through them the CLI's lists read it.
#ifndef LRELU_SRC_API_BACKENDS_H_
#define LRELU_SRC_API_BACKENDS_H_

#include <string>

#include "core/backend.h"
#include "lrelu/lrelu.h"

namespace lrelu {

// The row of backend; nullptr for a value that names no backend.
const Backend* BackendAt(lrelu_backend_t backend);

// "cpu 0, cuda 1, opencl 2": every backend with its lrelu_backend_t value.
std::string BackendList();

}  // namespace lrelu

#endif  // LRELU_SRC_API_BACKENDS_H_
