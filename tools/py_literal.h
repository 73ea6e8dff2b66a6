// A strict parser for the small subset of Python literals that appears in
// .npy headers: dicts, tuples, lists, strings, integers, True, False, None.
// It builds a tree and evaluates nothing; names other than True, False and
// None (and so any code, e.g. __import__('os')) are rejected.
#ifndef LRELU_TOOLS_PY_LITERAL_H_
#define LRELU_TOOLS_PY_LITERAL_H_

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lrelu_cli {

// Malformed literal; what() is one line and ends with "at offset N".
class PyLiteralError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PyLiteral {
  enum class Kind { kString, kInt, kBool, kNone, kTuple, kList, kDict };
  Kind kind = Kind::kNone;
  // kString: the characters between the quotes. kInt: decimal digits with a
  // leading '-' when negative (never "-0"), no leading zeros.
  std::string text;
  bool boolean = false;          // kBool
  std::vector<PyLiteral> items;  // kTuple, kList; kDict: key, value, key, ...
};

// Parses `text`, which must hold exactly one literal (surrounding whitespace
// allowed). Throws PyLiteralError.
PyLiteral ParsePyLiteral(std::string_view text);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_PY_LITERAL_H_
