// Unit tests of the .npy header reader and writer of the lrelu tool.
#include "npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace lrelu_cli {
namespace {

// An anonymous temporary file holding `bytes`, closed on scope exit.
class TempFile {
 public:
  explicit TempFile(const std::string& bytes) : file_(std::tmpfile()) {
    EXPECT_NE(file_, nullptr);
    EXPECT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file_), bytes.size());
    std::fflush(file_);
  }
  ~TempFile() { std::fclose(file_); }
  int fd() const { return fileno(file_); }

 private:
  std::FILE* file_;
};

NpyHeader ReadBytes(const std::string& bytes) {
  TempFile file(bytes);
  return ReadNpyHeader(file.fd(), bytes.size());
}

// The message ReadNpyHeader throws for `bytes` ("" if it does not throw).
std::string ReadError(const std::string& bytes) {
  try {
    ReadBytes(bytes);
  } catch (const NpyError& e) {
    return e.what();
  }
  return "";
}

// Magic, version and length field for `dict` (no padding), `version`.0.
std::string Preamble(const std::string& dict, int version = 1) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(version);
  out += '\0';
  const std::size_t length_bytes = version == 1 ? 2 : 4;
  for (std::size_t i = 0; i < length_bytes; ++i) {
    out += static_cast<char>((dict.size() >> (8 * i)) & 0xff);
  }
  return out + dict;
}

std::string HeaderError(const std::string& dict) {
  try {
    ParseNpyHeaderDict(dict);
  } catch (const NpyError& e) {
    return e.what();
  }
  return "";
}

NpyHeader MakeHeader(int version, const std::string& descr, bool fortran,
                     std::vector<int64_t> shape) {
  NpyHeader h = ParseNpyHeaderDict("{'descr': '" + descr +
                                   "', 'fortran_order': False, 'shape': (), }");
  h.version = version;
  h.fortran_order = fortran;
  h.shape = std::move(shape);
  h.element_count = 1;
  for (int64_t d : h.shape) h.element_count *= static_cast<uint64_t>(d);
  h.data_bytes = h.element_count * h.item_size;
  return h;
}

TEST(NpyTest, RoundTripEveryVersionDtypeOrderAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0, 3}, {5}, {2, 3, 4}, {1, 0}, {7, 1, 1, 3}};
  for (int version : {1, 2, 3}) {
    for (const char* descr :
         {"<f4", ">f4", "<f2", ">f2", "<f8", ">f8", "=f4"}) {
      for (bool fortran : {false, true}) {
        for (const auto& shape : shapes) {
          const NpyHeader in = MakeHeader(version, descr, fortran, shape);
          const std::string preamble = FormatNpyHeader(in);
          EXPECT_EQ(preamble.size() % 64, 0u);
          EXPECT_EQ(preamble.back(), '\n');
          const NpyHeader out = ReadBytes(
              preamble +
              std::string(static_cast<std::size_t>(in.data_bytes), 'x'));
          EXPECT_EQ(out.version, version);
          EXPECT_EQ(out.descr, descr);
          EXPECT_EQ(out.type, in.type);
          EXPECT_EQ(out.item_size, in.item_size);
          EXPECT_EQ(out.big_endian, descr[0] == '>');
          EXPECT_EQ(out.fortran_order, fortran);
          EXPECT_EQ(out.shape, shape);
          EXPECT_EQ(out.element_count, in.element_count);
          EXPECT_EQ(out.data_bytes, in.data_bytes);
          EXPECT_EQ(out.data_offset, preamble.size());
        }
      }
    }
  }
}

