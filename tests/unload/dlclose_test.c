/* A host that loads liblrelu, makes calls large enough to wake lrelu's own
 * thread pool, unloads it and goes on running must not crash: the pool's
 * workers have to be gone before their code is unmapped (GNU Octave does
 * exactly this when it clears a MEX file or exits). The results are checked
 * bit for bit against the library's reference variant, the oracle. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lrelu/lrelu.h"

typedef void (*init_fn)(lrelu_options_t*);
typedef lrelu_status_t (*forward_fn)(const lrelu_tensor_t*, double,
                                     const lrelu_tensor_t*,
                                     const lrelu_options_t*);

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s path/to/liblrelu.so\n", argv[0]);
    return 2;
  }
  enum { kCount = 1 << 21 };
  float* x = malloc(sizeof(float) * kCount);
  float* y = malloc(sizeof(float) * kCount);
  float* expected = malloc(sizeof(float) * kCount);
  if (x == NULL || y == NULL || expected == NULL) return 2;
  for (int i = 0; i < kCount; ++i) x[i] = (float)(i % 977) - 488.5f;

  for (int round = 0; round < 3; ++round) {
    void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
      fprintf(stderr, "dlopen: %s\n", dlerror());
      return 1;
    }
    init_fn options_init = (init_fn)dlsym(library, "lrelu_options_init");
    forward_fn forward = (forward_fn)dlsym(library, "lrelu_leaky_relu");
    if (options_init == NULL || forward == NULL) {
      fprintf(stderr, "dlsym: %s\n", dlerror());
      return 1;
    }
    const int64_t shape[1] = {kCount};
    lrelu_tensor_t tx = {x, LRELU_DTYPE_FLOAT32, 1, shape, NULL};
    lrelu_tensor_t ty = {y, LRELU_DTYPE_FLOAT32, 1, shape, NULL};
    lrelu_tensor_t te = {expected, LRELU_DTYPE_FLOAT32, 1, shape, NULL};
    lrelu_options_t reference;
    options_init(&reference);
    reference.variant = "reference";
    reference.threads = 1;
    if (forward(&tx, 0.01, &ty, NULL) != LRELU_STATUS_OK ||
        forward(&tx, 0.01, &te, &reference) != LRELU_STATUS_OK) {
      fprintf(stderr, "lrelu_leaky_relu failed\n");
      return 1;
    }
    if (memcmp(y, expected, sizeof(float) * kCount) != 0) {
      fprintf(stderr, "round %d: result differs from the reference\n", round);
      return 1;
    }
    if (dlclose(library) != 0) {
      fprintf(stderr, "dlclose: %s\n", dlerror());
      return 1;
    }
    /* Workers left behind would now run in unmapped code. */
    const struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  free(x);
  free(y);
  free(expected);
  printf("3 load/call/unload rounds survived\n");
  return 0;
}
