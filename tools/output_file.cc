#include "output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "errors.h"
#include "file_kind.h"

namespace lrelu_cli {
namespace {

// Symbolic links followed before giving up, as the kernel does (ELOOP).
constexpr int kMaxLinks = 40;

constexpr char kWritesRegularFiles[] =
    "lrelu apply writes regular files only (it writes a new file and renames "
    "it over OUT), so give a file name";

std::string Dirname(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string Basename(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string ReadLink(int folder, const std::string& name,
                     const std::string& shown) {
  char target[PATH_MAX + 1];
  const ssize_t size = readlinkat(folder, name.c_str(), target, PATH_MAX);
  if (size < 0) {
    throw CliError("cannot resolve the output " + Quote(shown) + ": " +
                   ErrnoText(errno));
  }
  return std::string(target, static_cast<std::size_t>(size));
}

}  // namespace

OutputFile ResolveOutput(const std::string& user_path) {
  if (user_path.empty()) throw UsageError("the output path is empty");
  OutputFile file;
  file.shown = user_path;
  // Following every link first tells a pipe, a terminal or a device
  // (/dev/stdout, /dev/null) from a missing file.
  struct stat followed;
  if (stat(user_path.c_str(), &followed) == 0) {
    if (!S_ISREG(followed.st_mode)) {
      throw CliError(NotARegularFile("output", user_path, followed.st_mode,
                                     kWritesRegularFiles));
    }
  } else if (errno != ENOENT) {
    throw CliError("cannot use the output " + Quote(user_path) + ": " +
                   ErrnoText(errno));
  }

  std::string folder = Dirname(user_path);
  std::string name = Basename(user_path);
  file.folder.Reset(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!file.folder.valid()) {
    throw CliError("the output folder " + Quote(folder) +
                   " is not usable: " + ErrnoText(errno));
  }
  file.folder_shown = folder;
  for (int links = 0;; ++links) {
    if (name.empty() || name == "." || name == "..") {
      throw CliError("the output " + Quote(user_path) + " is not a file name");
    }
    struct stat status;
    if (fstatat(file.folder.get(), name.c_str(), &status,
                AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT || links > 0) {
        throw CliError("cannot resolve the output " + Quote(user_path) + ": " +
                       ErrnoText(errno));
      }
      break;  // a new file
    }
    if (!S_ISLNK(status.st_mode)) {
      if (!S_ISREG(status.st_mode)) {
        throw CliError(NotARegularFile("output", user_path, status.st_mode,
                                       kWritesRegularFiles));
      }
      file.exists = true;
      file.status = status;
      break;
    }
    if (links == kMaxLinks) {
      throw CliError("cannot resolve the output " + Quote(user_path) + ": " +
                     ErrnoText(ELOOP));
    }
    const std::string link = ReadLink(file.folder.get(), name, user_path);
    if (link.find('/') != std::string::npos) {
      const bool absolute = link[0] == '/';
      const std::string next = Dirname(link);
      UniqueFd next_fd(openat(absolute ? AT_FDCWD : file.folder.get(),
                              next.c_str(),
                              O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (!next_fd.valid()) {
        throw CliError("cannot resolve the output " + Quote(user_path) + ": " +
                       ErrnoText(errno));
      }
      file.folder = std::move(next_fd);
      file.folder_shown = absolute ? next : file.folder_shown + "/" + next;
    }
    name = Basename(link);
  }
  file.name = name;
  return file;
}

}  // namespace lrelu_cli
