// The calling thread's last error message, behind lrelu_last_error().
#ifndef LRELU_SRC_CORE_ERROR_H_
#define LRELU_SRC_CORE_ERROR_H_

#include "lrelu/lrelu.h"

namespace lrelu {

// Records a printf-style message for the calling thread and returns status,
// so validation code can `return Fail(STATUS, "...", ...)`.
lrelu_status_t Fail(lrelu_status_t status, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

// Clears the calling thread's message. Entry points do not: the message is
// that of the thread's last FAILED call (lrelu.h); tests that want to see
// whether one call set a message clear it first.
void ClearError();

const char* LastError();

}  // namespace lrelu

#endif  // LRELU_SRC_CORE_ERROR_H_
