// Part 1 of `lrelu demo`: the contract's examples, computed by the library.
#ifndef LRELU_TOOLS_DEMO_EXAMPLES_H_
#define LRELU_TOOLS_DEMO_EXAMPLES_H_

#include <string>

namespace lrelu_cli {

// Shortest decimal text that reads back as `value` ("-0.02", "-0", "nan").
std::string ShortFloat(float value);

// Prints the examples to stdout.
void PrintExamples();

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_DEMO_EXAMPLES_H_
