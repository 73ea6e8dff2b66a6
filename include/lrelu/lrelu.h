/* lrelu: LeakyReLU, y = x < 0 ? alpha * x : x, exactly and at memory speed.
 *
 * This is the stable C ABI (C99; no C++ types). Everything else in lrelu --
 * the C++ layer (lrelu.hpp), the Python package and the CLI -- is built on it.
 *
 * Contract v1, in short (docs/contract.md has the full text):
 *   - y = x < 0 ? alpha * x : x. Anything not strictly negative (+0, -0,
 *     +inf, every NaN) passes through with identical bits.
 *   - float32, float16, bfloat16 compute in float32: alpha is rounded to
 *     float32 once, one float32 multiply, then round-to-nearest-even to the
 *     storage type. float64 computes in double. No flush-to-zero, whatever
 *     the caller's floating-point environment says.
 *   - Gradient: dx = x < 0 ? alpha * dy : dy. From the output y instead of x
 *     only when alpha > 0.
 *   - Any rank >= 0, any shape, any strides; empty tensors are no work.
 *
 * Workspace semantics, for every *_get_workspace_size call below: the query
 * validates every argument and plans the work (variant, tiling) without
 * reading or writing tensor data. It returns the workspace size in bytes and
 * an executor. lrelu_execute then runs the plan; it accepts a NULL workspace
 * when the size was 0 and fails with LRELU_STATUS_WORKSPACE_TOO_SMALL when the
 * given size is smaller than the query said. An executor may be executed any
 * number of times (on the same data pointers, or on new ones of the same
 * layout after lrelu_executor_bind) and is freed with
 * lrelu_executor_destroy.
 *
 * Errors: every function returns an lrelu_status_t; on failure
 * lrelu_last_error() gives a one-line message for the calling thread that
 * names the problem. Nothing is written to any output on failure. Like
 * errno, the message stays until the thread's next FAILED call: successful
 * calls neither clear nor change it, so cleanup calls between a failure and
 * reading the message do not lose it. Check the status, not the message.
 *
 * Thread safety: every function may be called from many threads at once.
 */
#ifndef LRELU_LRELU_H_
#define LRELU_LRELU_H_

#include <stddef.h>
#include <stdint.h>

#include "lrelu/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Library version (semantic versioning). */
#define LRELU_VERSION_MAJOR 0
#define LRELU_VERSION_MINOR 1
#define LRELU_VERSION_PATCH 0
/** The version of the operator contract (contract/v1/manifest.json) this header
 * implements. */
#define LRELU_CONTRACT_VERSION 1
/** alpha when the caller has no opinion (ONNX, PyTorch, MATLAB). */
#define LRELU_DEFAULT_ALPHA 0.01

/** Outcome of a call. 0 is success; every other value is an error. */
typedef enum lrelu_status {
  LRELU_STATUS_OK = 0,
  LRELU_STATUS_INVALID_ARGUMENT =
      1, /**< NULL pointer, negative rank/dim, bad option. */
  LRELU_STATUS_UNSUPPORTED_DTYPE = 2, /**< dtype is not one of lrelu_dtype_t. */
  LRELU_STATUS_DTYPE_MISMATCH = 3,    /**< x, y (dy, dx) differ in dtype. */
  LRELU_STATUS_SHAPE_MISMATCH = 4,    /**< x, y (dy, dx) differ in shape. */
  LRELU_STATUS_SIZE_OVERFLOW =
      5, /**< element count or byte extent overflows. */
  LRELU_STATUS_OVERLAP =
      6, /**< output partially overlaps an input or itself. */
  LRELU_STATUS_NULL_DATA = 7, /**< data is NULL but the tensor is not empty. */
  LRELU_STATUS_WORKSPACE_TOO_SMALL = 8,
  LRELU_STATUS_INVALID_ALPHA =
      9, /**< gradient from y with alpha <= 0 or NaN. */
  LRELU_STATUS_UNSUPPORTED_VARIANT =
      10, /**< forced variant or target cannot serve the call. */
  LRELU_STATUS_BACKEND_UNAVAILABLE =
      11, /**< backend not built in or no device. */
  LRELU_STATUS_OUT_OF_MEMORY = 12,
  LRELU_STATUS_INVALID_EXECUTOR =
      13, /**< NULL, destroyed or foreign executor. */
  LRELU_STATUS_INTERNAL = 14,
  /* Makes every int a valid value, so a bad value from a caller is an
   * error that lrelu can report rather than undefined behaviour. */
  LRELU_STATUS_MAX_ENUM_ = 0x7fffffff,
  LRELU_STATUS_MIN_ENUM_ = -0x7fffffff - 1
} lrelu_status_t;

