// lrelu apply --alpha-file A.npy: PReLU on a .npy file, alpha from another
// .npy file broadcast to the input (ONNX's unidirectional rule).
#ifndef LRELU_TOOLS_PRELU_FILE_H_
#define LRELU_TOOLS_PRELU_FILE_H_

#include <string>

#include "atomic_output.h"
#include "lrelu/lrelu.hpp"
#include "npy.h"

namespace lrelu_cli {

// Reads the whole input (fd, with this header) and the alpha file, runs
// lrelu::prelu once and writes the data (not the header) to output, in the
// input's byte order. alpha has the input's dtype, or float64 for a float16
// or float32 input. Throws CliError or lrelu::Error.
void ApplyPreluFile(int input_fd, const std::string& input_path,
                    const NpyHeader& header, const std::string& alpha_path,
                    const lrelu::Options& options, AtomicOutput& output);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_PRELU_FILE_H_
