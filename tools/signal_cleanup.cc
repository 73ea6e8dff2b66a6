#include "signal_cleanup.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace lrelu_cli {
namespace {

constexpr int kFatalSignals[] = {
    SIGINT,    SIGTERM, SIGHUP,    SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1,
    SIGUSR2,   SIGXCPU, SIGVTALRM, SIGPROF, SIGPOLL, SIGPWR,  SIGSYS,
    SIGSEGV,   SIGBUS,  SIGILL,    SIGFPE,  SIGABRT, SIGTRAP,
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
};

// Read by the handler, which may run in any thread: lock-free atomics and
// a plain buffer written only while disarmed.
char g_temp_name[NAME_MAX + 1];
std::atomic<int> g_folder_fd{-1};
std::atomic<bool> g_armed{false};
static_assert(std::atomic<int>::is_always_lock_free &&
                  std::atomic<bool>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

extern "C" void RemoveTempAndReraise(int signal_number) {
  if (g_armed.load()) unlinkat(g_folder_fd.load(), g_temp_name, 0);
  // SA_RESETHAND restored the default action: re-raising ends the process
  // with this signal (a fault re-faults on return, with the same effect).
  raise(signal_number);
}

void Handle(int signal_number) {
  struct sigaction old;
  if (sigaction(signal_number, nullptr, &old) != 0) return;
  const bool has_handler =
      (old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL;
  if (has_handler) return;  // ignored by the parent, or a sanitizer's
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = RemoveTempAndReraise;
  action.sa_flags = SA_RESETHAND;
  // Another signal arriving meanwhile waits until the file is removed.
  sigfillset(&action.sa_mask);
  sigaction(signal_number, &action, nullptr);
}

}  // namespace

void InstallSignalCleanup() {
  for (int s : kFatalSignals) Handle(s);
  for (int s = SIGRTMIN; s <= SIGRTMAX; ++s) Handle(s);
  struct sigaction old;
  if (sigaction(SIGXFSZ, nullptr, &old) == 0 &&
      (old.sa_flags & SA_SIGINFO) == 0 && old.sa_handler == SIG_DFL) {
    signal(SIGXFSZ, SIG_IGN);
  }
}

void ArmTempCleanup(int folder_fd, const std::string& name) {
  g_armed.store(false);
  const std::size_t size = std::min(name.size(), sizeof(g_temp_name) - 1);
  std::memcpy(g_temp_name, name.data(), size);
  g_temp_name[size] = '\0';
  g_folder_fd.store(folder_fd);
  g_armed.store(true);
}

void DisarmTempCleanup() { g_armed.store(false); }

}  // namespace lrelu_cli