/** Element types. The values are stable ABI. */
typedef enum lrelu_dtype {
  LRELU_DTYPE_FLOAT32 = 1,
  LRELU_DTYPE_FLOAT16 = 2,  /**< IEEE 754 binary16. */
  LRELU_DTYPE_BFLOAT16 = 3, /**< The upper 16 bits of a float32. */
  LRELU_DTYPE_FLOAT64 = 4,
  LRELU_DTYPE_MAX_ENUM_ = 0x7fffffff,
  LRELU_DTYPE_MIN_ENUM_ = -0x7fffffff - 1
} lrelu_dtype_t;

/** Where the data lives and which implementation runs. */
typedef enum lrelu_backend {
  LRELU_BACKEND_CPU = 0,
  /** NVIDIA GPUs. tensor.data are DEVICE pointers (cudaMalloc, managed or
   * mapped host memory); work is queued on options.stream and the call
   * returns without waiting. Dense views only. Variants "vec4" (16-byte
   * accesses on the aligned body) and "scalar". */
  LRELU_BACKEND_CUDA = 1,
  /** OpenCL devices (e.g. PoCL on the CPU). tensor.data are HOST pointers:
   * each call copies inputs to the device and the output back, and returns
   * when the output is written. Dense views only. Variants "vec4", "scalar".
   * float64 needs cl_khr_fp64. */
  LRELU_BACKEND_OPENCL = 2,
  LRELU_BACKEND_MAX_ENUM_ = 0x7fffffff,
  LRELU_BACKEND_MIN_ENUM_ = -0x7fffffff - 1
} lrelu_backend_t;

/** Which tensor the gradient reads its sign from. */
typedef enum lrelu_grad_source {
  LRELU_GRAD_FROM_X = 0, /**< dx = x < 0 ? alpha * dy : dy (always valid). */
  LRELU_GRAD_FROM_Y = 1, /**< dx = y < 0 ? alpha * dy : dy; needs alpha > 0.
                              Equals FROM_X except where alpha * x underflowed
                              to -0 (y then no longer shows the sign). */
  LRELU_GRAD_SOURCE_MAX_ENUM_ = 0x7fffffff,
  LRELU_GRAD_SOURCE_MIN_ENUM_ = -0x7fffffff - 1
} lrelu_grad_source_t;

/** A non-owning view of a tensor.
 *
 * data: first element (may be NULL only when the tensor has no elements).
 *   Any alignment is accepted.
 * shape: rank extents, each >= 0 (may be NULL when rank == 0).
 * strides: rank strides in elements (not bytes), any sign, 0 allowed for
 *   inputs; NULL means C-contiguous (row-major, last dimension fastest).
 * rank: >= 0; rank 0 is a scalar with one element.
 */
typedef struct lrelu_tensor {
  void* data;
  lrelu_dtype_t dtype;
  int32_t rank;
  const int64_t* shape;
  const int64_t* strides;
} lrelu_tensor_t;

/** A function the thread pool runs: task(task_context, task_index). */
typedef void (*lrelu_task_fn)(void* task_context, size_t task_index);

/** A caller-supplied thread pool (TBB, OpenMP, a runtime's own pool).
 *
 * parallel_for must run task(task_context, i) exactly once for each i in
 * [0, task_count), on any threads and in any order, and return only when all
 * have finished. concurrency is how many tasks it can run at once (>= 1); lrelu
 * never plans more tasks than options.threads or, when that is 0, than
 * concurrency. */
typedef struct lrelu_thread_pool {
  void (*parallel_for)(void* pool_context, lrelu_task_fn task,
                       void* task_context, size_t task_count);
  void* pool_context;
  size_t concurrency;
} lrelu_thread_pool_t;

/** Largest options.struct_size accepted (bytes). Larger values are refused
 * with LRELU_STATUS_INVALID_ARGUMENT before anything past the fields this
 * library knows is read. */
