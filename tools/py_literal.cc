#include "py_literal.h"

#include <cstdio>

namespace lrelu_cli {
namespace {

// Deeper nesting never occurs in a .npy header; the limit keeps the
// recursion bounded on hostile input.
constexpr int kMaxDepth = 16;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         IsDigit(c);
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  PyLiteral ParseAll() {
    PyLiteral value = ParseValue(0);
    SkipSpace();
    if (pos_ != text_.size())
      Throw("unexpected " + Describe() + " after the literal");
    return value;
  }

 private:
  [[noreturn]] void Throw(const std::string& message) const {
    throw PyLiteralError(message + " at offset " + std::to_string(pos_));
  }

  // The character at pos_, printable in a one-line message.
  std::string Describe() const {
    if (pos_ >= text_.size()) return "end of header";
    const auto c = static_cast<unsigned char>(text_[pos_]);
    char buffer[16];
    if (c > 0x20 && c < 0x7f) {
      std::snprintf(buffer, sizeof(buffer), "'%c'", c);
    } else {
      std::snprintf(buffer, sizeof(buffer), "byte 0x%02x", c);
    }
    return buffer;
  }

  void SkipSpace() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  }

  PyLiteral ParseValue(int depth) {
    if (depth > kMaxDepth) {
      Throw("literal nests more than " + std::to_string(kMaxDepth) +
            " levels deep");
    }
    SkipSpace();
    if (pos_ >= text_.size()) Throw("unexpected end of header");
    const char c = text_[pos_];
    if (c == '{') return ParseContainer(PyLiteral::Kind::kDict, '}', depth);
    if (c == '(') return ParseContainer(PyLiteral::Kind::kTuple, ')', depth);
    if (c == '[') return ParseContainer(PyLiteral::Kind::kList, ']', depth);
    if (c == '\'' || c == '"') return ParseString();
    if (c == '-' || c == '+' || IsDigit(c)) return ParseInt();
    if (IsNameChar(c)) return ParseName();
    Throw("unexpected " + Describe());
  }

  PyLiteral ParseContainer(PyLiteral::Kind kind, char close, int depth) {
    PyLiteral result;
    result.kind = kind;
    ++pos_;  // the opening bracket
    bool trailing_comma = false;
    SkipSpace();
    while (pos_ < text_.size() && text_[pos_] != close) {
      result.items.push_back(ParseValue(depth + 1));
      SkipSpace();
      if (kind == PyLiteral::Kind::kDict) {
        if (pos_ >= text_.size() || text_[pos_] != ':') {
          Throw("expected ':' but found " + Describe());
        }
        ++pos_;
        result.items.push_back(ParseValue(depth + 1));
        SkipSpace();
      }
      trailing_comma = false;
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        trailing_comma = true;
        SkipSpace();
      } else if (pos_ >= text_.size() || text_[pos_] != close) {
        Throw(std::string("expected ',' or '") + close + "' but found " +
              Describe());
      }
    }
    if (pos_ >= text_.size()) Throw(std::string("missing '") + close + "'");
    ++pos_;  // the closing bracket
    // As in Python, "(x)" is x in parentheses; only "(x,)" is a tuple.
    if (kind == PyLiteral::Kind::kTuple && result.items.size() == 1 &&
        !trailing_comma) {
      return std::move(result.items[0]);
    }
    return result;
  }

  PyLiteral ParseString() {
    const char quote = text_[pos_++];
    PyLiteral result;
    result.kind = PyLiteral::Kind::kString;
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n')
        Throw("unterminated string");
      const char c = text_[pos_];
      if (c == quote) break;
      // Escapes never occur in a .npy header; rejecting them keeps the
      // parser small.
      if (c == '\\') Throw("escape sequences in strings are not supported");
      result.text += c;
      ++pos_;
    }
    ++pos_;
    return result;
  }

  PyLiteral ParseInt() {
    PyLiteral result;
    result.kind = PyLiteral::Kind::kInt;
    bool negative = false;
    if (text_[pos_] == '-' || text_[pos_] == '+') {
      negative = text_[pos_] == '-';
      ++pos_;
      SkipSpace();  // Python allows "- 3"
    }
    if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
      Throw("expected a digit but found " + Describe());
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    std::string digits(text_.substr(start, pos_ - start));
    if (digits.size() > 1 && digits[0] == '0') {
      pos_ = start;
      Throw("integer with a leading zero");
    }
    // Python 2 wrote long integers with an 'L' suffix; numpy still reads them.
    if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l'))
      ++pos_;
    if (pos_ < text_.size() &&
        (IsNameChar(text_[pos_]) || text_[pos_] == '.')) {
      Throw("only integer numbers are allowed, found " + Describe() +
            " in a number");
    }
    result.text = negative && digits != "0" ? "-" + digits : digits;
    return result;
  }

  PyLiteral ParseName() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    const std::string_view name = text_.substr(start, pos_ - start);
    PyLiteral result;
    if (name == "True" || name == "False") {
      result.kind = PyLiteral::Kind::kBool;
      result.boolean = name == "True";
      return result;
    }
    if (name == "None") return result;
    pos_ = start;
    std::string shown(name.substr(0, 40));
    Throw(
        "the name '" + shown +
        "' is not a literal (only literals are allowed; nothing is evaluated)");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

PyLiteral ParsePyLiteral(std::string_view text) {
  return Parser(text).ParseAll();
}

}  // namespace lrelu_cli
