#include "system.h"

#include <dirent.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace lrelu_bench {
namespace {

double Seconds(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

// Busy seconds of all CPUs together: everything in the "cpu" line of
// /proc/stat but idle and iowait.
double BusySeconds() {
  std::ifstream in("/proc/stat");
  std::string label;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0,
                     irq = 0, softirq = 0, steal = 0;
  in >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >>
      steal;
  static const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  return static_cast<double>(user + nice + system + irq + softirq + steal) /
         tick;
}

std::string ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Whether a thread of this process is running or runnable (state R in
// /proc/self/task/<tid>/stat, the field after the command's parenthesis).
bool Running(pid_t tid) {
  const std::string stat =
      ReadFirstLine("/proc/self/task/" + std::to_string(tid) + "/stat");
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() &&
         stat[close + 2] == 'R';
}

}  // namespace

std::vector<pid_t> ListThreads() {
  std::vector<pid_t> tids;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(dir)) {
      if (e->d_name[0] != '.') tids.push_back(std::atoi(e->d_name));
    }
    closedir(dir);
  }
  std::sort(tids.begin(), tids.end());
  return tids;
}

bool PinThread(pid_t tid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(tid, sizeof(set), &set) == 0;
}

void PinNewThreads(std::vector<pid_t>* known, const std::string& owner,
                   std::string* log) {
  if (std::getenv("PIN") && std::string(std::getenv("PIN")) == "0") return;
  int next = 1;
  for (pid_t tid : ListThreads()) {
    if (std::find(known->begin(), known->end(), tid) != known->end()) continue;
    known->push_back(tid);
    const bool ok = PinThread(tid, next);
    *log += owner + ": " + std::to_string(tid) + "->cpu" +
            std::to_string(next) + (ok ? "" : " (failed)") + "; ";
    next = 1 - next;
  }
}

double WaitForIdleThreads(double max_s) {
  const pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
  const double start = Seconds(CLOCK_MONOTONIC);
  for (;;) {
    bool busy = false;
    for (pid_t tid : ListThreads()) {
      if (tid != self && Running(tid)) {
        busy = true;
        break;
      }
    }
    const double waited = Seconds(CLOCK_MONOTONIC) - start;
    if (!busy || waited >= max_s) return waited;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void LoadMonitor::Start() {
  busy_s_ = BusySeconds();
  own_s_ = Seconds(CLOCK_PROCESS_CPUTIME_ID);
  wall_s_ = Seconds(CLOCK_MONOTONIC);
}

double LoadMonitor::Stop() const {
  const double wall = Seconds(CLOCK_MONOTONIC) - wall_s_;
  if (wall <= 0) return 0;
  const double busy = BusySeconds() - busy_s_;
  const double own = Seconds(CLOCK_PROCESS_CPUTIME_ID) - own_s_;
  // /proc/stat counts in ticks (10 ms), so short blocks read a little high or
  // low; clamp at zero.
  return std::max(0.0, (busy - own) / wall);
}

std::string DescribeCpu() {
  // The model name alone can be a hypervisor's generic one ("AMD EPYC"):
  // the family and model say which microarchitecture ran.
  std::string name;
  std::string family;
  std::string model;
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line) && line != "";) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos || colon + 2 > line.size()) continue;
    const std::string value = line.substr(colon + 2);
    if (line.rfind("model name", 0) == 0) name = value;
    if (line.rfind("cpu family", 0) == 0) family = value;
    if (line.rfind("model\t", 0) == 0) model = value;
  }
  std::ostringstream out;
  out << name;
  if (!family.empty() && !model.empty()) {
    out << " (family " << family << ", model " << model << ")";
  }
  out << "; " << sysconf(_SC_NPROCESSORS_ONLN) << " CPUs";
  const char* base = "/sys/devices/system/cpu/cpu0/cache/index";
  for (int i = 0; i < 4; ++i) {
    const std::string dir = base + std::to_string(i);
    const std::string level = ReadFirstLine(dir + "/level");
    if (level.empty()) break;
    const std::string type = ReadFirstLine(dir + "/type");
    if (type == "Instruction") continue;
    out << "; L" << level << (type == "Data" ? "d" : "") << " "
        << ReadFirstLine(dir + "/size");
  }
  out << (__builtin_cpu_supports("avx512f") ? "; AVX-512"
                                            : "; AVX2, no AVX-512");
  return out.str();
}

}  // namespace lrelu_bench
