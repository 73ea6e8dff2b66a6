#include "parse_args.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <set>

#include "errors.h"

namespace lrelu_cli {

double ParseAlpha(const std::string& text) {
  // strtod skips leading whitespace itself; " 1" is junk here.
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) {
    throw UsageError("--alpha " + Quote(text, 40) + " is not a number");
  }
  char* end = nullptr;
  const double alpha = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) {
    throw UsageError("--alpha " + Quote(text, 40) + " is not a number");
  }
  return alpha;
}

std::size_t ParseThreads(const std::string& text) {
  // More tasks than this is never useful, and the cap keeps the value far
  // from overflow.
  return ParseCount(text, "--threads", 0, 100000);
}

std::size_t ParseCount(const std::string& text, const std::string& option,
                       std::size_t min, std::size_t max) {
  if (text.empty()) throw UsageError(option + " '' is not a number");
  std::size_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      throw UsageError(option + " " + Quote(text, 40) +
                       " is not a non-negative integer");
    }
    const auto digit = static_cast<std::size_t>(c - '0');
    if (value > (max - digit) / 10) {
      throw UsageError(option + " " + Quote(text, 40) +
                       " is too large (at most " + std::to_string(max) + ")");
    }
    value = value * 10 + digit;
  }
  if (value < min) {
    throw UsageError(option + " " + Quote(text, 40) +
                     " is too small (at least " + std::to_string(min) + ")");
  }
  return value;
}

std::vector<std::string> SplitList(const std::string& text,
                                   const std::string& option) {
  std::vector<std::string> items;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) {
      throw UsageError(option + " " + Quote(text, 80) + " has an empty item");
    }
    if (!seen.insert(item).second) {
      throw UsageError(option + " " + Quote(text, 80) + " names " +
                       Quote(item, 40) + " twice");
    }
    items.push_back(item);
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

}  // namespace lrelu_cli
