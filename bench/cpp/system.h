// What the harness needs from the operating system: thread pinning (a 2-vCPU
// guest stalls for milliseconds when a worker is woken on the main thread's
// CPU) and a measure of other processes' CPU use (a busy second core makes
// 2-thread numbers meaningless).
#ifndef LRELU_BENCH_SYSTEM_H_
#define LRELU_BENCH_SYSTEM_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace lrelu_bench {

// Thread ids of this process, ascending (creation order, in practice).
std::vector<pid_t> ListThreads();

// Pins one thread (0 = the caller) to one CPU; false when that CPU is absent.
bool PinThread(pid_t tid, int cpu);

// Pins the threads that are not in `known` to CPUs 1, 0, 1, 0, ... in order:
// a pool's first worker goes next to the main thread (on CPU 0), a second
// one (Eigen's pool has two) shares CPU 0 with the waiting main thread.
// Adds them to `known` and describes what it did in `log`.
void PinNewThreads(std::vector<pid_t>* known, const std::string& owner,
                   std::string* log);

// Waits, up to max_s seconds, until no other thread of this process is
// running, and returns the seconds waited. A pool that spins after its call
// (pthreadpool's workers spin for milliseconds) would otherwise keep a CPU
// from whatever is timed next, so each timed pair starts with the process
// quiet.
double WaitForIdleThreads(double max_s);

// CPU time used by other processes, in CPUs, between Start() and Stop():
// all busy time in /proc/stat minus this process's own CPU time.
class LoadMonitor {
 public:
  void Start();
  double Stop() const;  // e.g. 0.02 = 2% of one CPU

 private:
  double busy_s_ = 0, own_s_ = 0, wall_s_ = 0;
};

// Cache and CPU facts for the report (model name, L1d/L2/L3 sizes).
std::string DescribeCpu();

}  // namespace lrelu_bench

#endif  // LRELU_BENCH_SYSTEM_H_
