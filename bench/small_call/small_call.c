/* Small-call cost through the C ABI (issue 16 item 1): one thread (or
 * --threads T), 1 Ki elements by default, every call on the same buffers
 * (in cache at the default size). Reports,
 * per dtype, the time per call of
 *   memcpy      the same bytes (the yardstick),
 *   one-shot    lrelu_leaky_relu (validate, plan, run),
 *   execute     lrelu_execute on a plan made once,
 *   bind        lrelu_executor_bind to the same pointers, then lrelu_execute,
 * and each as a ratio to memcpy's time measured in the same round; rounds
 * alternate the four so a loaded machine slows them alike. The median ratio
 * and the spread (min..max over rounds) are printed, and "best": the
 * fastest round's time over memcpy's fastest.
 *
 * --invalid-flag raises the SSE invalid-operation flag (MXCSR's IE) before
 * timing, as any earlier invalid operation in the thread leaves it: the
 * float16 kernel must not pay for it.
 *
 * --only MODE --calls K runs K calls of one mode and nothing else, for
 * `valgrind --tool=callgrind`: two runs with different K give the
 * instructions per call as (Ir2 - Ir1) / (K2 - K1). */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "lrelu/lrelu.h"

enum { kMemcpy, kOneShot, kExecute, kBind, kModes };
static const char* const kModeNames[kModes] = {"memcpy", "one-shot", "execute",
                                               "bind"};

typedef struct Bench {
  lrelu_dtype_t dtype;
  size_t n, bytes;
  void* x;
  void* y;
  int64_t shape[1];
  lrelu_tensor_t tx, ty;
  lrelu_options_t options;
  lrelu_executor_t* executor;
} Bench;

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void Check(lrelu_status_t status, const char* what) {
  if (status != LRELU_STATUS_OK) {
    fprintf(stderr, "small_call: %s: %s\n", what, lrelu_last_error());
    exit(1);
  }
}

/* Runs `calls` calls of one mode. */
static void Run(Bench* b, int mode, long calls) {
  void* bound[2] = {b->x, b->y};
  for (long i = 0; i < calls; ++i) {
    switch (mode) {
      case kMemcpy:
        memcpy(b->y, b->x, b->bytes);
        /* Keeps the compiler from dropping repeated copies. */
        __asm__ __volatile__("" : : "r"(b->y) : "memory");
        break;
      case kOneShot:
        Check(lrelu_leaky_relu(&b->tx, 0.25, &b->ty, &b->options),
              "lrelu_leaky_relu");
        break;
      case kExecute:
        Check(lrelu_execute(NULL, 0, b->executor, NULL), "lrelu_execute");
        break;
      case kBind:
        Check(lrelu_executor_bind(b->executor, bound, 2),
              "lrelu_executor_bind");
        Check(lrelu_execute(NULL, 0, b->executor, NULL), "lrelu_execute");
        break;
    }
  }
}

static void Setup(Bench* b, lrelu_dtype_t dtype, size_t n, int threads) {
  memset(b, 0, sizeof(*b));
  b->dtype = dtype;
  b->n = n;
  b->bytes = n * lrelu_dtype_size(dtype);
  if (posix_memalign(&b->x, 64, b->bytes) != 0 ||
      posix_memalign(&b->y, 64, b->bytes) != 0) {
    exit(1);
  }
  /* Half negative, no NaN or subnormal: every byte pattern of a float32,
   * float16 or bfloat16 element built from these is an ordinary number. */
  for (size_t i = 0; i < b->bytes; ++i) {
    ((unsigned char*)b->x)[i] =
        (unsigned char)(i % 2 ? 0x3f + 0x80 * (i % 4 == 1) : 0x11 * (i % 7));
  }
  b->shape[0] = (int64_t)n;
  lrelu_tensor_t t = {b->x, dtype, 1, b->shape, NULL};
  b->tx = t;
  b->ty = t;
  b->ty.data = b->y;
  lrelu_options_init(&b->options);
  b->options.threads = (size_t)threads;
  size_t workspace = 0;
  Check(lrelu_leaky_relu_get_workspace_size(&b->tx, 0.25, &b->ty, &b->options,
                                            &workspace, &b->executor),
        "plan");
}

