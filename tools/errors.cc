#include "errors.h"

#include <cstdio>
#include <cstring>

namespace lrelu_cli {

std::string Quote(std::string_view text, std::size_t max_length) {
  std::string out = "'";
  const std::size_t shown = text.size() < max_length ? text.size() : max_length;
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
  }
  if (shown < text.size()) out += "...";
  out += '\'';
  return out;
}

std::string ErrnoText(int error_number) {
  // strerror is not thread-safe, but the tool reports errors from one thread.
  return std::strerror(error_number);
}

}  // namespace lrelu_cli
