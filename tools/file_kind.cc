#include "file_kind.h"

#include <sys/stat.h>

#include "errors.h"

namespace lrelu_cli {

std::string FileKind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a file";
}

std::string NotARegularFile(const std::string& role, const std::string& path,
                            mode_t mode, const std::string& why) {
  std::string message = "the " + role + " " + Quote(path) +
                        " is not a regular file but " + FileKind(mode);
  if (!S_ISDIR(mode)) message += "; " + why;
  return message;
}

}  // namespace lrelu_cli
