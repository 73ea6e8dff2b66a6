// The OpenCL entry points lrelu uses, loaded at run time with
// dlopen("libOpenCL.so.1") the first time a caller asks for the OpenCL
// backend. liblrelu therefore does not link libOpenCL: it loads on machines
// without an ICD loader, and processes that never use OpenCL never open it.
#ifndef LRELU_SRC_OPENCL_LOADER_H_
#define LRELU_SRC_OPENCL_LOADER_H_

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <string>

namespace lrelu::opencl {

// One pointer per function, named as the function (call sites read
// Cl().clGetPlatformIDs(...)).
struct ClApi {
#define LRELU_CL_FUNCTIONS(X)  \
  X(clGetPlatformIDs)          \
  X(clGetPlatformInfo)         \
  X(clGetDeviceIDs)            \
  X(clGetDeviceInfo)           \
  X(clCreateContext)           \
  X(clCreateCommandQueue)      \
  X(clCreateProgramWithSource) \
  X(clBuildProgram)            \
  X(clGetProgramBuildInfo)     \
  X(clCreateBuffer)            \
  X(clCreateKernel)            \
  X(clSetKernelArg)            \
  X(clEnqueueNDRangeKernel)    \
  X(clEnqueueReadBuffer)       \
  X(clEnqueueWriteBuffer)      \
  X(clReleaseKernel)           \
  X(clReleaseMemObject)
#define LRELU_CL_MEMBER(name) decltype(&::name) name = nullptr;
  LRELU_CL_FUNCTIONS(LRELU_CL_MEMBER)
#undef LRELU_CL_MEMBER
};

// The loaded API, or nullptr with the reason in *why ("no OpenCL ICD loader:
// dlopen(libOpenCL.so.1): ..."). Loaded once per process; thread-safe.
// LRELU_OPENCL_LIBRARY (environment) names another file to open.
const ClApi* LoadCl(std::string* why);

// The API for code that runs only after LoadCl succeeded.
const ClApi& Cl();

}  // namespace lrelu::opencl

#endif  // LRELU_SRC_OPENCL_LOADER_H_
