/* The C ABI from plain C99: the two-stage call with a NULL, size-0
 * workspace, the one-call forms, the gradient and the error path. */
#include <stdio.h>
#include <string.h>

#include "lrelu/lrelu.h"

static int failures = 0;
#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "%s:%d: check failed: %s (%s)\n", __FILE__, __LINE__, \
              #cond, lrelu_last_error());                                   \
      ++failures;                                                           \
    }                                                                       \
  } while (0)

int main(void) {
  float x[5] = {-2.0f, -1.0f, 0.0f, 1.0f, 2.0f};
  float y[5] = {0};
  const int64_t shape[1] = {5};
  lrelu_tensor_t tx = {x, LRELU_DTYPE_FLOAT32, 1, shape, NULL};
  lrelu_tensor_t ty = {y, LRELU_DTYPE_FLOAT32, 1, shape, NULL};

  size_t workspace_size = 1;
  lrelu_executor_t* executor = NULL;
  CHECK(lrelu_leaky_relu_get_workspace_size(&tx, LRELU_DEFAULT_ALPHA, &ty, NULL,
                                            &workspace_size,
                                            &executor) == LRELU_STATUS_OK);
  CHECK(workspace_size == 0);
  CHECK(lrelu_execute(NULL, 0, executor, NULL) == LRELU_STATUS_OK);
  CHECK(strcmp(lrelu_executor_variant(executor), "contiguous") == 0);
  lrelu_executor_destroy(executor);
  CHECK(y[0] == -0.02f && y[1] == -0.01f && y[2] == 0.0f && y[4] == 2.0f);

  /* Seed 001's second example, in place, with options. */
  float z[1] = {-3.0f};
  const int64_t one[1] = {1};
  lrelu_tensor_t tz = {z, LRELU_DTYPE_FLOAT32, 1, one, NULL};
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.threads = 1;
  CHECK(lrelu_leaky_relu(&tz, 0.2, &tz, &options) == LRELU_STATUS_OK);
  CHECK(z[0] == -3.0f * 0.2f);

  /* Gradient: dx = x < 0 ? alpha * dy : dy. */
  float dy[5] = {1, 1, 1, 1, 1};
  float dx[5];
  lrelu_tensor_t tdy = {dy, LRELU_DTYPE_FLOAT32, 1, shape, NULL};
  lrelu_tensor_t tdx = {dx, LRELU_DTYPE_FLOAT32, 1, shape, NULL};
  CHECK(lrelu_leaky_relu_backward(&tdy, &tx, 0.5, LRELU_GRAD_FROM_X, &tdx,
                                  NULL) == LRELU_STATUS_OK);
  CHECK(dx[0] == 0.5f && dx[2] == 1.0f && dx[4] == 1.0f);

  /* Errors: a status, a message, nothing written. */
  float untouched[5] = {7, 7, 7, 7, 7};
  lrelu_tensor_t tu = {untouched, LRELU_DTYPE_FLOAT16, 1, shape, NULL};
  CHECK(lrelu_leaky_relu(&tx, 0.1, &tu, NULL) == LRELU_STATUS_DTYPE_MISMATCH);
  CHECK(strstr(lrelu_last_error(), "float16") != NULL);
  CHECK(untouched[0] == 7.0f);

  /* The header's promises. The message of the last FAILED call
   * survives a successful one. */
  CHECK(lrelu_leaky_relu(&tx, 0.1, &ty, NULL) == LRELU_STATUS_OK);
  CHECK(strstr(lrelu_last_error(), "float16") != NULL);
  /* struct_size is bounded: a garbled size is refused, not read. */
  lrelu_options_init(&options);
  options.struct_size = 0xffffffffu;
  CHECK(lrelu_leaky_relu(&tx, 0.1, &ty, &options) ==
        LRELU_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(lrelu_last_error(), "LRELU_OPTIONS_MAX_STRUCT_SIZE") != NULL);
  /* The CPU backend has device 0 only. */
  lrelu_options_init(&options);
  options.device = 7;
  CHECK(lrelu_leaky_relu(&tx, 0.1, &ty, &options) ==
        LRELU_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(lrelu_last_error(), "cpu backend") != NULL);
  /* Queries on an invalid executor: NULL / 0, and the message says why. */
  CHECK(lrelu_executor_variant(NULL) == NULL);
  CHECK(lrelu_executor_cpu_target(NULL) == NULL);
  CHECK(lrelu_executor_tasks(NULL) == 0);
  CHECK(strstr(lrelu_last_error(), "executor is NULL") != NULL);
  CHECK(untouched[0] == 7.0f);

  printf("c_api_test: %s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
