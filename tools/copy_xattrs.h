// Keeping a replaced file's POSIX ACL and user extended attributes on its
// replacement, through libacl's perm_copy_fd and libattr's attr_copy_fd.
#ifndef LRELU_TOOLS_COPY_XATTRS_H_
#define LRELU_TOOLS_COPY_XATTRS_H_

#include <string>

namespace lrelu_cli {

// Copies the access ACL and the `user.*` extended attributes of the file
// `name` in the folder `folder_fd` to the open file `to_fd`. Other
// namespaces (security.*, trusted.*) are left to the system: they need
// privileges and describe the file, not its data. Returns "" on success,
// else why not everything was copied (the caller decides whether to say
// so; an unreadable old file cannot be read for its attributes).
std::string CopyAclAndUserXattrs(int folder_fd, const std::string& name,
                                 int to_fd);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_COPY_XATTRS_H_
