#include "npy.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "errors.h"
#include "py_literal.h"

namespace lrelu_cli {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicBytes = 6;
// Data starts at a multiple of this (numpy's ARRAY_ALIGN), so it can be
// memory-mapped with any alignment up to 64 bytes.
constexpr std::size_t kAlign = 64;

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

// Why a type code that is not f2, f4 or f8 is rejected.
std::string UnsupportedTypeReason(std::string_view code) {
  const char kind = code.empty() ? '\0' : code[0];
  if (code == "b1" || code == "?") return "booleans are not supported";
  if (kind == 'f' || kind == 'g')
    return "only 2-, 4- and 8-byte floats are supported";
  switch (kind) {
    case 'i':
    case 'u':
    case 'b':
    case 'B':
    case 'h':
    case 'H':
    case 'l':
    case 'L':
    case 'q':
    case 'Q':
    case 'p':
    case 'P':
    case 'n':
    case 'N':
      return "integers are not supported";
    case 'c':
    case 'F':
    case 'D':
    case 'G':
      return "complex numbers are not supported";
    case 'O':
      return "Python objects are not supported";
    case 'S':
    case 'a':
    case 'U':
      return "strings are not supported";
    case 'V':
      return "raw bytes and records are not supported";
    case 'M':
    case 'm':
      return "dates and times are not supported";
    default:
      return "unknown type code";
  }
}

void ParseDescr(const PyLiteral& value, NpyHeader* header) {
  if (value.kind == PyLiteral::Kind::kList) {
    throw NpyError("structured dtypes (a list of fields) are not supported");
  }
  if (value.kind == PyLiteral::Kind::kTuple) {
    throw NpyError("sub-array dtypes are not supported");
  }
  if (value.kind != PyLiteral::Kind::kString) {
    throw NpyError("'descr' in the header is not a string");
  }
  const std::string& descr = value.text;
  std::string_view code = descr;
  char order = '\0';
  if (!code.empty() && std::strchr("<>=|", code[0]) != nullptr) {
    order = code[0];
    code.remove_prefix(1);
  }
  // Plain type codes ('e', 'f', 'd') are what np.dtype('<f').str would
  // not write, but numpy reads them, so this does too.
  if (code == "f2" || code == "e") {
    header->type = NpyType::kFloat16;
    header->item_size = 2;
  } else if (code == "f4" || code == "f") {
    header->type = NpyType::kFloat32;
    header->item_size = 4;
  } else if (code == "f8" || code == "d") {
    header->type = NpyType::kFloat64;
    header->item_size = 8;
  } else {
    throw NpyError("unsupported dtype " + Quote(descr) + ": " +
                   UnsupportedTypeReason(code) +
                   " (lrelu takes float16, float32 and float64)");
  }
  if (order == '|') {
    throw NpyError("dtype " + Quote(descr) +
                   " has byte order '|' (not applicable), which is invalid "
                   "for a multi-byte float");
  }
  const bool native_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
  header->big_endian =
      order == '>' || ((order == '=' || order == '\0') && native_big);
  header->descr = descr;
}

void ParseShape(const PyLiteral& value, NpyHeader* header) {
  if (value.kind != PyLiteral::Kind::kTuple) {
    throw NpyError("'shape' in the header is not a tuple of integers");
  }
  header->shape.clear();
  bool any_zero = false;
  for (const PyLiteral& item : value.items) {
    if (item.kind != PyLiteral::Kind::kInt) {
      throw NpyError("'shape' in the header is not a tuple of integers");
    }
    if (item.text[0] == '-') {
      throw NpyError("negative dimension " + Quote(item.text, 40) +
                     " in the shape");
    }
    uint64_t dim = 0;
    for (char c : item.text) {
      const auto digit = static_cast<uint64_t>(c - '0');
      if (dim > (INT64_MAX - digit) / 10) {
        throw NpyError("dimension " + Quote(item.text, 40) +
                       " in the shape is too large");
      }
      dim = dim * 10 + digit;
    }
    any_zero = any_zero || dim == 0;
    header->shape.push_back(static_cast<int64_t>(dim));
  }
  // Element count and byte size must fit int64 (the library's extents).
  // As in numpy and the contract loader, the product of the non-zero
  // dimensions must fit even when a zero makes the array empty: numpy
  // refuses to load (0, 2**62, 2**62) with float32.
  uint64_t count = 1;
  for (int64_t dim : header->shape) {
    const auto d = static_cast<uint64_t>(dim);
    if (d == 0) continue;
    if (count > static_cast<uint64_t>(INT64_MAX) / d) {
      throw NpyError("the element count of shape " + ShapeText(header->shape) +
                     " overflows");
    }
    count *= d;
  }
  if (count > static_cast<uint64_t>(INT64_MAX) / header->item_size) {
    throw NpyError("the data size of shape " + ShapeText(header->shape) +
                   " overflows");
  }
  if (any_zero) count = 0;
  header->element_count = count;
  header->data_bytes = count * header->item_size;
}

// Reads exactly `size` bytes at `offset`; throws NpyError on failure.
void ReadAt(int fd, void* buffer, std::size_t size, uint64_t offset) {
  auto* bytes = static_cast<unsigned char*>(buffer);
  while (size > 0) {
    const ssize_t got = pread(fd, bytes, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw NpyError("cannot read the file: " + ErrnoText(errno));
    if (got == 0) throw NpyError("the file got shorter while it was read");
    bytes += got;
    size -= static_cast<std::size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
}

}  // namespace

NpyHeader ParseNpyHeaderDict(std::string_view text) {
  PyLiteral dict;
  try {
    dict = ParsePyLiteral(text);
  } catch (const PyLiteralError& e) {
    throw NpyError(std::string("the header is not a Python literal: ") +
                   e.what());
  }
  if (dict.kind != PyLiteral::Kind::kDict) {
    throw NpyError("the header is not a dict");
  }
  const PyLiteral* descr = nullptr;
  const PyLiteral* fortran_order = nullptr;
  const PyLiteral* shape = nullptr;
  for (std::size_t i = 0; i < dict.items.size(); i += 2) {
    const PyLiteral& key = dict.items[i];
    if (key.kind != PyLiteral::Kind::kString) {
      throw NpyError("the header has a key that is not a string");
    }
    const PyLiteral** slot = key.text == "descr"           ? &descr
                             : key.text == "fortran_order" ? &fortran_order
                             : key.text == "shape"         ? &shape
                                                           : nullptr;
    if (slot == nullptr) {
      throw NpyError("unknown key " + Quote(key.text, 40) +
                     " in the header (expected 'descr', 'fortran_order', "
                     "'shape')");
    }
    if (*slot != nullptr) {
      throw NpyError("the header has the key " + Quote(key.text) + " twice");
    }
    *slot = &dict.items[i + 1];
  }
  if (descr == nullptr) throw NpyError("the header has no 'descr' key");
  if (fortran_order == nullptr) {
    throw NpyError("the header has no 'fortran_order' key");
  }
  if (shape == nullptr) throw NpyError("the header has no 'shape' key");

  NpyHeader header;
  ParseDescr(*descr, &header);
  if (fortran_order->kind != PyLiteral::Kind::kBool) {
    throw NpyError("'fortran_order' in the header is not True or False");
  }
  header.fortran_order = fortran_order->boolean;
  ParseShape(*shape, &header);
  return header;
}

NpyHeader ReadNpyHeader(int fd, uint64_t file_size) {
  if (file_size == 0) throw NpyError("the file is empty");
  unsigned char preamble[12] = {};
  const std::size_t first = file_size < sizeof(preamble)
                                ? static_cast<std::size_t>(file_size)
                                : sizeof(preamble);
  ReadAt(fd, preamble, first, 0);
  if (first < kMagicBytes || std::memcmp(preamble, kMagic, kMagicBytes) != 0) {
    throw NpyError("not a .npy file (it does not start with \\x93NUMPY)");
  }
  if (first < 8) throw NpyError("the file ends inside the .npy preamble");
  const int major = preamble[6];
  const int minor = preamble[7];
  if (major < 1 || major > 3 || minor != 0) {
    throw NpyError("unsupported .npy format version " + std::to_string(major) +
                   "." + std::to_string(minor) + " (reads 1.0, 2.0 and 3.0)");
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (first < 8 + length_bytes) {
    throw NpyError("the file ends inside the .npy preamble");
  }
  uint64_t header_length = 0;  // little-endian in every version
  for (std::size_t i = length_bytes; i-- > 0;) {
    header_length = header_length << 8 | preamble[8 + i];
  }
  const uint64_t data_offset = 8 + length_bytes + header_length;
  if (data_offset > file_size) {
    throw NpyError("the header length " + std::to_string(header_length) +
                   " goes beyond the end of the file (" +
                   std::to_string(file_size) + " bytes)");
  }
  if (header_length > kMaxNpyHeaderBytes) {
    throw NpyError("the header of " + std::to_string(header_length) +
                   " bytes is longer than the 1 MiB limit");
  }
  std::string text(static_cast<std::size_t>(header_length), '\0');
  ReadAt(fd, text.data(), text.size(), 8 + length_bytes);
  NpyHeader header = ParseNpyHeaderDict(text);
  header.version = major;
  header.data_offset = data_offset;
  const uint64_t available = file_size - data_offset;
  if (header.data_bytes > available) {
    throw NpyError("the file is truncated: shape " + ShapeText(header.shape) +
                   " needs " + std::to_string(header.data_bytes) +
                   " bytes of data but " + std::to_string(available) +
                   " follow the header");
  }
  if (header.data_bytes < available) {
    // Several arrays np.save'd into one file look like this; processing
    // only the first would silently drop the rest.
    throw NpyError("the file has " +
                   std::to_string(available - header.data_bytes) +
                   " bytes after the array data (a .npy file holds one array)");
  }
  return header;
}

void ReadNpyData(int fd, const NpyHeader& header, uint64_t first,
                 std::size_t count, void* buffer) {
  ReadAt(fd, buffer, count * header.item_size,
         header.data_offset + first * header.item_size);
}

std::string FormatNpyHeader(const NpyHeader& header) {
  std::string dict = "{'descr': '" + header.descr + "', 'fortran_order': " +
                     (header.fortran_order ? "True" : "False") +
                     ", 'shape': " + ShapeText(header.shape) + ", }";
  int version = header.version;
  std::size_t length_bytes = version == 1 ? 2 : 4;
  // numpy pads with 1 to 64 spaces, then '\n'.
  auto padded = [&] {
    const std::size_t unpadded =
        kMagicBytes + 2 + length_bytes + dict.size() + 1;
    return dict.size() + 1 + (kAlign - unpadded % kAlign);
  };
  if (version == 1 && padded() > 0xffff) {
    version = 2;
    length_bytes = 4;
  }
  const std::size_t header_length = padded();
  std::string out(kMagic, kMagicBytes);
  out += static_cast<char>(version);
  out += '\0';
  for (std::size_t i = 0; i < length_bytes; ++i) {
    out += static_cast<char>((header_length >> (8 * i)) & 0xff);
  }
  out += dict;
  out.append(header_length - dict.size() - 1, ' ');
  out += '\n';
  return out;
}

}  // namespace lrelu_cli
