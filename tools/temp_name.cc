#include "temp_name.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>

#include "unique_fd.h"

namespace lrelu_cli {
namespace {

constexpr char kLetters[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
constexpr std::size_t kRandomChars = 6;

bool IsLetterOrDigit(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9');
}

bool ProcessIsGone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

// True when the file `entry` can be removed: a regular file of this user
// that nobody holds locked (the writer keeps an exclusive lock).
bool IsAbandoned(int folder_fd, const char* entry) {
  UniqueFd fd(
      openat(folder_fd, entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return false;
  struct stat status;
  if (fstat(fd.get(), &status) != 0 || !S_ISREG(status.st_mode) ||
      status.st_uid != geteuid()) {
    return false;
  }
  // A file system without locks (ENOLCK) leaves the process check alone.
  return flock(fd.get(), LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK;
}

}  // namespace

std::string TempPrefix(const std::string& name) {
  return "." + name.substr(0, 200) + ".lrelu-";
}

std::string NewTempName(const std::string& name) {
  std::random_device device;
  std::uniform_int_distribution<std::size_t> pick(0, sizeof(kLetters) - 2);
  std::string suffix;
  for (std::size_t i = 0; i < kRandomChars; ++i)
    suffix += kLetters[pick(device)];
  return TempPrefix(name) + std::to_string(getpid()) + "-" + suffix;
}

pid_t TempNameOwner(const std::string& name, const std::string& candidate) {
  const std::string prefix = TempPrefix(name);
  if (candidate.compare(0, prefix.size(), prefix) != 0) return 0;
  std::size_t i = prefix.size();
  long long pid = 0;
  const std::size_t digits_start = i;
  while (i < candidate.size() && candidate[i] >= '0' && candidate[i] <= '9' &&
         i - digits_start < 10) {
    pid = pid * 10 + (candidate[i] - '0');
    ++i;
  }
  if (i == digits_start || pid <= 0 || pid > INT32_MAX) return 0;
  if (i >= candidate.size() || candidate[i] != '-') return 0;
  ++i;
  if (candidate.size() - i != kRandomChars) return 0;
  for (; i < candidate.size(); ++i) {
    if (!IsLetterOrDigit(candidate[i])) return 0;
  }
  return static_cast<pid_t>(pid);
}

std::vector<std::string> RemoveStaleTemps(int folder_fd,
                                          const std::string& name) {
  std::vector<std::string> removed;
  const int listing_fd =
      openat(folder_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (listing_fd < 0) return removed;
  DIR* folder = fdopendir(listing_fd);
  if (folder == nullptr) {
    close(listing_fd);
    return removed;
  }
  while (const dirent* entry = readdir(folder)) {
    const pid_t owner = TempNameOwner(name, entry->d_name);
    if (owner == 0 || !ProcessIsGone(owner)) continue;
    if (IsAbandoned(folder_fd, entry->d_name) &&
        unlinkat(folder_fd, entry->d_name, 0) == 0) {
      removed.push_back(entry->d_name);
    }
  }
  closedir(folder);
  return removed;
}

}  // namespace lrelu_cli
