// Where an output file goes, held as an open folder plus a name in it, so
// that everything after resolving (creating the temporary file, renaming
// it, removing it on a signal) works on that folder even if it is renamed
// meanwhile, and no absolute path (limited to PATH_MAX) is ever needed.
#ifndef LRELU_TOOLS_OUTPUT_FILE_H_
#define LRELU_TOOLS_OUTPUT_FILE_H_

#include <sys/stat.h>

#include <string>

#include "unique_fd.h"

namespace lrelu_cli {

struct OutputFile {
  std::string shown;         // the path as the user gave it, for messages
  UniqueFd folder;           // the folder the file is (or will be) in
  std::string folder_shown;  // that folder's path, for messages
  std::string name;          // the file's name in `folder`
  bool exists = false;
  struct stat status {};  // when it exists
};

// Resolves the user's output path: a symbolic link is followed (the file
// it points to is replaced, the link stays). Throws CliError when the
// path names something that is not a regular file (a pipe such as
// /dev/stdout, a device, a folder), when its folder is not usable, or when
// it is a dangling link.
OutputFile ResolveOutput(const std::string& user_path);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_OUTPUT_FILE_H_
