#include "gpu/gpu_test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <utility>

#include "support/lrelu_tester.h"
#include "support/test_data.h"

namespace lrelu::testing {

lrelu_options_t BackendOptions(lrelu_backend_t backend) {
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.backend = backend;
  return o;
}

const Memory& HostMemory() {
  static const Memory memory = {
      // 64-byte blocks, as support/memory.h promises (a size that is a
      // multiple of the alignment, as aligned_alloc wants).
      [](size_t bytes) {
        return std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
      },
      [](void* p) { std::free(p); },
      [](void* dst, const void* src, size_t bytes) {
        if (bytes != 0) std::memcpy(dst, src, bytes);  // NULL when empty
      },
      [](void* dst, const void* src, size_t bytes) {
        if (bytes != 0) std::memcpy(dst, src, bytes);  // NULL when empty
      },
      [] {},
  };
  return memory;
}

bool HasFloat64(lrelu_backend_t backend) {
  double x = 1;
  double y = 0;
  const int64_t shape[1] = {1};
  lrelu_tensor_t tx = {&x, LRELU_DTYPE_FLOAT64, 1, shape, nullptr};
  lrelu_tensor_t ty = {&y, LRELU_DTYPE_FLOAT64, 1, shape, nullptr};
  const lrelu_options_t o = BackendOptions(backend);
  size_t ws;
  lrelu_executor_t* e = nullptr;
  const bool ok = lrelu_leaky_relu_get_workspace_size(&tx, 0.5, &ty, &o, &ws,
                                                      &e) == LRELU_STATUS_OK;
  lrelu_executor_destroy(e);
  return ok;
}

std::vector<lrelu_dtype_t> DeviceDTypes(lrelu_backend_t backend) {
  std::vector<lrelu_dtype_t> dtypes;
  for (lrelu_dtype_t d : AllDTypes()) {
    if (d != LRELU_DTYPE_FLOAT64 || HasFloat64(backend)) dtypes.push_back(d);
  }
  return dtypes;
}

bool CudaRequired() {
  const char* value = std::getenv("LRELU_REQUIRE_CUDA");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

PreluCase MakePreluCase(lrelu_backend_t backend, lrelu_dtype_t dtype,
                        std::vector<int64_t> x_shape,
                        std::vector<int64_t> alpha_shape) {
  PreluCase c;
  c.backend = backend;
  c.dtype = dtype;
  c.x_shape = std::move(x_shape);
  c.alpha_shape = std::move(alpha_shape);
  return c;
}

void ExpectEveryPreluPattern(
    lrelu_backend_t backend, const std::vector<lrelu_dtype_t>& dtypes,
    const Memory& memory,
    const std::function<void(const PreluPattern&, const std::string&)>&
        check_variant) {
  unsigned seed = 1;
  for (lrelu_dtype_t dtype : dtypes) {
    for (const auto& pattern : PreluPatterns()) {
      for (bool in_place : {false, true}) {
        PreluCase c =
            MakePreluCase(backend, dtype, pattern.x_shape, pattern.alpha_shape);
        c.in_place = in_place;
        std::string variant;
        EXPECT_EQ(RunPreluDeviceCase(c, memory, ++seed, &variant), "")
            << lrelu_dtype_name(dtype) << " " << pattern.name
            << (in_place ? " in place" : "");
        if (check_variant) check_variant(pattern, variant);
      }
    }
  }
}

void ExpectLeakyReluMatrix(lrelu_backend_t backend,
                           const std::vector<lrelu_dtype_t>& dtypes,
                           const Memory* memory) {
  const std::vector<std::vector<int64_t>> shapes = {
      {0}, {1}, {5}, {33}, {1000}, {3, 0, 2}, {7, 9, 11}};
  uint64_t seed = 0;
  for (lrelu_dtype_t dtype : dtypes) {
    for (int pass = 0; pass < 3; ++pass) {  // forward, from x, from y
      for (bool in_place : {false, true}) {
        for (const auto& shape : shapes) {
          for (size_t offset : {0, 1, 3}) {
            for (const char* variant : {"vec4", "scalar", "auto"}) {
              for (bool planned : {true, false}) {
                LeakyReluTester t;
                t.backend(backend)
                    .memory(memory)
                    .dtype(dtype)
                    .shape(shape)
                    .offset(offset)
                    .variant(variant)
                    .inplace(in_place)
                    .gradient(pass > 0)
                    .grad_source(pass == 2 ? GradSource::kFromY
                                           : GradSource::kFromX)
                    .alpha(pass == 2 ? 0.375 : -0.375)
                    .planned(planned)
                    .seed(++seed);
                try {
                  EXPECT_EQ(t.Run(), "") << t.Describe();
                } catch (const Error& e) {
                  ADD_FAILURE() << t.Describe() << ": " << e.what();
                }
              }
            }
          }
        }
      }
    }
  }
}

void ExpectBoundLeakyRelu(lrelu_backend_t backend,
                          const std::vector<lrelu_dtype_t>& dtypes,
                          const Memory& memory) {
  unsigned seed = 500;
  for (lrelu_dtype_t dtype : dtypes) {
    for (const char* variant :
         {"vec4", "scalar", static_cast<const char*>(nullptr)}) {
      for (bool gradient : {false, true}) {
        for (bool in_place : {false, true}) {
          DeviceCase c{};
          c.backend = backend;
          c.variant = variant;
          c.dtype = dtype;
          c.source = LRELU_GRAD_FROM_X;
          c.n = 1001;
          c.offset = 3;
          c.alpha = -0.375;
          c.gradient = gradient;
          c.in_place = in_place;
          c.rebind = true;
          EXPECT_EQ(RunDeviceCase(c, memory, ++seed), "")
              << lrelu_dtype_name(dtype) << " " << (variant ? variant : "auto")
              << (gradient ? " gradient" : " forward")
              << (in_place ? " in place" : "");
        }
      }
    }
  }
}

void ExpectBoundPrelu(lrelu_backend_t backend,
                      const std::vector<lrelu_dtype_t>& dtypes,
                      const Memory& memory) {
  unsigned seed = 700;
  for (lrelu_dtype_t dtype : dtypes) {
    for (const PreluPattern& pattern : PreluPatterns()) {
      for (bool in_place : {false, true}) {
        PreluCase c =
            MakePreluCase(backend, dtype, pattern.x_shape, pattern.alpha_shape);
        c.in_place = in_place;
        c.rebind = true;
        EXPECT_EQ(RunPreluDeviceCase(c, memory, ++seed), "")
            << lrelu_dtype_name(dtype) << " " << pattern.name
            << (in_place ? " in place" : "");
      }
    }
    PreluCase c = MakePreluCase(backend, dtype, {2, 3, 4, 5}, {3, 1, 1});
    c.x_strides = {-60, -20, -5, -1};
    c.rebind = true;
    EXPECT_EQ(RunPreluDeviceCase(c, memory, ++seed), "") << "reversed";
    c.x_strides = {60, 1, 15, 3};
    EXPECT_EQ(RunPreluDeviceCase(c, memory, ++seed), "") << "permuted";
  }
}

void SkipWithoutDevice(lrelu_backend_t backend) {
  if (lrelu_backend_available(backend)) return;
  const bool cuda = backend == LRELU_BACKEND_CUDA;
  const char* reason = lrelu_backend_unavailable_reason(backend);
  if (cuda && CudaRequired()) {
    FAIL() << "LRELU_REQUIRE_CUDA=1 but no CUDA device: " << reason;
  }
  GTEST_SKIP() << "no " << (cuda ? "CUDA" : "OpenCL") << " device: " << reason;
}

}  // namespace lrelu::testing
