// CUDA device memory for the device cases (cuda_test, cuda_prelu_test; only
// where they are built with LRELU_TEST_HAS_CUDA). The sync waits for
// g_stream too, which a test sets while it runs cases on its own stream.
#ifndef LRELU_TESTS_GPU_CUDA_TEST_MEMORY_H_
#define LRELU_TESTS_GPU_CUDA_TEST_MEMORY_H_

#include <cuda_runtime.h>

#include <cstdlib>

#include "gpu/device_cases.h"

namespace lrelu::testing {

inline cudaStream_t g_stream = nullptr;

inline const Memory kDeviceMemory = {
    [](size_t bytes) {
      void* p = nullptr;
      if (cudaMalloc(&p, bytes) != cudaSuccess) std::abort();
      return p;
    },
    [](void* p) { cudaFree(p); },
    [](void* dst, const void* src, size_t bytes) {
      cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    },
    [](void* dst, const void* src, size_t bytes) {
      cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
    },
    [] {
      if (g_stream != nullptr) cudaStreamSynchronize(g_stream);
      cudaDeviceSynchronize();
    },
};

}  // namespace lrelu::testing

#endif  // LRELU_TESTS_GPU_CUDA_TEST_MEMORY_H_
