#include "copy_xattrs.h"

#include <acl/libacl.h>
#include <attr/error_context.h>
#include <attr/libattr.h>
#include <fcntl.h>

#include <cerrno>
#include <cstring>

#include "errors.h"
#include "unique_fd.h"

namespace lrelu_cli {
namespace {

// attr_copy_fd's filter: user attributes that /etc/xattr.conf does not
// mark to skip. ACLs ("permissions" there) come from perm_copy_fd.
extern "C" int CopyUserAttribute(const char* name, struct error_context* ctx) {
  return std::strncmp(name, "user.", 5) == 0 &&
         attr_copy_check_permissions(name, ctx);
}

}  // namespace

std::string CopyAclAndUserXattrs(int folder_fd, const std::string& name,
                                 int to_fd) {
  UniqueFd from(openat(folder_fd, name.c_str(),
                       O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!from.valid()) return ErrnoText(errno);
  // The paths are only for messages, which a null context suppresses.
  if (perm_copy_fd(name.c_str(), from.get(), name.c_str(), to_fd, nullptr) !=
      0) {
    return "the ACL: " + ErrnoText(errno);
  }
  if (attr_copy_fd(name.c_str(), from.get(), name.c_str(), to_fd,
                   CopyUserAttribute, nullptr) != 0) {
    return "the extended attributes: " + ErrnoText(errno);
  }
  return "";
}

}  // namespace lrelu_cli
