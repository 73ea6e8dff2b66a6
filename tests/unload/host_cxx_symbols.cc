// Stands in for a C++ host such as GNU Octave: it defines the same
// STB_GNU_UNIQUE template statics that liblrelu.so defines (std::to_chars'
// digit table, make_shared's tag). With the host's copies found first, glibc
// does not pin liblrelu.so in memory, so dlclose really unmaps it, as it does
// in Octave. Without this, liblrelu would pin itself and the test could not
// fail.
#include <charconv>
#include <memory>

extern "C" int lrelu_test_host_cxx_symbols(char* buffer, unsigned u,
                                           unsigned long ul) {
  auto result = std::to_chars(buffer, buffer + 20, u);
  result = std::to_chars(result.ptr, result.ptr + 20, ul);
  auto one = std::make_shared<int>(1);
  return static_cast<int>(result.ptr - buffer) + *one;
}
