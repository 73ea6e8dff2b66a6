#include "atomic_output.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <utility>

#include "copy_xattrs.h"
#include "errors.h"
#include "temp_name.h"

namespace lrelu_cli {
namespace {

// Write-back is started once this much was appended since the last start.
constexpr uint64_t kWriteBackStep = uint64_t{8} << 20;
constexpr int kCreateAttempts = 100;

mode_t NewFileMode() {
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

std::string InFolder(const std::string& folder, const std::string& name) {
  return folder == "." ? name : folder + "/" + name;
}

}  // namespace

AtomicOutput::AtomicOutput(OutputFile file) : file_(std::move(file)) {
  const int folder = file_.folder.get();
  for (const std::string& stale : RemoveStaleTemps(folder, file_.name)) {
    std::fprintf(stderr,
                 "lrelu: note: removed %s, the temporary file of an "
                 "interrupted run (process %d is gone)\n",
                 Quote(InFolder(file_.folder_shown, stale)).c_str(),
                 static_cast<int>(TempNameOwner(file_.name, stale)));
  }
  int error = 0;
  for (int attempt = 0; attempt < kCreateAttempts && fd_ < 0; ++attempt) {
    temp_name_ = NewTempName(file_.name);
    // Armed first, so that no signal can come between creating the file
    // and arming its removal.
    ArmTempCleanup(folder, temp_name_);
    fd_ = openat(folder, temp_name_.c_str(),
                 O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    error = errno;
    if (fd_ < 0) DisarmTempCleanup();
    if (fd_ < 0 && error != EEXIST) break;
  }
  if (fd_ < 0) {
    temp_name_.clear();
    throw CliError("cannot create a file in the output folder " +
                   Quote(file_.folder_shown) + ": " + ErrnoText(error));
  }
  // Tells a later run that this file is being written (temp_name.h).
  flock(fd_, LOCK_EX | LOCK_NB);
}

AtomicOutput::~AtomicOutput() { Discard(); }

void AtomicOutput::Discard() {
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  if (!committed_ && !temp_name_.empty()) {
    // Remove before disarming: a signal in between then removes a second
    // time (harmless) instead of leaving the file behind.
    unlinkat(file_.folder.get(), temp_name_.c_str(), 0);
    DisarmTempCleanup();
    temp_name_.clear();
  }
}

void AtomicOutput::Write(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  while (size > 0) {
    const ssize_t written = write(fd_, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) {
      throw CliError("cannot write the output " + Quote(file_.shown) + ": " +
                     ErrnoText(errno));
    }
    bytes += written;
    size -= static_cast<std::size_t>(written);
    written_ += static_cast<uint64_t>(written);
  }
  if (written_ - started_ >= kWriteBackStep) PaceWriteBack(written_);
}

void AtomicOutput::PaceWriteBack(uint64_t end) {
  // Errors (a file system without write-back, EINVAL) are left to fsync.
  if (started_ > waited_) {
    sync_file_range(fd_, static_cast<off_t>(waited_),
                    static_cast<off_t>(started_ - waited_),
                    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                        SYNC_FILE_RANGE_WAIT_AFTER);
    waited_ = started_;
  }
  sync_file_range(fd_, static_cast<off_t>(started_),
                  static_cast<off_t>(end - started_), SYNC_FILE_RANGE_WRITE);
  started_ = end;
}

void AtomicOutput::CopyOwnerAndMode() {
  const std::string where = "the output " + Quote(file_.shown);
  if (!file_.exists) {
    if (fchmod(fd_, NewFileMode()) != 0) {
      throw CliError("cannot set the permissions of " + where + ": " +
                     ErrnoText(errno));
    }
    return;
  }
  // Owner before mode: changing the owner clears the set-id bits. Only
  // root may give a file away; anyone may keep the group if a member of
  // it. Both are best effort.
  if (fchown(fd_, file_.status.st_uid, file_.status.st_gid) != 0) {
    if (fchown(fd_, static_cast<uid_t>(-1), file_.status.st_gid) != 0) {
      errno = 0;
    }
  }
  const std::string lost =
      CopyAclAndUserXattrs(file_.folder.get(), file_.name, fd_);
  if (!lost.empty()) {
    std::fprintf(stderr,
                 "lrelu: note: %s keeps its mode and owner but not its ACL "
                 "and extended attributes (%s)\n",
                 Quote(file_.shown).c_str(), lost.c_str());
  }
  // Last, after the ACL: it restores the set-id bits, which changing the
  // ACL may clear.
  if (fchmod(fd_, file_.status.st_mode & 07777) != 0) {
    throw CliError("cannot set the permissions of " + where + ": " +
                   ErrnoText(errno));
  }
}

void AtomicOutput::Commit() {
  const std::string where = "the output " + Quote(file_.shown);
  CopyOwnerAndMode();
  if (fsync(fd_) != 0) {
    throw CliError("cannot flush " + where + ": " + ErrnoText(errno));
  }
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) {
    throw CliError("cannot close " + where + ": " + ErrnoText(errno));
  }
  const int folder = file_.folder.get();
  if (renameat(folder, temp_name_.c_str(), folder, file_.name.c_str()) != 0) {
    throw CliError("cannot replace " + where + ": " + ErrnoText(errno));
  }
  committed_ = true;
  // A signal before this line removes a name that no longer exists.
  DisarmTempCleanup();
  // Makes the rename itself durable; a failure here loses nothing already
  // visible, so it is not reported.
  fsync(folder);
}

}  // namespace lrelu_cli
