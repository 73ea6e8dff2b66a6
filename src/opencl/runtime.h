// The process-wide OpenCL state: devices of every platform, and per device a
// context, an in-order queue and the program built from lrelu.cl. Everything
// is created on first use and kept for the life of the process; all of it is
// safe to use from many threads (OpenCL objects other than kernels are
// thread-safe, and kernels are created per call).
#ifndef LRELU_SRC_OPENCL_RUNTIME_H_
#define LRELU_SRC_OPENCL_RUNTIME_H_

#include <string>

#include "lrelu/lrelu.h"
#include "opencl/loader.h"

namespace lrelu::opencl {

struct Device {
  cl_device_id id = nullptr;
  std::string name;          // "<platform>: <device>"
  bool fp64 = false;         // cl_khr_fp64: float64 kernels are built
  bool denormals = false;    // CL_FP_DENORM in the float32 config
  bool denormals64 = false;  // CL_FP_DENORM in the float64 config
  cl_ulong max_alloc = 0;    // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  size_t max_group = 1;      // CL_DEVICE_MAX_WORK_GROUP_SIZE
  cl_uint compute_units = 1;
};

// Number of devices over all platforms; 0 with the reason in *why when there
// is none. The reasons differ: no ICD loader (libOpenCL.so.1 not found), the
// loader found but no platform (no ICD installed, or every ICD failed to
// load, e.g. under a memory or file-descriptor limit), no device.
int DeviceCount(std::string* why);

// Device i, or nullptr when out of range.
const Device* GetDevice(int i);

// Context, queue and built program of device i (built on first call, ~0.7 s
// on PoCL the first time, then cached by PoCL in ~/.cache/pocl). On failure
// returns the status and has set the thread's error message.
struct Session {
  cl_context context;
  cl_command_queue queue;
  cl_program program;
};
lrelu_status_t GetSession(int i, Session* session);

// Tests only: pretend every device lacks CL_FP_DENORM (PoCL has it), so the
// refusal of float32/bfloat16 on such a device can be checked.
void SetNoDenormalsForTesting(bool no_denormals);
bool NoDenormalsForTesting();

// "CL_INVALID_VALUE (-30)" and the like.
std::string ErrorName(cl_int code);

}  // namespace lrelu::opencl

#endif  // LRELU_SRC_OPENCL_RUNTIME_H_
