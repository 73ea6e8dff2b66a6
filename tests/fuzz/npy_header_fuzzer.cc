// Fuzz target (a): the .npy reader of the lrelu tool (tools/npy.h and the
// Python-literal parser under it). Hostile files must be refused with
// NpyError and nothing else: no crash, no other exception, no hang. A header
// that is accepted must describe itself consistently and survive a round
// trip through FormatNpyHeader.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "npy.h"

namespace {

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "npy_header_fuzzer: %s\n", what);
  std::abort();
}

// An accepted header obeys the invariants the tool relies on.
void CheckHeader(const lrelu_cli::NpyHeader& h) {
  uint64_t count = 1;
  for (int64_t d : h.shape) {
    if (d < 0) Die("negative dimension accepted");
    if (d == 0) count = 0;
  }
  if (count != 0) {
    for (int64_t d : h.shape) {
      if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count)) {
        Die("overflowing shape accepted");
      }
    }
  }
  if (h.element_count != count) Die("element_count is not the shape's");
  if (h.item_size != 2 && h.item_size != 4 && h.item_size != 8) {
    Die("item size");
  }
  if (h.data_bytes != count * h.item_size || h.data_bytes > INT64_MAX) {
    Die("data_bytes");
  }
}

// FormatNpyHeader writes a header that parses back to the same fields.
void CheckRoundTrip(const lrelu_cli::NpyHeader& h) {
  const std::string formatted = lrelu_cli::FormatNpyHeader(h);
  if (formatted.size() % 64 != 0) Die("formatted header is not 64-aligned");
  if (formatted.size() < 12 || formatted.back() != '\n') Die("preamble");
  const int version = static_cast<unsigned char>(formatted[6]);
  const size_t dict_start = version == 1 ? 10 : 12;
  const lrelu_cli::NpyHeader back = lrelu_cli::ParseNpyHeaderDict(
      std::string_view(formatted).substr(dict_start));
  if (back.descr != h.descr || back.shape != h.shape ||
      back.fortran_order != h.fortran_order || back.type != h.type ||
      back.big_endian != h.big_endian) {
    Die("header does not survive FormatNpyHeader");
  }
}

// The bytes as an open file, as the tool sees its input.
int MemoryFile(const uint8_t* data, size_t size) {
  const int fd = memfd_create("npy_fuzz", MFD_CLOEXEC);
  if (fd < 0) Die("memfd_create");
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) Die("write");
    done += static_cast<size_t>(n);
  }
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The input as a whole file.
  const int fd = MemoryFile(data, size);
  try {
    const lrelu_cli::NpyHeader h = lrelu_cli::ReadNpyHeader(fd, size);
    CheckHeader(h);
    CheckRoundTrip(h);
    if (h.data_offset + h.data_bytes != size) Die("data does not fill file");
    // Read the first and last few elements, as apply's chunks would.
    unsigned char buffer[64];
    const uint64_t n = h.element_count < 8 ? h.element_count : 8;
    lrelu_cli::ReadNpyData(fd, h, 0, n, buffer);
    lrelu_cli::ReadNpyData(fd, h, h.element_count - n, n, buffer);
  } catch (const lrelu_cli::NpyError& e) {
    // NpyError promises one line (quoted file contents included).
    if (std::string_view(e.what()).find('\n') != std::string_view::npos) {
      Die("an NpyError message spans lines");
    }
  }
  close(fd);
  // The input as the dict text alone (the part after the length field).
  try {
    const lrelu_cli::NpyHeader h = lrelu_cli::ParseNpyHeaderDict(
        std::string_view(reinterpret_cast<const char*>(data), size));
    CheckHeader(h);
    CheckRoundTrip(h);
  } catch (const lrelu_cli::NpyError&) {
  }
  return 0;
}
