// A call on lrelu's own pool returns, with the oracle's bits, when worker
// threads cannot be created: under RLIMIT_NPROC (the test drops root first,
// since root ignores that limit), under RLIMIT_AS (`ulimit -v`) with a
// multi-MiB input, in a pids cgroup limited to 1, and in a forked child of a process whose pool had
// started. Each case runs in a child process with an alarm: a hang is
// killed and reported, not waited for. Before lrelu had its own pool,
// Debian's pthreadpool waited forever for a worker that was never created.
// The pids cgroup case runs where the test may create one (root, a writable
// v1 or v2 pids hierarchy) and is skipped elsewhere.
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cpu/thread_pool.h"
#include "lrelu/lrelu.h"
#include "reference/reference.h"
#include "support/sanitizers.h"
#include "support/test_data.h"

namespace {

constexpr int kSkip = 77;  // ctest SKIP_RETURN_CODE
constexpr unsigned kHangSeconds = 120;

using lrelu::testing::kSanitized;

// A forward and a gradient call of float32 data big enough for several
// tasks. Everything is allocated, and the oracle's answers computed, before
// `limit` runs, so the limit only meets what the calls themselves need.
struct Data {
  explicit Data(size_t count) : n(count) {
    std::mt19937_64 rng(7);
    x = lrelu::testing::RandomBits(kType, n, rng);
    dy = lrelu::testing::RandomBits(kType, n, rng);
    out.resize(x.size());
    forward.resize(x.size());
    gradient.resize(x.size());
    lrelu::reference::Apply(kType, x.data(), x.data(), forward.data(), n, 0.1);
    lrelu::reference::Apply(kType, dy.data(), x.data(), gradient.data(), n,
                            0.1);
  }
  static constexpr lrelu_dtype_t kType = LRELU_DTYPE_FLOAT32;
  size_t n;
  std::vector<unsigned char> x, dy, out, forward, gradient;
};

bool Matches(const Data& d, const std::vector<unsigned char>& expected,
             const std::vector<unsigned char>& s, const char* what) {
  for (size_t i = 0; i < d.n; ++i) {
    const uint64_t sb = lrelu::testing::LoadBits(Data::kType, s.data(), i);
    const uint64_t e = lrelu::testing::LoadBits(Data::kType, expected.data(), i);
    const uint64_t a = lrelu::testing::LoadBits(Data::kType, d.out.data(), i);
    if (!lrelu::testing::ElementMatches(Data::kType, sb, e, a)) {
      std::fprintf(stderr, "%s: element %zu differs from the oracle\n", what, i);
      return false;
    }
  }
  return true;
}

// Returns a process exit code.
int CallsMatchTheOracle(size_t n, int (*limit)() = nullptr) {
  Data d(n);
  if (limit != nullptr) {
    const int code = limit();
    if (code != 0) return code;
  }
  const int64_t shape[1] = {static_cast<int64_t>(n)};
  lrelu_tensor_t tx = {d.x.data(), Data::kType, 1, shape, nullptr};
  lrelu_tensor_t tdy = {d.dy.data(), Data::kType, 1, shape, nullptr};
  lrelu_tensor_t tout = {d.out.data(), Data::kType, 1, shape, nullptr};
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.threads = 8;
  lrelu_status_t status = lrelu_leaky_relu(&tx, 0.1, &tout, &options);
  if (status != LRELU_STATUS_OK) {
    std::fprintf(stderr, "forward: %s: %s\n", lrelu_status_string(status),
                 lrelu_last_error());
    return 1;
  }
  if (!Matches(d, d.forward, d.x, "forward")) return 1;
  status = lrelu_leaky_relu_backward(&tdy, &tx, 0.1, LRELU_GRAD_FROM_X, &tout,
                                     &options);
  if (status != LRELU_STATUS_OK) {
    std::fprintf(stderr, "gradient: %s: %s\n", lrelu_status_string(status),
                 lrelu_last_error());
    return 1;
  }
  if (!Matches(d, d.gradient, d.x, "gradient")) return 1;
  std::printf("  own pool workers: %zu\n", lrelu::cpu::OwnThreadPoolWorkers());
  return 0;
}

// RLIMIT_NPROC: no new thread for this user. Root is exempt, so drop to
// nobody (65534) first.
int UnderProcessLimit() {
  if (geteuid() == 0) {
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 ||
        setuid(65534) != 0) {
      std::perror("cannot drop root (setgid/setuid 65534)");
      return kSkip;
    }
  }
  const int status = CallsMatchTheOracle(size_t{1} << 22, [] {
    const rlimit limit = {1, 1};
    if (setrlimit(RLIMIT_NPROC, &limit) == 0) return 0;
    std::perror("setrlimit(RLIMIT_NPROC)");
    return kSkip;
  });
  if (status == 0 && lrelu::cpu::OwnThreadPoolWorkers() != 0) {
    std::fprintf(stderr, "a worker was created despite RLIMIT_NPROC\n");
    return 1;
  }
  return status;
}