#define LRELU_OPTIONS_MAX_STRUCT_SIZE 1024

/** Per-call options. Always start from lrelu_options_init(), then set fields;
 * new fields are only ever appended, and struct_size tells which exist. */
typedef struct lrelu_options {
  /** sizeof(lrelu_options_t) as compiled by the caller; set by init. The
   * library reads exactly struct_size bytes from the struct: the fields
   * that fit (a size ending inside a field, or below the end of `threads`,
   * is LRELU_STATUS_INVALID_ARGUMENT), and, for a size larger than this
   * header's struct (a newer header), bytes that must all be zero (unknown
   * fields left at their defaults). At most LRELU_OPTIONS_MAX_STRUCT_SIZE. */
  uint32_t struct_size;
  /** Number of tasks the work may be split into: 0 = all hardware threads
   * (or the thread pool's concurrency). Small calls stay on the calling
   * thread whatever this says. */
  size_t threads;
  /** Pool to run tasks on; NULL = lrelu's own pool. */
  const lrelu_thread_pool_t* thread_pool;
  /** Force a kernel variant: NULL or "auto" picks (see lrelu_variant_name);
   * otherwise "reference", "contiguous" or "strided". */
  const char* variant;
  /** Force a SIMD target by name (one of lrelu_cpu_target_name); NULL = the
   * best one this CPU supports. Used to test every compiled target. */
  const char* cpu_target;
  /** Backend (see lrelu_backend_t); LRELU_BACKEND_CPU by default. */
  lrelu_backend_t backend;
  /** Device backends: the queue to run on. CUDA: a cudaStream_t, NULL = the
   * default stream. OpenCL: must be NULL (it uses its own queue). */
  void* stream;
  /** Device index in [0, lrelu_device_count(backend)); the CPU backend has
   * one device, 0 (any other index is LRELU_STATUS_INVALID_ARGUMENT). */
  int32_t device;
} lrelu_options_t;

/** An opaque plan: validated arguments, chosen variant and tiling. */
typedef struct lrelu_executor lrelu_executor_t;

/** Fills *options with defaults (threads 0, own pool, auto variant, CPU). */
LRELU_API void lrelu_options_init(lrelu_options_t* options);

/* ------------------------------------------------------------------------ */
/* Forward: y = x < 0 ? alpha * x : x                                       */
/* ------------------------------------------------------------------------ */

/** Stage one of the forward pass: validates and plans (see the workspace
 * semantics at the top of this file).
 * @param x input view.
 * @param alpha slope for negative x; any value (0, negative, inf, NaN).
 * @param y output view: same dtype and shape as x. y may be x itself (same
 *   data and strides: in-place); any other overlap is LRELU_STATUS_OVERLAP.
 * @param options NULL for defaults.
 * @param workspace_size receives the workspace size in bytes.
 * @param executor receives the plan; destroy it with lrelu_executor_destroy. */
LRELU_API lrelu_status_t lrelu_leaky_relu_get_workspace_size(
    const lrelu_tensor_t* x, double alpha, const lrelu_tensor_t* y,
    const lrelu_options_t* options, size_t* workspace_size,
    lrelu_executor_t** executor);

/** One call: plan and execute the forward pass with no workspace. */
LRELU_API lrelu_status_t lrelu_leaky_relu(const lrelu_tensor_t* x, double alpha,
                                          const lrelu_tensor_t* y,
                                          const lrelu_options_t* options);

/* ------------------------------------------------------------------------ */
/* Gradient: dx = s < 0 ? alpha * dy : dy, with s = x (or y, alpha > 0)     */
/* ------------------------------------------------------------------------ */

/** Stage one of the gradient.
 * @param dy gradient of the loss with respect to y.
 * @param s the forward input x (source LRELU_GRAD_FROM_X) or output y
 *   (LRELU_GRAD_FROM_Y, only for alpha > 0: LRELU_STATUS_INVALID_ALPHA
 *   otherwise).
 * @param dx output, same dtype and shape as dy and s; may be dy itself
 *   (in-place) but must not overlap s unless s is dx exactly as well. */
