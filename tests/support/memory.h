// Where tensors live for a backend, in the tests: host memory (the CPU,
// OpenCL) or a device's memory (CUDA). Copies are whole byte ranges;
// alloc'd blocks are freed by free and aligned to at least 64 bytes.
#ifndef LRELU_TESTS_SUPPORT_MEMORY_H_
#define LRELU_TESTS_SUPPORT_MEMORY_H_

#include <cstddef>

namespace lrelu::testing {

struct Memory {
  void* (*alloc)(size_t bytes);
  void (*free)(void* p);
  void (*to_device)(void* dst, const void* src, size_t bytes);
  void (*to_host)(void* dst, const void* src, size_t bytes);
  void (*sync)();  // waits for queued work (CUDA streams)
};

}  // namespace lrelu::testing

#endif  // LRELU_TESTS_SUPPORT_MEMORY_H_
