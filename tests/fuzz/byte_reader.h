// Reads values from a fuzz input front to back; past the end every value is
// 0, so any input, even empty, decodes to something.
#ifndef LRELU_TESTS_FUZZ_BYTE_READER_H_
#define LRELU_TESTS_FUZZ_BYTE_READER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace lrelu::fuzz {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }

  uint64_t Bytes(int count) {
    uint64_t value = 0;
    for (int i = 0; i < count; ++i) value |= uint64_t{U8()} << (8 * i);
    return value;
  }

  // A value in [0, count).
  uint32_t Below(uint32_t count) { return U8() % count; }

  bool Chance(uint32_t one_in) { return U8() % one_in == 0; }

  double Double() {
    const uint64_t bits = Bytes(8);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace lrelu::fuzz

#endif  // LRELU_TESTS_FUZZ_BYTE_READER_H_
