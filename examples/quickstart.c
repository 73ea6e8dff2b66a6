/* Quick start in C: the two-stage call (plan, then execute) on a 2x3 view. */
#include <stdio.h>

#include "lrelu/lrelu.h"

int main(void) {
  float x[6] = {-2.0f, -1.0f, -0.0f, 0.0f, 1.0f, 2.0f};
  float y[6];
  const int64_t shape[2] = {2, 3};
  lrelu_tensor_t tx = {x, LRELU_DTYPE_FLOAT32, 2, shape, NULL};
  lrelu_tensor_t ty = {y, LRELU_DTYPE_FLOAT32, 2, shape, NULL};

  /* Stage one validates and plans without touching the data. */
  size_t workspace_size = 0;
  lrelu_executor_t* executor = NULL;
  if (lrelu_leaky_relu_get_workspace_size(&tx, 0.1, &ty, NULL, &workspace_size,
                                          &executor) != LRELU_STATUS_OK) {
    fprintf(stderr, "lrelu: %s\n", lrelu_last_error());
    return 1;
  }
  /* Stage two runs it; the CPU needs no workspace (size 0, NULL is fine). */
  lrelu_status_t status = lrelu_execute(NULL, workspace_size, executor, NULL);
  printf("%s: %g %g %g %g %g %g\n", lrelu_executor_variant(executor), y[0],
         y[1], y[2], y[3], y[4], y[5]);
  lrelu_executor_destroy(executor);
  return status == LRELU_STATUS_OK ? 0 : 1;
}
