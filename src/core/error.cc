#include "core/error.h"

#include <cstdarg>
#include <cstdio>

namespace lrelu {
namespace {

// Fixed size: recording an error must not allocate or fail.
thread_local char g_message[512];

}  // namespace

lrelu_status_t Fail(lrelu_status_t status, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(g_message, sizeof(g_message), format, args);
  va_end(args);
  return status;
}

void ClearError() { g_message[0] = '\0'; }

const char* LastError() { return g_message; }

}  // namespace lrelu