TEST(NpyTest, FormatMatchesNumpy) {
  // np.save(f, np.zeros((2, 3), '<f4')) with numpy < 1.23 (no growth-axis
  // padding) writes exactly this.
  const NpyHeader h = MakeHeader(1, "<f4", false, {2, 3});
  std::string expected("\x93NUMPY\x01\x00\x76\x00", 10);
  expected += "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  expected += std::string(128 - 1 - expected.size(), ' ') + "\n";
  EXPECT_EQ(FormatNpyHeader(h), expected);
  EXPECT_NE(FormatNpyHeader(MakeHeader(1, "<f4", false, {3})).find("(3,)"),
            std::string::npos);
  EXPECT_NE(
      FormatNpyHeader(MakeHeader(1, "<f4", false, {})).find("'shape': ()"),
      std::string::npos);
}

TEST(NpyTest, VersionOneGrowsToTwoWhenTheHeaderDoesNotFit) {
  const NpyHeader h =
      MakeHeader(1, "<f4", false, std::vector<int64_t>(23000, 1));
  const std::string preamble = FormatNpyHeader(h);
  EXPECT_EQ(preamble[6], 2);
  const NpyHeader back = ReadBytes(preamble + std::string(4, '\0'));
  EXPECT_EQ(back.shape.size(), 23000u);
  EXPECT_EQ(back.version, 2);
}

