#include "gil.h"

#include <Python.h>
#include <pythread.h>

namespace lrelu_python {

bool ThisThreadHoldsGil() {
#if PY_VERSION_HEX >= 0x030D0000
  const PyThreadState* state = PyThreadState_GetUnchecked();
#else
  const PyThreadState* state = _PyThreadState_UncheckedGet();
#endif
  return state != nullptr && state->thread_id == PyThread_get_thread_ident();
}

}  // namespace lrelu_python
