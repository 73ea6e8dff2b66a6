// Names of the temporary files `lrelu apply` writes next to OUT:
// `.OUT.lrelu-PID-XXXXXX`, with the writer's process id and six random
// letters or digits. The writer holds an exclusive flock() on the file
// while it exists, so a later run can tell a file left behind by a killed
// run (SIGKILL, a crash) from one that is still being written.
#ifndef LRELU_TOOLS_TEMP_NAME_H_
#define LRELU_TOOLS_TEMP_NAME_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace lrelu_cli {

// The part of every temporary name for the output file `name` before the
// process id: "." + name (cut to 200 bytes, so a name fits NAME_MAX) +
// ".lrelu-".
std::string TempPrefix(const std::string& name);

// A fresh temporary name for `name` and this process.
std::string NewTempName(const std::string& name);

// The process id in `candidate` when it is a temporary name for `name`,
// else 0.
pid_t TempNameOwner(const std::string& name, const std::string& candidate);

// Removes, in the folder `folder_fd`, the temporary files for `name` that
// this user owns, whose process is gone and that no process holds locked;
// returns their names.
std::vector<std::string> RemoveStaleTemps(int folder_fd,
                                          const std::string& name);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_TEMP_NAME_H_
