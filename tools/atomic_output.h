// Writing an output file all-or-nothing: the data goes to a temporary file
// in the target's folder, is fsync'd, then rename()d over the target. Readers
// see the old file or the whole new one, and on any failure, including
// SIGINT, SIGTERM, SIGHUP and SIGQUIT, the temporary file is removed and an
// existing target stays as it was.
#ifndef LRELU_TOOLS_ATOMIC_OUTPUT_H_
#define LRELU_TOOLS_ATOMIC_OUTPUT_H_

#include <sys/stat.h>

#include <cstddef>
#include <string>

namespace lrelu_cli {

// Installs the signal handlers that remove a pending temporary file, and
// blocks those signals in the calling thread. Call it before any other
// thread starts: threads started later (the library's pool) inherit the
// block, so the signals only reach this thread, and AtomicOutput unblocks
// them except while it creates or renames the temporary file. Also ignores
// SIGXFSZ, so exceeding a file size limit is a write error, not a crash.
void InstallSignalCleanup();

// Where an output goes: `path` is the file that will be replaced (symbolic
// links resolved), `exists` says whether it exists now (then `status` is
// its stat).
struct OutputTarget {
  std::string path;
  std::string folder;
  bool exists = false;
  struct stat status {};
};

// Resolves the user's output path; throws CliError when its folder does not
// exist or is not a folder, or when it names something that is not a
// regular file.
OutputTarget ResolveOutput(const std::string& user_path);

class AtomicOutput {
 public:
  // Creates the temporary file for `target`; throws CliError.
  explicit AtomicOutput(const OutputTarget& target);
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  // Removes the temporary file unless Commit() succeeded.
  ~AtomicOutput();

  // Appends bytes; throws CliError.
  void Write(const void* data, std::size_t size);
  // Flushes, gives the file the target's permissions (or 0666 & ~umask for
  // a new file) and renames it over the target; throws CliError.
  void Commit();

 private:
  void Discard();

  OutputTarget target_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_ATOMIC_OUTPUT_H_