TEST(NpyTest, AcceptsLiteralVariants) {
  const NpyHeader a = ParseNpyHeaderDict(
      "{\"shape\":(3,4),\"fortran_order\":True,\"descr\":\">f8\"}");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(a.fortran_order);
  EXPECT_TRUE(a.big_endian);
  EXPECT_EQ(a.type, NpyType::kFloat64);
  // Python 2 long suffix, newlines, tabs, no trailing comma.
  const NpyHeader b = ParseNpyHeaderDict(
      "{'descr': '<f2',\n\t'fortran_order': False, 'shape': (3L, 2L)}   \n");
  EXPECT_EQ(b.shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(b.type, NpyType::kFloat16);
  // Plain type codes numpy also reads.
  EXPECT_EQ(ParseNpyHeaderDict("{'descr': '<e', 'fortran_order': False, "
                               "'shape': ()}")
                .type,
            NpyType::kFloat16);
  EXPECT_EQ(ParseNpyHeaderDict("{'descr': 'd', 'fortran_order': False, "
                               "'shape': ()}")
                .type,
            NpyType::kFloat64);
  // 0-d and empty arrays.
  EXPECT_EQ(ParseNpyHeaderDict("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': ()}")
                .element_count,
            1u);
  EXPECT_EQ(ParseNpyHeaderDict("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (0, 3)}")
                .data_bytes,
            0u);
  // A zero dimension empties the array; the other dimensions must still
  // multiply within int64 (EmptyShapesFollowNumpysOverflowRule).
  EXPECT_EQ(ParseNpyHeaderDict("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (0, 1000000000, 1000000000)}")
                .element_count,
            0u);
}

struct BadHeader {
  const char* dict;
  const char* message;  // a part of the expected message
};

TEST(NpyTest, RejectsMalformedHeadersWithSpecificMessages) {
  const BadHeader cases[] = {
      {"{'descr': __import__('os').system('x'), 'fortran_order': False, "
       "'shape': (3,)}",
       "the name '__import__' is not a literal"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': eval}",
       "the name 'eval' is not a literal"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1+2,)}",
       "expected ',' or ')' but found '+'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3.0,)}",
       "only integer numbers are allowed"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (03,)}",
       "leading zero"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)",
       "expected ',' or '}' but found end of header"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} x",
       "after the literal"},
      {"{'descr': '<f4\\n', 'fortran_order': False, 'shape': (3,)}",
       "escape sequences"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (3,)}",
       "expected ',' or '}' but found 'f'"},
      {"{'descr' '<f4', 'fortran_order': False, 'shape': (3,)}",
       "expected ':' but found '''"},
      {"{'descr': '<f4", "unterminated string"},
      {"", "unexpected end of header"},
      {"['descr', '<f4']", "the header is not a dict"},
      {"{'descr': '<f4', 'fortran_order': False}", "no 'shape' key"},
      {"{'fortran_order': False, 'shape': (3,)}", "no 'descr' key"},
      {"{'descr': '<f4', 'shape': (3,)}", "no 'fortran_order' key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1}",
       "unknown key 'extra'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
       "'shape': (3,)}",
       "the key 'descr' twice"},
      {"{1: '<f4', 'fortran_order': False, 'shape': (3,)}",
       "a key that is not a string"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (3,)}",
       "unsupported dtype '<i4': integers are not supported"},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (3,)}",
       "integers are not supported"},
      {"{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}",
       "booleans are not supported"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (3,)}",
       "complex numbers are not supported"},
      {"{'descr': '|O', 'fortran_order': False, 'shape': (3,)}",
       "Python objects are not supported"},
      {"{'descr': '<U3', 'fortran_order': False, 'shape': (3,)}",
       "strings are not supported"},
      {"{'descr': '|V8', 'fortran_order': False, 'shape': (3,)}",
       "raw bytes and records are not supported"},
      {"{'descr': '<M8[s]', 'fortran_order': False, 'shape': (3,)}",
       "dates and times are not supported"},
      {"{'descr': '<f16', 'fortran_order': False, 'shape': (3,)}",
       "only 2-, 4- and 8-byte floats"},
      {"{'descr': '', 'fortran_order': False, 'shape': (3,)}",
       "unknown type code"},
      {"{'descr': '|f4', 'fortran_order': False, 'shape': (3,)}",
       "byte order '|'"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,)}",
       "structured dtypes"},
      {"{'descr': ('<f4', (2,)), 'fortran_order': False, 'shape': (3,)}",
       "sub-array dtypes"},
      {"{'descr': 4, 'fortran_order': False, 'shape': (3,)}",
       "'descr' in the header is not a string"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (3,)}",
       "'fortran_order' in the header is not True or False"},
      {"{'descr': '<f4', 'fortran_order': None, 'shape': (3,)}",
       "not True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [3]}",
       "'shape' in the header is not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3)}",
       "'shape' in the header is not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ('3',)}",
       "not a tuple of integers"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}",
       "negative dimension '-3'"},
      {"{'descr': '<f4', 'fortran_order': False, "
       "'shape': (99999999999999999999,)}",
       "is too large"},
      {"{'descr': '<f4', 'fortran_order': False, "
       "'shape': (4294967296, 4294967296)}",
       "element count of shape (4294967296, 4294967296) overflows"},
      {"{'descr': '<f8', 'fortran_order': False, "
       "'shape': (2305843009213693952,)}",
       "data size of shape"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "((((((((((((((((((((3,),),),),),),),),),),),),),),),),),),),)}",
       "nests more than 16 levels"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}\x01",
       "byte 0x01"},
      {"{'descr': b'<f4', 'fortran_order': False, 'shape': (3,)}",
       "the name 'b' is not a literal"},
  };
  for (const BadHeader& c : cases) {
    const std::string message = HeaderError(c.dict);
    EXPECT_NE(message.find(c.message), std::string::npos)
        << "header: " << c.dict << "\nmessage: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// numpy refuses a shape whose non-zero dimensions (times the item size)
// overflow its intp even when a zero dimension makes it empty, as the
// contract loader does; an empty shape within the limits has no data.
TEST(NpyTest, EmptyShapesFollowNumpysOverflowRule) {
  const std::string prefix = "{'descr': '<f4', 'fortran_order': False, ";
  EXPECT_NE(HeaderError(prefix + "'shape': (0, 4611686018427387904, "
                                 "4611686018427387904)}")
                .find("element count of shape (0, 4611686018427387904, "
                      "4611686018427387904) overflows"),
            std::string::npos);
  EXPECT_NE(HeaderError(prefix + "'shape': (2305843009213693952, 0, 2)}")
                .find("data size of shape (2305843009213693952, 0, 2) "
                      "overflows"),
            std::string::npos);
  const NpyHeader empty =
      ParseNpyHeaderDict(prefix + "'shape': (0, 2305843009213693951)}");
  EXPECT_EQ(empty.element_count, 0u);
  EXPECT_EQ(empty.data_bytes, 0u);
}

TEST(NpyTest, RejectsBadPreamblesAndSizes) {
  const std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}";
  EXPECT_EQ(ReadError(Preamble(dict) + std::string(8, '\0')), "");
  EXPECT_NE(ReadError("").find("the file is empty"), std::string::npos);
  EXPECT_NE(ReadError("\x93NUM").find("not a .npy file"), std::string::npos);
  EXPECT_NE(ReadError("PK\x03\x04 this is a zip").find("not a .npy file"),
            std::string::npos);
  EXPECT_NE(ReadError(std::string("\x93NUMPY\x01", 7)).find("ends inside"),
            std::string::npos);
  EXPECT_NE(
      ReadError(std::string("\x93NUMPY\x01\x00\x10", 9)).find("ends inside"),
      std::string::npos);
  std::string v4 = Preamble(dict, 2) + std::string(8, '\0');
  v4[6] = 4;
  EXPECT_NE(ReadError(v4).find("unsupported .npy format version 4.0"),
            std::string::npos);
  std::string v11 = Preamble(dict) + std::string(8, '\0');
  v11[7] = 1;
  EXPECT_NE(ReadError(v11).find("version 1.1"), std::string::npos);
  std::string v0 = Preamble(dict) + std::string(8, '\0');
  v0[6] = 0;
  EXPECT_NE(ReadError(v0).find("version 0.0"), std::string::npos);
  // Header length beyond the file.
  std::string long_header = Preamble(dict) + std::string(8, '\0');
  long_header[8] = '\xff';
  long_header[9] = '\x7f';
  EXPECT_NE(ReadError(long_header).find("goes beyond the end of the file"),
            std::string::npos);
  std::string huge_v2 = Preamble(dict, 2);
  huge_v2[11] = '\xff';
  EXPECT_NE(ReadError(huge_v2).find("goes beyond the end of the file"),
            std::string::npos);
  // Truncated data and trailing bytes.
  EXPECT_NE(ReadError(Preamble(dict) + std::string(7, '\0'))
                .find("truncated: shape (2,) needs 8 bytes of data but 7"),
            std::string::npos);
  EXPECT_NE(ReadError(Preamble(dict)).find("truncated"), std::string::npos);
  EXPECT_NE(ReadError(Preamble(dict) + std::string(9, '\0'))
                .find("1 bytes after the array data"),
            std::string::npos);
  // A claimed size far beyond the file.
  EXPECT_NE(ReadError(Preamble("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1000000000000,)}"))
                .find("needs 4000000000000 bytes"),
            std::string::npos);
  // Over the header size limit (v2 length field).
  const std::string big_dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}" +
      std::string(kMaxNpyHeaderBytes, ' ');
  EXPECT_NE(ReadError(Preamble(big_dict, 2) + std::string(8, '\0'))
                .find("longer than the 1 MiB limit"),
            std::string::npos);
  // Header errors come through ReadNpyHeader too; v3 headers may hold UTF-8.
  EXPECT_NE(ReadError(Preamble("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (2,), 'caf\xc3\xa9': 1}",
                               3) +
                      std::string(8, '\0'))
                .find("unknown key 'caf\\xc3\\xa9'"),
            std::string::npos);
}

TEST(NpyTest, ReadsDataAtOffsets) {
  const std::string dict =
      "{'descr': '<f2', 'fortran_order': False, 'shape': (4,)}";
  const std::string bytes = Preamble(dict) + "abcdefgh";
  TempFile file(bytes);
  const NpyHeader h = ReadNpyHeader(file.fd(), bytes.size());
  char buffer[4] = {};
  ReadNpyData(file.fd(), h, 1, 2, buffer);
  EXPECT_EQ(std::string(buffer, 4), "cdef");
}

}  // namespace
}  // namespace lrelu_cli
