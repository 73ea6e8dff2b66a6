#include "threads.h"

#include <atomic>

namespace lrelu_python {
namespace {

std::atomic<size_t> g_default_threads{0};
thread_local int64_t g_thread_override = -1;

}  // namespace

size_t DefaultThreads() { return g_default_threads.load(); }

void SetDefaultThreads(size_t threads) { g_default_threads.store(threads); }

int64_t SwapThreadOverride(int64_t threads) {
  const int64_t previous = g_thread_override;
  g_thread_override = threads < 0 ? -1 : threads;
  return previous;
}

lrelu_options_t CurrentOptions() {
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.threads = g_thread_override >= 0
                        ? static_cast<size_t>(g_thread_override)
                        : DefaultThreads();
  return options;
}

}  // namespace lrelu_python
