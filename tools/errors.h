// Errors of the lrelu tool. main() prints each one as a single line,
// "lrelu: error: <message>", and exits with its code, so every message must
// stay on one line even when it quotes a file name or file contents.
#ifndef LRELU_TOOLS_ERRORS_H_
#define LRELU_TOOLS_ERRORS_H_

#include <stdexcept>
#include <string>
#include <string_view>

namespace lrelu_cli {

// Exit codes of the tool (docs/cli.md lists them).
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // bad input file, I/O or library error
constexpr int kExitUsage = 2;    // bad command line

// A failure to report; what() is the message without the "lrelu: error: ".
class CliError : public std::runtime_error {
 public:
  explicit CliError(const std::string& message, int exit_code = kExitFailure)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// A bad command line (exit code kExitUsage).
class UsageError : public CliError {
 public:
  explicit UsageError(const std::string& message)
      : CliError(message, kExitUsage) {}
};

// Ends a command that has already printed its own report (e.g. `lrelu test`
// and its FAIL lines): main() exits with `exit_code` and prints nothing, so
// the report is not followed by a redundant "lrelu: error:" line.
class ReportedFailure : public std::exception {
 public:
  explicit ReportedFailure(int exit_code = kExitFailure)
      : exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }
  const char* what() const noexcept override { return "reported failure"; }

 private:
  int exit_code_;
};

// `text` in single quotes, with control and non-ASCII bytes written as \xNN
// and anything past `max_length` bytes cut to "...", so untrusted text (file
// names, header contents) can never break the one-line message.
std::string Quote(std::string_view text, std::size_t max_length = 200);

// One line describing errno value `error_number` (strerror).
std::string ErrnoText(int error_number);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_ERRORS_H_