static int CompareDouble(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  size_t n = 1024;
  int rounds = 31, only = -1, threads = 1;
  long calls = 0;
  int invalid_flag = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
      n = (size_t)strtoull(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      ++i;
      for (int m = 0; m < kModes; ++m) {
        if (strcmp(argv[i], kModeNames[m]) == 0) only = m;
      }
    } else if (strcmp(argv[i], "--invalid-flag") == 0) {
      invalid_flag = 1;
    } else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc) {
      calls = atol(argv[++i]);
    } else {
      fprintf(
          stderr,
          "usage: small_call [--n N] [--threads T] [--rounds R] "
          "[--invalid-flag] [--only memcpy|one-shot|execute|bind --calls K]\n");
      return 2;
    }
  }
  if (rounds < 1 || rounds > 1001 || n == 0 || threads < 1) return 2;
#if defined(__x86_64__) || defined(__i386__)
  if (invalid_flag) _mm_setcsr(_mm_getcsr() | 1u);
#else
  (void)invalid_flag;
#endif
  if (only >= 0) {
    Bench b;
    Setup(&b, LRELU_DTYPE_FLOAT32, n, threads);
    Run(&b, only, calls);
    lrelu_executor_destroy(b.executor);
    return 0;
  }
  const lrelu_dtype_t dtypes[] = {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16,
                                  LRELU_DTYPE_BFLOAT16};
  printf(
      "n=%zu, %d thread(s)%s, time per call and ratio to a 1-thread memcpy "
      "of the same bytes\n(median of %d rounds, spread min..max)\n",
      n, threads, invalid_flag ? ", invalid flag raised" : "", rounds);
  printf("%-9s %-9s %9s %7s %15s %7s\n", "dtype", "call", "ns/call", "ratio",
         "spread", "best");
  for (size_t d = 0; d < sizeof(dtypes) / sizeof(dtypes[0]); ++d) {
    Bench b;
    Setup(&b, dtypes[d], n, threads);
    /* Calls per timed batch: about 20 us of memcpy, at least 16. */
    long batch = 16;
    for (;;) {
      const double t0 = Now();
      Run(&b, kMemcpy, batch);
      if (Now() - t0 > 20e-6 || batch > (1L << 24)) break;
      batch *= 2;
    }
    double ns[kModes][1001], ratio[kModes][1001];
    for (int m = 0; m < kModes; ++m) Run(&b, m, batch); /* warm up */
    for (int r = 0; r < rounds; ++r) {
      for (int m = 0; m < kModes; ++m) {
        const double t0 = Now();
        Run(&b, m, batch);
        ns[m][r] = (Now() - t0) * 1e9 / (double)batch;
      }
      for (int m = 0; m < kModes; ++m) ratio[m][r] = ns[m][r] / ns[kMemcpy][r];
    }
    for (int m = 0; m < kModes; ++m) {
      qsort(ns[m], (size_t)rounds, sizeof(double), CompareDouble);
      qsort(ratio[m], (size_t)rounds, sizeof(double), CompareDouble);
      /* best: the fastest round of each, the least disturbed on a loaded
       * machine. */
      printf("%-9s %-9s %9.1f %7.2f %7.2f..%-7.2f %7.2f\n",
             lrelu_dtype_name(dtypes[d]), kModeNames[m], ns[m][rounds / 2],
             ratio[m][rounds / 2], ratio[m][0], ratio[m][rounds - 1],
             ns[m][0] / ns[kMemcpy][0]);
    }
    lrelu_executor_destroy(b.executor);
    free(b.x);
    free(b.y);
  }
  return 0;
}
