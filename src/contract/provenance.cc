// Build facts the loaded kernel reports in KernelMetadata; CMake passes them
// as definitions to this file alone, so a new revision recompiles nothing
// else.
#include "embedded.h"

#ifndef LRELU_SOURCE_REVISION
#define LRELU_SOURCE_REVISION "unknown"
#endif
#ifndef LRELU_BUILD_INFO
#define LRELU_BUILD_INFO "unknown"
#endif

namespace lrelu::contract {

const char kSourceRevision[] = LRELU_SOURCE_REVISION;
const char kBuildInfo[] = LRELU_BUILD_INFO;

}  // namespace lrelu::contract