LRELU_API lrelu_status_t lrelu_leaky_relu_backward_get_workspace_size(
    const lrelu_tensor_t* dy, const lrelu_tensor_t* s, double alpha,
    lrelu_grad_source_t source, const lrelu_tensor_t* dx,
    const lrelu_options_t* options, size_t* workspace_size,
    lrelu_executor_t** executor);

/** One call: plan and execute the gradient with no workspace. */
LRELU_API lrelu_status_t lrelu_leaky_relu_backward(
    const lrelu_tensor_t* dy, const lrelu_tensor_t* s, double alpha,
    lrelu_grad_source_t source, const lrelu_tensor_t* dx,
    const lrelu_options_t* options);

/* ------------------------------------------------------------------------ */
/* Executors                                                                */
/* ------------------------------------------------------------------------ */

/** Stage two: runs a plan.
 * @param workspace at least the queried size; NULL when that size is 0.
 * @param thread_pool pool to run on; NULL = the one given in the options at
 *   planning time, or lrelu's own. */
LRELU_API lrelu_status_t lrelu_execute(void* workspace, size_t workspace_size,
                                       lrelu_executor_t* executor,
                                       const lrelu_thread_pool_t* thread_pool);

/** Points a plan at new data of the same layout (dtype, shape, strides,
 * in-place or not): plan once per shape, bind per call or chunk, execute
 * (XNNPACK's reshape/setup split). The layout is not validated again; only
 * what pointers can break is checked: NULL data with elements
 * (LRELU_STATUS_NULL_DATA), a view that would wrap around the address space
 * (LRELU_STATUS_SIZE_OVERFLOW), and the relation the plan was made for
 * (LRELU_STATUS_OVERLAP): an output planned in place of an input must again
 * be that input's pointer, and one planned disjoint must again share no
 * byte with it. On the CPU and OpenCL any alignment is accepted. On failure
 * the executor keeps its previous pointers.
 * @param data the tensors' data pointers, in the order of the stage-one
 *   call's tensor arguments: forward {x, y}; gradient {dy, s, dx}; PReLU
 *   forward {x, alpha, y}, gradient (CPU) {dy, x, alpha, dx, dalpha} with
 *   NULL for a dx or dalpha the executor was planned without (alpha and
 *   dalpha are checked as the outputs are: NULL, address space, y, dx and
 *   dalpha disjoint from alpha and each other as planned). On the device
 *   backends the new pointers are also checked as planning checks them
 *   (CUDA: device memory, element alignment; a plan whose variant was
 *   "auto" takes the access width the new pointers allow, one planned with
 *   "vec4" needs them at the same address modulo 16 bytes again,
 *   LRELU_STATUS_UNSUPPORTED_VARIANT otherwise).
 * @param count the number of pointers: 2 forward, 3 gradient, PReLU 3 and
 *   5; any other count is LRELU_STATUS_INVALID_ARGUMENT.
 * Not to be called while the same executor runs in lrelu_execute. */
LRELU_API lrelu_status_t lrelu_executor_bind(lrelu_executor_t* executor,
                                             void* const* data, size_t count);

/* Invalid executors, for every function below and lrelu_execute: NULL, one
 * already destroyed, or a pointer that lrelu_*_get_workspace_size did not
 * return. lrelu keeps a table of live executors and never reads through a
 * handle that is not in it, so such a handle is detected and refused: the
 * queries return NULL (or 0) and lrelu_execute LRELU_STATUS_INVALID_EXECUTOR,
 * and lrelu_last_error() says why; lrelu_executor_destroy ignores it. The one
 * case lrelu cannot see: after destroy, a new executor may be given the same
 * address, and the old handle then names the new plan. */

/** The variant that serves this plan: "reference", "contiguous", "strided"
 * or "empty" (no elements); for OpenCL/CUDA "vec4" or "scalar". NULL for an
 * invalid executor. */
LRELU_API const char* lrelu_executor_variant(const lrelu_executor_t* executor);

/** The SIMD target the plan's kernels were compiled for (e.g. "AVX3"); ""
 * for a device backend (see lrelu_executor_device). NULL for an invalid
 * executor. */
LRELU_API const char* lrelu_executor_cpu_target(
    const lrelu_executor_t* executor);

/** The device that runs the plan, as lrelu_device_name names it ("host CPU"
 * for the CPU backend). NULL for an invalid executor. */
