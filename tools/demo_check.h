// Part 2 of `lrelu demo`: runs the library on generated tensors of every
// dtype and checks each element against the reference oracle (src/reference).
#ifndef LRELU_TOOLS_DEMO_CHECK_H_
#define LRELU_TOOLS_DEMO_CHECK_H_

#include <cstddef>

namespace lrelu_cli {

// Prints one line per dtype; throws CliError if any element differs.
void RunSelfCheck(std::size_t threads);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_DEMO_CHECK_H_
