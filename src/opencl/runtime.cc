#include "opencl/runtime.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.h"

namespace lrelu::gpu {
extern const char kOpenClSource[];
extern const char kOpenClPreluSource[];  // prelu.cl, built after lrelu.cl
}  // namespace lrelu::gpu

namespace lrelu::opencl {
namespace {

struct DeviceState {
  Device device;
  std::once_flag once;
  lrelu_status_t status = LRELU_STATUS_INTERNAL;
  std::string error;  // the message of a failed build, replayed on each call
  Session session{};
};

struct Registry {
  std::string why;  // when there are no devices
  std::vector<std::unique_ptr<DeviceState>> devices;
};

std::string InfoString(cl_device_id id, cl_device_info what) {
  size_t size = 0;
  if (Cl().clGetDeviceInfo(id, what, 0, nullptr, &size) != CL_SUCCESS)
    return "";
  std::string text(size, '\0');
  Cl().clGetDeviceInfo(id, what, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

std::string PlatformName(cl_platform_id id) {
  size_t size = 0;
  if (Cl().clGetPlatformInfo(id, CL_PLATFORM_NAME, 0, nullptr, &size) !=
      CL_SUCCESS) {
    return "";
  }
  std::string text(size, '\0');
  Cl().clGetPlatformInfo(id, CL_PLATFORM_NAME, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

Registry* Discover() {
  auto* r = new Registry();
  if (LoadCl(&r->why) == nullptr) return r;  // no ICD loader
  cl_uint platform_count = 0;
  cl_int err = Cl().clGetPlatformIDs(0, nullptr, &platform_count);
  if (err != CL_SUCCESS || platform_count == 0) {
    r->why =
        "the OpenCL ICD loader is there but found no platform "
        "(clGetPlatformIDs: " +
        ErrorName(err) +
        "): no ICD is installed (e.g. pocl-opencl-icd), or each one "
        "failed to load (a memory or file-descriptor limit can cause "
        "this; OCL_ICD_VENDORS names where the loader looks)";
    return r;
  }
  std::vector<cl_platform_id> platforms(platform_count);
  Cl().clGetPlatformIDs(platform_count, platforms.data(), nullptr);
  for (cl_platform_id platform : platforms) {
    cl_uint count = 0;
    if (Cl().clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) !=
            CL_SUCCESS ||
        count == 0) {
      continue;
    }
    std::vector<cl_device_id> ids(count);
    Cl().clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(),
                        nullptr);
    for (cl_device_id id : ids) {
      auto state = std::make_unique<DeviceState>();
      Device& d = state->device;
      d.id = id;
      d.name = PlatformName(platform) + ": " + InfoString(id, CL_DEVICE_NAME);
      d.fp64 = InfoString(id, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") !=
               std::string::npos;
      cl_device_fp_config config = 0;
      Cl().clGetDeviceInfo(id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof(config),
                           &config, nullptr);
      d.denormals = (config & CL_FP_DENORM) != 0;
      cl_device_fp_config config64 = 0;
      if (d.fp64) {
        Cl().clGetDeviceInfo(id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(config64),
                             &config64, nullptr);
      }
      d.denormals64 = (config64 & CL_FP_DENORM) != 0;
      Cl().clGetDeviceInfo(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                           sizeof(d.max_alloc), &d.max_alloc, nullptr);
      Cl().clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                           sizeof(d.max_group), &d.max_group, nullptr);
      Cl().clGetDeviceInfo(id, CL_DEVICE_MAX_COMPUTE_UNITS,
                           sizeof(d.compute_units), &d.compute_units, nullptr);
      r->devices.push_back(std::move(state));
    }
  }
  if (r->devices.empty()) {
    r->why = "no OpenCL device on " + std::to_string(platform_count) +
             " platform(s)";
  }
  return r;
}

Registry& GetRegistry() {
  static Registry* registry = Discover();  // never destroyed: see runtime.h
  return *registry;
}

// Builds context, queue and program for one device; sets state->status.
void Build(DeviceState* state) {
  cl_int err = CL_SUCCESS;
  const cl_device_id id = state->device.id;
  Session& s = state->session;
  s.context = Cl().clCreateContext(nullptr, 1, &id, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) {
    state->status = LRELU_STATUS_BACKEND_UNAVAILABLE;
    state->error = "clCreateContext: " + ErrorName(err);
    return;
  }
  s.queue = Cl().clCreateCommandQueue(s.context, id, 0, &err);
  if (err != CL_SUCCESS) {
    state->status = LRELU_STATUS_BACKEND_UNAVAILABLE;
    state->error = "clCreateCommandQueue: " + ErrorName(err);
    return;
  }
  const char* sources[] = {gpu::kOpenClSource, gpu::kOpenClPreluSource};
  s.program =
      Cl().clCreateProgramWithSource(s.context, 2, sources, nullptr, &err);
  if (err == CL_SUCCESS) {
    // No -cl-fast-relaxed-math, -cl-mad-enable or -cl-denorms-are-zero: the
    // contract wants one correctly rounded multiply with denormals kept.
    err = Cl().clBuildProgram(s.program, 1, &id, "-cl-std=CL1.2", nullptr,
                              nullptr);
  }
  if (err != CL_SUCCESS) {
    std::string log;
    size_t size = 0;
    if (s.program != nullptr &&
        Cl().clGetProgramBuildInfo(s.program, id, CL_PROGRAM_BUILD_LOG, 0,
                                   nullptr, &size) == CL_SUCCESS) {
      log.resize(size);
      Cl().clGetProgramBuildInfo(s.program, id, CL_PROGRAM_BUILD_LOG, size,
                                 log.data(), nullptr);
    }
    state->status = LRELU_STATUS_INTERNAL;
    state->error =
        "building lrelu.cl and prelu.cl failed: " + ErrorName(err) + ": " + log;
    return;
  }
  state->status = LRELU_STATUS_OK;
}

std::atomic<bool> g_no_denormals{false};

}  // namespace

void SetNoDenormalsForTesting(bool no_denormals) {
  g_no_denormals.store(no_denormals);
}
bool NoDenormalsForTesting() { return g_no_denormals.load(); }

int DeviceCount(std::string* why) {
  Registry& r = GetRegistry();
  if (why != nullptr) *why = r.why;
  return static_cast<int>(r.devices.size());
}

const Device* GetDevice(int i) {
  Registry& r = GetRegistry();
  if (i < 0 || i >= static_cast<int>(r.devices.size())) return nullptr;
  return &r.devices[static_cast<size_t>(i)]->device;
}

lrelu_status_t GetSession(int i, Session* session) {
  Registry& r = GetRegistry();
  if (i < 0 || i >= static_cast<int>(r.devices.size())) {
    return Fail(LRELU_STATUS_INTERNAL, "opencl device %d does not exist", i);
  }
  DeviceState* state = r.devices[static_cast<size_t>(i)].get();
  std::call_once(state->once, [state] { Build(state); });
  if (state->status != LRELU_STATUS_OK) {
    return Fail(state->status, "opencl device %d (%s): %s", i,
                state->device.name.c_str(), state->error.c_str());
  }
  *session = state->session;
  return LRELU_STATUS_OK;
}

std::string ErrorName(cl_int code) {
  const char* name = "unknown error";
  switch (code) {
    case CL_SUCCESS:
      name = "CL_SUCCESS";
      break;
    case CL_DEVICE_NOT_FOUND:
      name = "CL_DEVICE_NOT_FOUND";
      break;
    case CL_DEVICE_NOT_AVAILABLE:
      name = "CL_DEVICE_NOT_AVAILABLE";
      break;
    case CL_COMPILER_NOT_AVAILABLE:
      name = "CL_COMPILER_NOT_AVAILABLE";
      break;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
      name = "CL_MEM_OBJECT_ALLOCATION_FAILURE";
      break;
    case CL_OUT_OF_RESOURCES:
      name = "CL_OUT_OF_RESOURCES";
      break;
    case CL_OUT_OF_HOST_MEMORY:
      name = "CL_OUT_OF_HOST_MEMORY";
      break;
    case CL_BUILD_PROGRAM_FAILURE:
      name = "CL_BUILD_PROGRAM_FAILURE";
      break;
    case CL_INVALID_VALUE:
      name = "CL_INVALID_VALUE";
      break;
    case CL_INVALID_DEVICE:
      name = "CL_INVALID_DEVICE";
      break;
    case CL_INVALID_CONTEXT:
      name = "CL_INVALID_CONTEXT";
      break;
    case CL_INVALID_COMMAND_QUEUE:
      name = "CL_INVALID_COMMAND_QUEUE";
      break;
    case CL_INVALID_MEM_OBJECT:
      name = "CL_INVALID_MEM_OBJECT";
      break;
    case CL_INVALID_KERNEL_NAME:
      name = "CL_INVALID_KERNEL_NAME";
      break;
    case CL_INVALID_KERNEL_ARGS:
      name = "CL_INVALID_KERNEL_ARGS";
      break;
    case CL_INVALID_WORK_GROUP_SIZE:
      name = "CL_INVALID_WORK_GROUP_SIZE";
      break;
    case CL_INVALID_BUFFER_SIZE:
      name = "CL_INVALID_BUFFER_SIZE";
      break;
    case -1001:
      name = "CL_PLATFORM_NOT_FOUND_KHR";
      break;
    default:
      break;
  }
  return std::string(name) + " (" + std::to_string(code) + ")";
}

}  // namespace lrelu::opencl