LRELU_API const char* lrelu_executor_device(const lrelu_executor_t* executor);

/** How many tasks the plan splits the work into (1 = calling thread only);
 * 0 for an invalid executor. */
LRELU_API size_t lrelu_executor_tasks(const lrelu_executor_t* executor);

/** Frees a plan. NULL and invalid executors are ignored (never freed
 * twice). */
LRELU_API void lrelu_executor_destroy(lrelu_executor_t* executor);

/* ------------------------------------------------------------------------ */
/* Errors and information                                                   */
/* ------------------------------------------------------------------------ */

/** The message of the calling thread's last failed call ("" if none yet);
 * successful calls leave it as it was. Valid until that thread's next
 * failed call. */
LRELU_API const char* lrelu_last_error(void);

/** A fixed name for a status, e.g. "LRELU_STATUS_OVERLAP". */
LRELU_API const char* lrelu_status_string(lrelu_status_t status);

/** "float32", "float16", "bfloat16", "float64", or NULL. */
LRELU_API const char* lrelu_dtype_name(lrelu_dtype_t dtype);

/** Bytes per element, or 0 for an unknown dtype. */
LRELU_API size_t lrelu_dtype_size(lrelu_dtype_t dtype);

/** "0.1.0": the library version. */
LRELU_API const char* lrelu_version(void);

/** LRELU_CONTRACT_VERSION of the built library. */
LRELU_API int lrelu_contract_version(void);

/** Number of SIMD targets compiled into the library that this CPU can run. */
LRELU_API size_t lrelu_cpu_target_count(void);

/** Name of target i (0 = best) in [0, lrelu_cpu_target_count()). */
LRELU_API const char* lrelu_cpu_target_name(size_t i);

/** Names of all targets compiled in, runnable here or not, separated by
 * spaces (e.g. "AVX3 AVX2 SSE4 SSSE3 SCALAR"). */
LRELU_API const char* lrelu_cpu_targets_compiled(void);

/** Hardware threads lrelu's own pool uses. */
LRELU_API size_t lrelu_hardware_threads(void);

/* ------------------------------------------------------------------------ */
/* Device backends and kernel source                                        */
/* ------------------------------------------------------------------------ */

/** "cpu", "cuda", "opencl", or NULL. */
LRELU_API const char* lrelu_backend_name(lrelu_backend_t backend);

/** 1 when the backend is compiled into this library (CPU: always). */
LRELU_API int lrelu_backend_built(lrelu_backend_t backend);

/** 1 when the backend is built and sees at least one device now. */
LRELU_API int lrelu_backend_available(lrelu_backend_t backend);

/** Devices of the backend (CPU: 1; 0 when not built or no device). */
LRELU_API int lrelu_device_count(lrelu_backend_t backend);

/** Name of device i of the backend, or NULL when out of range. */
LRELU_API const char* lrelu_device_name(lrelu_backend_t backend, int i);

/** Variant i of the backend that options.variant can force (besides
 * "auto"), in the order the tests run them: CPU "reference", "contiguous",
 * "strided"; CUDA and OpenCL "scalar", "vec4". NULL past the last one or for
 * an unknown backend; built or not. */
LRELU_API const char* lrelu_backend_variant(lrelu_backend_t backend, size_t i);

/** Why the backend has no device ("" when it has one), e.g. "backend cuda
 * is not built into this library" or the driver's own message. Valid until
 * the calling thread's next call of this function. */
LRELU_API const char* lrelu_backend_unavailable_reason(lrelu_backend_t backend);

/** Kernel source text for another runtime (code emission).
 * @param target "wgsl" (the unary-scalar / unary-vec4 templates rendered;
 *   float32 and float16 only; entry points `forward` and `backward`),
 *   "opencl" (lrelu.cl, as the OpenCL backend builds it) or "cuda" (the
 *   device code plus an extern "C" entry point, ready for NVRTC).
 * @param variant "scalar" or "vec4"; or "prelu": PReLU's forward kernel
 *   (wgsl: template prelu, entry point `forward`, alpha a storage buffer;
 *   opencl: lrelu.cl and prelu.cl, entry lrelu_prelu_<dtype>; cuda: entry
 *   lrelu_prelu_<dtype>; docs/gpu.md); or "prelu-vec4" (wgsl only:
 *   template prelu-vec4, four elements an invocation, the same bindings).
 * @param workgroup_size WGSL workgroup size, 0 = 256; ignored otherwise.
 * @param buffer receives the text and a NUL; NULL to ask for the length.
 * @param buffer_size bytes at buffer; must exceed the length.
 * @param length receives the length of the text, without the NUL. */
