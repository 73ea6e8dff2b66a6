// Reading and writing the header of NumPy .npy files (format 1.0, 2.0, 3.0).
//
// The header is a Python dict literal. It is parsed by a strict, hand-written
// parser that accepts literals only and never evaluates anything, so a
// hostile file can at worst be rejected. Only the float dtypes lrelu computes
// on are accepted: float16 ('f2'), float32 ('f4') and float64 ('f8'), in
// either byte order, C or Fortran order, any shape.
#ifndef LRELU_TOOLS_NPY_H_
#define LRELU_TOOLS_NPY_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lrelu_cli {

// A malformed or unsupported .npy file; what() is one line.
class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Element types a .npy file may hold for lrelu.
enum class NpyType { kFloat16, kFloat32, kFloat64 };

// Everything about a .npy file except its data.
struct NpyHeader {
  int version = 1;    // major version: 1, 2 or 3 (minor is always 0)
  std::string descr;  // as written in the file, e.g. "<f4"
  NpyType type = NpyType::kFloat32;
  std::size_t item_size = 4;  // bytes per element
  bool big_endian = false;    // byte order of the data in the file
  bool fortran_order = false;
  std::vector<int64_t> shape;
  uint64_t element_count = 1;  // product of shape (1 for shape ())
  uint64_t data_bytes = 4;     // element_count * item_size
  uint64_t data_offset = 0;    // bytes before the data (magic + header)
};

// The largest header the reader accepts; real headers are < 1 KiB.
constexpr uint32_t kMaxNpyHeaderBytes = 1u << 20;

// Parses the dict literal of a header (the text after the length field) and
// fills descr, type, item_size, big_endian, fortran_order, shape,
// element_count and data_bytes. Throws NpyError.
NpyHeader ParseNpyHeaderDict(std::string_view text);

// Reads and checks the magic, version and header of the open file `fd` of
// `file_size` bytes, and checks that the data fills the rest of the file
// exactly (no truncation, no trailing bytes). Throws NpyError.
NpyHeader ReadNpyHeader(int fd, uint64_t file_size);

// Reads elements [first, first + count) of the data of the open file `fd`
// with this header into `buffer`, in file byte order. Throws NpyError.
void ReadNpyData(int fd, const NpyHeader& header, uint64_t first,
                 std::size_t count, void* buffer);

// The bytes before the data of a file with this header: magic, version,
// length and the dict, padded with spaces to a multiple of 64 bytes and
// ending in '\n', as numpy writes it. Uses header.version unless the dict
// needs a longer length field (1.0 holds at most 65535 bytes), and ignores
// header.data_offset.
std::string FormatNpyHeader(const NpyHeader& header);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_NPY_H_
