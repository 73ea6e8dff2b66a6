#include "atomic_output.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "errors.h"

namespace lrelu_cli {
namespace {

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// The pending temporary file, for the signal handler. Plain storage, since
// a handler may only touch volatile sig_atomic_t and data it does not
// allocate.
char g_temp_path[PATH_MAX + 1];
volatile sig_atomic_t g_temp_armed = 0;

extern "C" void RemoveTempAndReraise(int signal_number) {
  if (g_temp_armed) unlink(g_temp_path);
  // SA_RESETHAND restored the default action; the signal is blocked while
  // this handler runs, so it is delivered (and ends the process) on return.
  raise(signal_number);
}

sigset_t CleanupSignalSet() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kCleanupSignals) sigaddset(&set, s);
  return set;
}

void SetSignalsBlocked(bool blocked) {
  const sigset_t set = CleanupSignalSet();
  pthread_sigmask(blocked ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
}

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

mode_t NewFileMode() {
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

}  // namespace

void InstallSignalCleanup() {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = RemoveTempAndReraise;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int s : kCleanupSignals) {
    struct sigaction old;
    sigaction(s, nullptr, &old);
    // A signal ignored by whoever started us (nohup) stays ignored.
    if (old.sa_handler != SIG_IGN) sigaction(s, &action, nullptr);
  }
  signal(SIGXFSZ, SIG_IGN);
  SetSignalsBlocked(true);
}

OutputTarget ResolveOutput(const std::string& user_path) {
  if (user_path.empty()) throw UsageError("the output path is empty");
  OutputTarget target;
  struct stat link_status;
  if (lstat(user_path.c_str(), &link_status) == 0) {
    char resolved[PATH_MAX];
    if (realpath(user_path.c_str(), resolved) == nullptr) {
      throw CliError("cannot resolve the output " + Quote(user_path) + ": " +
                     ErrnoText(errno));
    }
    target.path = resolved;
    if (stat(resolved, &target.status) != 0) {
      throw CliError("cannot stat the output " + Quote(user_path) + ": " +
                     ErrnoText(errno));
    }
    if (!S_ISREG(target.status.st_mode)) {
      throw CliError("the output " + Quote(user_path) +
                     " is not a regular file");
    }
    target.exists = true;
    target.folder = Dirname(target.path);
    return target;
  }
  if (errno != ENOENT) {
    throw CliError("cannot use the output " + Quote(user_path) + ": " +
                   ErrnoText(errno));
  }
  const std::string folder = Dirname(user_path);
  char resolved[PATH_MAX];
  if (realpath(folder.c_str(), resolved) == nullptr) {
    throw CliError("the output folder " + Quote(folder) +
                   " is not usable: " + ErrnoText(errno));
  }
  struct stat folder_status;
  if (stat(resolved, &folder_status) != 0 || !S_ISDIR(folder_status.st_mode)) {
    throw CliError("the output folder " + Quote(folder) + " is not a folder");
  }
  target.folder = resolved;
  const std::string base = Basename(user_path);
  if (base.empty() || base == "." || base == "..") {
    throw CliError("the output " + Quote(user_path) + " is not a file name");
  }
  target.path = (target.folder == "/" ? "" : target.folder) + "/" + base;
  return target;
}

AtomicOutput::AtomicOutput(const OutputTarget& target) : target_(target) {
  // Dot-prefixed so listings skip it; the name is cut so that the suffix
  // still fits in NAME_MAX.
  const std::string base = Basename(target_.path).substr(0, 200);
  std::string pattern = target_.folder + (target_.folder == "/" ? "" : "/") +
                        "." + base + ".lrelu-XXXXXX";
  if (pattern.size() > PATH_MAX) {
    throw CliError("the output path " + Quote(target_.path) + " is too long");
  }
  // Blocked, so no signal can come between creating the file and arming
  // the handler that removes it.
  SetSignalsBlocked(true);
  fd_ = mkostemp(pattern.data(), O_CLOEXEC);
  const int error = errno;
  if (fd_ >= 0) {
    temp_path_ = pattern;
    std::memcpy(g_temp_path, pattern.c_str(), pattern.size() + 1);
    g_temp_armed = 1;
  }
  SetSignalsBlocked(false);
  if (fd_ < 0) {
    throw CliError("cannot create a file in the output folder " +
                   Quote(target_.folder) + ": " + ErrnoText(error));
  }
}

AtomicOutput::~AtomicOutput() { Discard(); }

void AtomicOutput::Discard() {
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  if (!committed_ && !temp_path_.empty()) {
    // Unlink before disarming: a signal in between then unlinks a second
    // time (harmless) instead of leaving the file behind.
    unlink(temp_path_.c_str());
    g_temp_armed = 0;
    temp_path_.clear();
  }
}

void AtomicOutput::Write(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  while (size > 0) {
    const ssize_t written = write(fd_, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) {
      throw CliError("cannot write the output " + Quote(target_.path) + ": " +
                     ErrnoText(errno));
    }
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
}

void AtomicOutput::Commit() {
  const std::string where = "the output " + Quote(target_.path);
  if (target_.exists) {
    if (fchmod(fd_, target_.status.st_mode & 07777) != 0) {
      throw CliError("cannot set the permissions of " + where + ": " +
                     ErrnoText(errno));
    }
    // Best effort: only root may give a file away.
    if (fchown(fd_, target_.status.st_uid, target_.status.st_gid) != 0) {
      errno = 0;
    }
  } else if (fchmod(fd_, NewFileMode()) != 0) {
    throw CliError("cannot set the permissions of " + where + ": " +
                   ErrnoText(errno));
  }
  if (fsync(fd_) != 0) {
    throw CliError("cannot flush " + where + ": " + ErrnoText(errno));
  }
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) {
    throw CliError("cannot close " + where + ": " + ErrnoText(errno));
  }
  SetSignalsBlocked(true);
  const int renamed = rename(temp_path_.c_str(), target_.path.c_str());
  const int error = errno;
  if (renamed == 0) {
    committed_ = true;
    g_temp_armed = 0;
  }
  SetSignalsBlocked(false);
  if (renamed != 0) {
    throw CliError("cannot replace " + where + ": " + ErrnoText(error));
  }
  // Makes the rename itself durable; a failure here loses nothing already
  // visible, so it is not reported.
  const int folder_fd =
      open(target_.folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder_fd >= 0) {
    fsync(folder_fd);
    close(folder_fd);
  }
}

}  // namespace lrelu_cli
