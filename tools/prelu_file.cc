#include "prelu_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "byte_swap.h"
#include "errors.h"
#include "npy_dtype.h"

namespace lrelu_cli {
namespace {

// Element strides of the file's layout (C order, or Fortran: reversed).
std::vector<int64_t> StridesOf(const NpyHeader& h) {
  std::vector<int64_t> strides(h.shape.size());
  int64_t step = 1;
  if (h.fortran_order) {
    for (size_t i = 0; i < h.shape.size(); ++i) {
      strides[i] = step;
      step *= h.shape[i] > 0 ? h.shape[i] : 1;
    }
  } else {
    for (size_t i = h.shape.size(); i-- > 0;) {
      strides[i] = step;
      step *= h.shape[i] > 0 ? h.shape[i] : 1;
    }
  }
  return strides;
}

// The whole data of a .npy file, in native byte order.
std::vector<unsigned char> ReadAll(int fd, const std::string& path,
                                   const NpyHeader& h) {
  std::vector<unsigned char> data(static_cast<size_t>(h.data_bytes));
  if (h.element_count > 0) {
    try {
      ReadNpyData(fd, h, 0, static_cast<size_t>(h.element_count), data.data());
    } catch (const NpyError& e) {
      throw CliError(Quote(path) + ": " + e.what());
    }
  }
  if (h.big_endian != kNativeBigEndian) {
    SwapBytes(data.data(), static_cast<size_t>(h.element_count), h.item_size);
  }
  return data;
}

}  // namespace

void ApplyPreluFile(int input_fd, const std::string& input_path,
                    const NpyHeader& header, const std::string& alpha_path,
                    const lrelu::Options& options, AtomicOutput& output) {
  const int alpha_fd = open(alpha_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (alpha_fd < 0) {
    throw CliError("cannot open the alpha file " + Quote(alpha_path) + ": " +
                   ErrnoText(errno));
  }
  NpyHeader alpha_header;
  std::vector<unsigned char> alpha;
  try {
    struct stat st {};
    if (fstat(alpha_fd, &st) != 0) {
      throw CliError("cannot stat the alpha file " + Quote(alpha_path) + ": " +
                     ErrnoText(errno));
    }
    try {
      alpha_header = ReadNpyHeader(alpha_fd, static_cast<uint64_t>(st.st_size));
    } catch (const NpyError& e) {
      throw CliError(Quote(alpha_path) + ": " + e.what());
    }
    alpha = ReadAll(alpha_fd, alpha_path, alpha_header);
  } catch (...) {
    close(alpha_fd);
    throw;
  }
  close(alpha_fd);
  std::vector<unsigned char> x = ReadAll(input_fd, input_path, header);
  const lrelu::TensorView xv(x.data(), ToDType(header.type), header.shape,
                             StridesOf(header));
  const lrelu::TensorView av(alpha.data(), ToDType(alpha_header.type),
                             alpha_header.shape, StridesOf(alpha_header));
  try {
    lrelu::prelu(xv, av, xv, options);  // in place
  } catch (const lrelu::Error& e) {
    throw CliError(std::string("--alpha-file ") + Quote(alpha_path) + ": " +
                   e.what());
  }
  if (header.big_endian != kNativeBigEndian) {
    SwapBytes(x.data(), static_cast<size_t>(header.element_count),
              header.item_size);
  }
  output.Write(x.data(), x.size());
}

}  // namespace lrelu_cli
