// Removing the pending temporary file of an output when a signal ends the
// process. The handler may run in any thread (the library's pool threads
// included), so nothing is ever blocked: the file's name is armed before
// the file is created, and the handler only calls unlinkat() on the folder
// descriptor and re-raises the signal.
#ifndef LRELU_TOOLS_SIGNAL_CLEANUP_H_
#define LRELU_TOOLS_SIGNAL_CLEANUP_H_

#include <string>

namespace lrelu_cli {

// Installs the handler on every signal whose default action ends the
// process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1,
// SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF, SIGPOLL, SIGPWR, SIGSYS, the
// real-time signals, and the crashes SIGSEGV, SIGBUS, SIGILL, SIGFPE,
// SIGABRT, SIGTRAP). A signal that already has another disposition keeps
// it: one the parent ignored (nohup), one a sanitizer handles. SIGXFSZ is
// ignored, so that exceeding a file size limit is a write error with a
// message rather than a silent death.
void InstallSignalCleanup();

// From now on a fatal signal removes `name` in the folder `folder_fd`
// (which must stay open until DisarmTempCleanup()). Arm before creating
// the file: removing a name that does not exist yet is harmless.
void ArmTempCleanup(int folder_fd, const std::string& name);
// Stops removing the armed file (after it was renamed or removed).
void DisarmTempCleanup();

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_SIGNAL_CLEANUP_H_
