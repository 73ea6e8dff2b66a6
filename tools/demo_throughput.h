// Part 3 of `lrelu demo`: a short table of leaky_relu throughput against
// memcpy of the same bytes.
#ifndef LRELU_TOOLS_DEMO_THROUGHPUT_H_
#define LRELU_TOOLS_DEMO_THROUGHPUT_H_

#include <cstddef>

namespace lrelu_cli {

// Prints the table; `threads` as in lrelu::Options (0 = all).
void RunThroughput(std::size_t threads);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_DEMO_THROUGHPUT_H_
