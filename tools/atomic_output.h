// Writing an output file all-or-nothing: the data goes to a temporary file
// in the output file's folder (temp_name.h), is fsync'd, then renamed over the
// output file. Readers see the old file or the whole new one. On any failure,
// and on any signal that ends the process (signal_cleanup.h), the
// temporary file is removed and an existing output file stays as it was; a
// temporary file left by SIGKILL or a crash is removed by the next run
// that writes the same output. Everything goes through the folder's
// descriptor, so renaming the folder meanwhile strands nothing.
#ifndef LRELU_TOOLS_ATOMIC_OUTPUT_H_
#define LRELU_TOOLS_ATOMIC_OUTPUT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "output_file.h"
#include "signal_cleanup.h"

namespace lrelu_cli {

class AtomicOutput {
 public:
  // Removes stale temporary files of the same output (saying so on
  // stderr) and creates this one; throws CliError.
  explicit AtomicOutput(OutputFile file);
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  // Removes the temporary file unless Commit() succeeded.
  ~AtomicOutput();

  // Appends bytes; throws CliError.
  void Write(const void* data, std::size_t size);
  // Flushes, gives the file the output file's owner, group and permissions
  // (set-id bits included), or 0666 & ~umask for a new file, and renames
  // it over the output file; throws CliError.
  void Commit();

 private:
  void Discard();
  // Starts writing back what Write() just appended and waits for what came
  // before, so that at most two chunks are dirty and the final fsync (which
  // no signal interrupts) is short.
  void PaceWriteBack(uint64_t end);
  void CopyOwnerAndMode();

  OutputFile file_;
  std::string temp_name_;
  int fd_ = -1;
  bool committed_ = false;
  uint64_t written_ = 0;
  uint64_t started_ = 0;  // bytes whose write-back was started
  uint64_t waited_ = 0;   // bytes whose write-back was waited for
};

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_ATOMIC_OUTPUT_H_
