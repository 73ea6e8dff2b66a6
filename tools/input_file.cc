#include "input_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "errors.h"
#include "file_kind.h"

namespace lrelu_cli {

InputFile::InputFile(const std::string& path) : path_(path) {
  // O_NONBLOCK: opening a FIFO with no writer (or a modem line) would
  // otherwise wait forever. It is cleared below for regular files.
  fd_.Reset(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd_.valid()) {
    throw CliError("cannot open the input " + Quote(path) + ": " +
                   ErrnoText(errno));
  }
  if (fstat(fd(), &status_) != 0) {
    throw CliError("cannot stat the input " + Quote(path) + ": " +
                   ErrnoText(errno));
  }
  if (!S_ISREG(status_.st_mode)) {
    throw CliError(NotARegularFile(
        "input", path, status_.st_mode,
        "lrelu apply reads regular files only (it checks the file's size "
        "against the header before writing anything), so save the data to "
        "a file first"));
  }
  const int flags = fcntl(fd(), F_GETFL);
  if (flags < 0 || fcntl(fd(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    throw CliError("cannot use the input " + Quote(path) + ": " +
                   ErrnoText(errno));
  }
  if (status_.st_size == 0) {
    // procfs and sysfs files report size 0 whatever they hold.
    char byte;
    if (pread(fd(), &byte, 1, 0) == 1) {
      throw CliError("the input " + Quote(path) +
                     " reports a size of 0 bytes but has data (a file of "
                     "/proc or /sys?); lrelu apply reads regular files whose "
                     "size is known, so save the data to a file first");
    }
  }
}

}  // namespace lrelu_cli
