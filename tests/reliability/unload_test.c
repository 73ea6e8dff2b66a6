/* liblrelu loaded with dlopen, a call on lrelu's own pool with several
 * tasks, then (mode "dlclose") dlclose and exit, or (mode "exit") exit with
 * the library still loaded. Either way the process must exit 0: no worker
 * thread of lrelu's may survive its library (after dlclose a worker woken by
 * a signal would run unmapped code: the crash once seen at Octave's exit).
 * An atexit handler registered before dlopen checks that no thread is left
 * once liblrelu's exit-time destructors have run.
 * Usage: unload_test PATH-TO-liblrelu.so dlclose|exit */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lrelu/lrelu.h"

typedef void (*OptionsInit)(lrelu_options_t*);
typedef lrelu_status_t (*Forward)(const lrelu_tensor_t*, double,
                                  const lrelu_tensor_t*,
                                  const lrelu_options_t*);

static int g_expect_one_thread = 0;
/* Threads before liblrelu was loaded (1, or more with a sanitizer's own). */
static int g_baseline = 1;

/* Registered before dlopen, so it runs after liblrelu's own exit-time
 * destructors: by then lrelu's workers must have been joined. */
static void CheckThreadsAtExit(void);

/* Threads of this process (entries of /proc/self/task). */
static int CountThreads(void) {
  DIR* dir = opendir("/proc/self/task");
  if (dir == NULL) return -1;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(dir)) != NULL) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n;
}

/* CountThreads once it reaches `want`, or after ~200 ms: a joined thread
 * can stay listed in /proc/self/task for a moment after pthread_join
 * returns (the kernel clears the joiner's futex before it reaps the task;
 * seen once in CI), but a thread still running stays listed. */
static int SettledThreads(int want) {
  int n = CountThreads();
  for (int i = 0; i < 200 && n != want; ++i) {
    usleep(1000);
    n = CountThreads();
  }
  return n;
}

static void CheckThreadsAtExit(void) {
  if (!g_expect_one_thread) return;
  const int left = SettledThreads(g_baseline);
  printf("threads at exit: %d\n", left);
  fflush(stdout);
  if (left != g_baseline) {
    fprintf(stderr, "%d lrelu threads still run at exit\n", left - g_baseline);
    _exit(1);
  }
}

/* 1 when a mapping of the file at `path` (by name) is still in the process. */
static int StillMapped(const char* path) {
  const char* name = strrchr(path, '/');
  name = name == NULL ? path : name + 1;
  FILE* maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) return -1;
  char line[4096];
  int found = 0;
  while (fgets(line, sizeof(line), maps) != NULL) {
    if (strstr(line, name) != NULL) found = 1;
  }
  fclose(maps);
  return found;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: unload_test LIB dlclose|exit\n");
    return 2;
  }
  const int close_it = strcmp(argv[2], "dlclose") == 0;
  if (atexit(&CheckThreadsAtExit) != 0) return 1;
  g_baseline = CountThreads();
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  OptionsInit options_init = (OptionsInit)dlsym(lib, "lrelu_options_init");
  Forward forward = (Forward)dlsym(lib, "lrelu_leaky_relu");
  if (options_init == NULL || forward == NULL) {
    fprintf(stderr, "dlsym: %s\n", dlerror());
    return 1;
  }
  /* 8 Mi float32: large enough for several tasks on any machine. */
  const int64_t n = (int64_t)1 << 23;
  float* x = malloc((size_t)n * sizeof(float));
  float* y = malloc((size_t)n * sizeof(float));
  float* expected = malloc((size_t)n * sizeof(float));
  if (x == NULL || y == NULL || expected == NULL) return 1;
  for (int64_t i = 0; i < n; ++i) x[i] = (float)(i % 1001 - 500) * 0.25f;
  lrelu_tensor_t tx = {x, LRELU_DTYPE_FLOAT32, 1, &n, NULL};
  lrelu_tensor_t ty = {y, LRELU_DTYPE_FLOAT32, 1, &n, NULL};
  lrelu_tensor_t te = {expected, LRELU_DTYPE_FLOAT32, 1, &n, NULL};
  lrelu_options_t options;
  options_init(&options);
  options.threads = 4;
  if (forward(&tx, 0.1, &ty, &options) != LRELU_STATUS_OK) return 1;
  /* The oracle: the library's reference variant, one task. */
  options.threads = 1;
  options.variant = "reference";
  if (forward(&tx, 0.1, &te, &options) != LRELU_STATUS_OK) return 1;
  if (memcmp(y, expected, (size_t)n * sizeof(float)) != 0) {
    fprintf(stderr, "result differs from the reference variant\n");
    return 1;
  }
  printf("threads after the call: %d\n", CountThreads());
  if (close_it) {
    if (dlclose(lib) != 0) {
      fprintf(stderr, "dlclose: %s\n", dlerror());
      return 1;
    }
    const int left = SettledThreads(g_baseline);
    const int mapped = StillMapped(argv[1]);
    printf("threads after dlclose: %d; library %s\n", left,
           mapped ? "still mapped (NODELETE: its code stays)" : "unmapped");
    if (!mapped && left != g_baseline) {
      fprintf(stderr, "%d threads outlive the unmapped liblrelu\n",
              left - g_baseline);
      return 1;
    }
  }
  g_expect_one_thread = 1;
  free(x);
  free(y);
  free(expected);
  return 0; /* exit: liblrelu's destructors run (mode "exit") */
}
