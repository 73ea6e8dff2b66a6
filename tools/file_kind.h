// Naming what a path is, for messages that refuse anything but a regular
// file ("... is not a regular file but a FIFO (named pipe)").
#ifndef LRELU_TOOLS_FILE_KIND_H_
#define LRELU_TOOLS_FILE_KIND_H_

#include <sys/types.h>

#include <string>

namespace lrelu_cli {

// "a folder", "a FIFO (named pipe)", "a character device", ... for the
// type bits of `mode`.
std::string FileKind(mode_t mode);

// "the <role> '<path>' is not a regular file but <kind>", then, unless it
// is a folder (which needs no explanation), "; <why>".
std::string NotARegularFile(const std::string& role, const std::string& path,
                            mode_t mode, const std::string& why);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_FILE_KIND_H_
