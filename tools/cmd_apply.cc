// lrelu apply IN.npy -o OUT.npy: applies LeakyReLU to a .npy file.
//
// The data is streamed in chunks of kChunkBytes, so memory use is bounded
// and files larger than RAM work. The op is elementwise, so chunks are
// processed in file order whatever the memory order (C or Fortran). The
// output appears all at once (AtomicOutput) or not at all.
#include <algorithm>
#include <cerrno>
#include <memory>
#include <string>
#include <utility>

#include "atomic_output.h"
#include "backends.h"
#include "byte_swap.h"
#include "commands.h"
#include "errors.h"
#include "input_file.h"
#include "lrelu/lrelu.hpp"
#include "npy.h"
#include "npy_dtype.h"
#include "parse_args.h"
#include "prelu_file.h"

namespace lrelu_cli {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{8} << 20;

// Runs the library once on one element, so that a bad --variant or
// --cpu-target is reported before any output exists, even for an empty
// array (the PReLU route; LeakyReLU's chunk loop plans up front instead).
void CheckOptions(lrelu::DType dtype, double alpha,
                  const lrelu::Options& options) {
  alignas(8) unsigned char element[8] = {};
  const lrelu::TensorView view(element, dtype, {1});
  try {
    lrelu::leaky_relu(view, alpha, view, options);
  } catch (const lrelu::Error& e) {
    throw CliError(std::string("the options are not usable: ") + e.what());
  }
}

// The chunk loop: one buffer, planned before any output exists (so a bad
// --variant or --cpu-target is reported first, even for an empty array).
// Every full chunk runs the same plan on the same buffer; only a shorter
// last chunk is planned again.
class ChunkLoop {
 public:
  ChunkLoop(const NpyHeader& header, double alpha,
            const lrelu::Options& options)
      : header_(header),
        alpha_(alpha),
        options_(options),
        chunk_elements_(std::min<uint64_t>(kChunkBytes / header.item_size,
                                           header.element_count)),
        buffer_(ToDType(header.type), {static_cast<int64_t>(chunk_elements_)}),
        full_chunk_(Plan(chunk_elements_)) {}

  // Reads, computes and writes the data chunk by chunk.
  void Run(const InputFile& input, AtomicOutput& output) {
    const bool swap = header_.big_endian != kNativeBigEndian;
    for (uint64_t first = 0; first < header_.element_count;) {
      const auto count = static_cast<std::size_t>(
          std::min<uint64_t>(chunk_elements_, header_.element_count - first));
      try {
        ReadNpyData(input.fd(), header_, first, count, buffer_.data());
      } catch (const NpyError& e) {
        throw CliError(Quote(input.path()) + ": " + e.what());
      }
      if (swap) SwapBytes(buffer_.data(), count, header_.item_size);
      if (count == chunk_elements_) {
        full_chunk_.execute();
      } else {
        Plan(count).execute();
      }
      if (swap) SwapBytes(buffer_.data(), count, header_.item_size);
      output.Write(buffer_.data(), count * header_.item_size);
      first += count;
    }
  }

 private:
  // In place on the first count elements of the buffer.
  lrelu::Executor Plan(uint64_t count) {
    const lrelu::TensorView view(buffer_.data(), buffer_.dtype(),
                                 {static_cast<int64_t>(count)});
    try {
      return lrelu::Executor::forward(view, alpha_, view, options_);
    } catch (const lrelu::Error& e) {
      throw CliError(std::string("the options are not usable: ") + e.what());
    }
  }

  const NpyHeader& header_;
  double alpha_;
  const lrelu::Options& options_;
  uint64_t chunk_elements_;
  lrelu::Tensor buffer_;
  lrelu::Executor full_chunk_;
};

// The CUDA backend takes device pointers and this tool holds the data in
// host memory (it does not link the CUDA runtime), so it refuses CUDA up
// front: with the reason there is no device when there is none, else with
// where CUDA can be used instead.
void RefuseCuda() {
  const BackendInfo cuda = QueryBackend(LRELU_BACKEND_CUDA);
  if (!cuda.available) {
    throw CliError("--backend cuda is not usable here: " +
                   cuda.unavailable_reason);
  }
  throw UsageError(
      "--backend cuda needs device memory; use the C API or Python "
      "(lrelu.leaky_relu on a CUDA tensor) for CUDA, or --backend opencl "
      "for a device backend on host data");
}

}  // namespace

void RunApply(const ApplyArgs& args) {
  const double alpha = ParseAlpha(args.alpha);
  lrelu::Options options;
  options.threads = ParseThreads(args.threads);
  options.variant = args.variant;
  options.cpu_target = args.cpu_target;
  options.backend = BackendFromName(args.backend);
  // Device indices are small; the cap keeps the int conversion exact.
  options.device =
      static_cast<int>(ParseCount(args.device, "--device", 0, 1 << 20));
  if (options.backend == LRELU_BACKEND_CUDA) RefuseCuda();
  if (args.output_given && args.output.empty()) {
    throw UsageError("the output path is empty");
  }
  if (args.output.empty() && !args.in_place) {
    throw UsageError("no output file: give -o OUT.npy, or --in-place");
  }
  InstallSignalCleanup();

  const InputFile input(args.input);
  NpyHeader header;
  try {
    header = ReadNpyHeader(input.fd(),
                           static_cast<uint64_t>(input.status().st_size));
  } catch (const NpyError& e) {
    throw CliError(Quote(args.input) + ": " + e.what());
  }

  OutputFile file =
      ResolveOutput(args.output.empty() ? args.input : args.output);
  const bool same_file = file.exists &&
                         file.status.st_dev == input.status().st_dev &&
                         file.status.st_ino == input.status().st_ino;
  if (same_file && !args.in_place) {
    throw UsageError("the output " + Quote(args.output) +
                     " is the input file " + Quote(args.input) +
                     "; pass --in-place to replace it");
  }
  std::unique_ptr<ChunkLoop> chunks;
  if (args.alpha_file.empty()) {
    chunks = std::make_unique<ChunkLoop>(header, alpha, options);
  } else {
    CheckOptions(ToDType(header.type), alpha, options);
  }

  AtomicOutput output(std::move(file));
  const std::string preamble = FormatNpyHeader(header);
  output.Write(preamble.data(), preamble.size());
  if (chunks != nullptr) {
    chunks->Run(input, output);
  } else {
    ApplyPreluFile(input.fd(), args.input, header, args.alpha_file, options,
                   output);
  }
  output.Commit();
}

}  // namespace lrelu_cli
