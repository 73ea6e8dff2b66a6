// The input file of `lrelu apply`, opened without ever blocking: a FIFO
// with no writer, a terminal or another device is refused at once (apply
// needs a regular file: its size is checked against the header before any
// output exists), and so is a pseudo-file that reports size 0 but has
// data (/proc/self/status).
#ifndef LRELU_TOOLS_INPUT_FILE_H_
#define LRELU_TOOLS_INPUT_FILE_H_

#include <sys/stat.h>

#include <string>

#include "unique_fd.h"

namespace lrelu_cli {

class InputFile {
 public:
  // Opens and checks `path`; throws CliError.
  explicit InputFile(const std::string& path);

  int fd() const { return fd_.get(); }
  const struct stat& status() const { return status_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  UniqueFd fd_;
  struct stat status_ {};
};

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_INPUT_FILE_H_