// A pids cgroup (v1 at /sys/fs/cgroup/pids, or v2 with the pids controller
// at /sys/fs/cgroup) whose limit is the one process already in it: how
// containers limit processes. Needs root; the parent removes the group.
std::string g_pids_group;

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

std::string PidsHierarchy() {
  if (access("/sys/fs/cgroup/pids/cgroup.procs", W_OK) == 0) {
    return "/sys/fs/cgroup/pids";
  }
  std::ifstream controllers("/sys/fs/cgroup/cgroup.controllers");
  std::string word;
  while (controllers >> word) {
    if (word == "pids" && access("/sys/fs/cgroup/cgroup.procs", W_OK) == 0) {
      return "/sys/fs/cgroup";
    }
  }
  return "";
}

int UnderPidsCgroup() {
  const int status = CallsMatchTheOracle(size_t{1} << 22, [] {
    const std::string& dir = g_pids_group;
    if (dir.empty() || !WriteFile(dir + "/pids.max", "1") ||
        !WriteFile(dir + "/cgroup.procs", std::to_string(getpid()))) {
      std::printf("  skipped: no writable pids cgroup\n");
      return kSkip;
    }
    return 0;
  });
  if (status == 0 && lrelu::cpu::OwnThreadPoolWorkers() != 0) {
    std::fprintf(stderr, "a worker was created despite pids.max\n");
    return 1;
  }
  return status;
}

// Address space of the process now, from /proc/self/status (VmSize, KiB).
size_t AddressSpaceBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmSize:", 0) == 0) {
      return std::strtoull(line.c_str() + 7, nullptr, 10) * 1024;
    }
  }
  return 0;
}

// RLIMIT_AS 3 MiB above what the process uses once the 6 MiB buffers are
// there: a small worker stack fits, a default (8 MiB) one would not.
int UnderAddressSpaceLimit() {
  if (kSanitized) {
    std::printf("  skipped: sanitizers reserve terabytes of address space\n");
    return kSkip;
  }
  return CallsMatchTheOracle((size_t{6} << 20) / sizeof(float), [] {
    const size_t used = AddressSpaceBytes();
    if (used == 0) return kSkip;
    const rlim_t cap = used + (size_t{3} << 20);
    const rlimit limit = {cap, cap};
    if (setrlimit(RLIMIT_AS, &limit) == 0) return 0;
    std::perror("setrlimit(RLIMIT_AS)");
    return kSkip;
  });
}

// The parent's pool has started; its workers do not exist in a fork.
int AfterFork() { return CallsMatchTheOracle(size_t{1} << 22); }

// Runs `body` in a child with a hang alarm; returns its exit code, or 1
// when it was killed (hung or crashed).
int InChild(const char* name, int (*body)()) {
  std::printf("%s\n", name);
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    return 1;
  }
  if (pid == 0) {
    alarm(kHangSeconds);
    const int code = body();
    std::fflush(stdout);
    _exit(code);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 1;
  if (WIFSIGNALED(status)) {
    std::fprintf(stderr, "%s: killed by signal %d%s\n", name,
                 WTERMSIG(status),
                 WTERMSIG(status) == SIGALRM ? " (hung: the call never returned)"
                                             : "");
    return 1;
  }
  return WEXITSTATUS(status);
}

}  // namespace

int main() {
  int failures = 0;
  int skipped = 0;
  struct Case {
    const char* name;
    int (*body)();
  };
  const Case first[] = {{"RLIMIT_NPROC", &UnderProcessLimit},
                        {"RLIMIT_AS", &UnderAddressSpaceLimit}};
  for (const Case& c : first) {
    const int code = InChild(c.name, c.body);
    if (code == kSkip) ++skipped;
    if (code != 0 && code != kSkip) ++failures;
  }
  const std::string hierarchy = PidsHierarchy();
  if (!hierarchy.empty()) {
    g_pids_group = hierarchy + "/lrelu-thread-limits-" + std::to_string(getpid());
    if (mkdir(g_pids_group.c_str(), 0755) != 0) g_pids_group.clear();
  }
  const int code = InChild("pids cgroup", &UnderPidsCgroup);
  if (code == kSkip) ++skipped;
  if (code != 0 && code != kSkip) ++failures;
  if (!g_pids_group.empty()) rmdir(g_pids_group.c_str());
  // Start the parent's pool, then fork.
  if (CallsMatchTheOracle(size_t{1} << 22) != 0) ++failures;
  if (lrelu::testing::kThreadSanitizer) {
    std::printf("fork after the pool started: skipped under TSan\n");
  } else if (InChild("fork after the pool started", &AfterFork) != 0) {
    ++failures;
  }
  std::printf("thread_limits_test: %s (%d skipped)\n",
              failures == 0 ? "ok" : "FAILED", skipped);
  if (failures != 0) return 1;
  return skipped == 3 ? kSkip : 0;
}