LRELU_API lrelu_status_t lrelu_kernel_source(
    const char* target, lrelu_dtype_t dtype, const char* variant,
    uint32_t workgroup_size, char* buffer, size_t buffer_size, size_t* length);

/* ------------------------------------------------------------------------ */
/* PReLU: y = x < 0 ? alpha[i] * x : x, alpha a tensor broadcast to x       */
/* (contract ai.onnx.PRelu v1, docs/prelu.md)                               */
/* ------------------------------------------------------------------------ */

/** Stage one of the PReLU forward pass (CPU, OpenCL and CUDA backends; on
 * a device backend alpha must have x's dtype and x, y be dense: docs/prelu.md).
 * @param x input view.
 * @param alpha slopes: x's dtype, or float64 with a float32/float16/bfloat16
 *   x (each value then rounded to float32 once, as LeakyReLU's alpha).
 *   Broadcasts to x by ONNX's unidirectional rule: its shape, aligned to the
 *   right of x's, has each extent equal to x's or 1 (per channel: [C,1,1]
 *   for NCHW, [C] for NHWC). Any strides. Otherwise
 *   LRELU_STATUS_SHAPE_MISMATCH (or DTYPE_MISMATCH) with a message.
 * @param y output: x's dtype and shape; may be x itself (in place); must
 *   not share memory with alpha (LRELU_STATUS_OVERLAP).
 * Each element is LeakyReLU with that element's alpha: same rounding, same
 * pass-through bits. */
LRELU_API lrelu_status_t lrelu_prelu_get_workspace_size(
    const lrelu_tensor_t* x, const lrelu_tensor_t* alpha,
    const lrelu_tensor_t* y, const lrelu_options_t* options,
    size_t* workspace_size, lrelu_executor_t** executor);

/** One call: plan and execute the PReLU forward pass. */
LRELU_API lrelu_status_t lrelu_prelu(const lrelu_tensor_t* x,
                                     const lrelu_tensor_t* alpha,
                                     const lrelu_tensor_t* y,
                                     const lrelu_options_t* options);

/** Stage one of the PReLU gradient (CPU backend only).
 *   dx     = x < 0 ? alpha * dy : dy           (LeakyReLU's rule per element)
 *   dalpha = sum over the broadcast axes of (x < 0 ? x * dy : 0),
 *            correctly rounded: the exact sum of the exact products rounded
 *            once (to nearest, ties to even) to dalpha's dtype; beyond its
 *            range +-inf; a NaN product (NaN, or inf * 0) or infs of both
 *            signs give NaN; infs of one sign give that inf; an exact zero
 *            is +0. The same bits on every target, thread count and chunking.
 * @param dy, x same dtype and shape.
 * @param alpha as for the forward pass.
 * @param dx NULL to skip; else dy's dtype and shape, may be dy itself;
 *   must not share memory with alpha.
 * @param dalpha NULL to skip; else alpha's dtype and shape, any strides that
 *   write no element twice, disjoint from dx. Written after everything is
 *   read.
 * At least one of dx, dalpha must be given. */
LRELU_API lrelu_status_t lrelu_prelu_backward_get_workspace_size(
    const lrelu_tensor_t* dy, const lrelu_tensor_t* x,
    const lrelu_tensor_t* alpha, const lrelu_tensor_t* dx,
    const lrelu_tensor_t* dalpha, const lrelu_options_t* options,
    size_t* workspace_size, lrelu_executor_t** executor);

/** One call: plan and execute the PReLU gradient. */
LRELU_API lrelu_status_t lrelu_prelu_backward(const lrelu_tensor_t* dy,
                                              const lrelu_tensor_t* x,
                                              const lrelu_tensor_t* alpha,
                                              const lrelu_tensor_t* dx,
                                              const lrelu_tensor_t* dalpha,
                                              const lrelu_options_t* options);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LRELU_LRELU_H_ */
