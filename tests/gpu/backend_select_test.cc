// Backend selection through options.backend: names, availability, the
// errors for unknown and unavailable backends, and callers built against
// the options struct before stream and device existed.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "lrelu/lrelu.hpp"

namespace lrelu {
namespace {

// A value outside lrelu_backend_t, as a caller's bad integer would be.
lrelu_backend_t BadBackend(int value) {
  lrelu_backend_t b;
  std::memcpy(&b, &value, sizeof(b));
  return b;
}

// Default options on `backend`.
lrelu_options_t OptionsOn(lrelu_backend_t backend) {
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.backend = backend;
  return o;
}

// LeakyReLU of one float32 scalar with `o`.
lrelu_status_t ScalarCall(const lrelu_options_t& o) {
  float x = -1, y = 0;
  lrelu_tensor_t tx = {&x, LRELU_DTYPE_FLOAT32, 0, nullptr, nullptr};
  lrelu_tensor_t ty = {&y, LRELU_DTYPE_FLOAT32, 0, nullptr, nullptr};
  return lrelu_leaky_relu(&tx, 0.5, &ty, &o);
}

TEST(BackendSelectTest, NamesAndCounts) {
  EXPECT_STREQ(lrelu_backend_name(LRELU_BACKEND_CPU), "cpu");
  EXPECT_STREQ(lrelu_backend_name(LRELU_BACKEND_CUDA), "cuda");
  EXPECT_STREQ(lrelu_backend_name(LRELU_BACKEND_OPENCL), "opencl");
  EXPECT_EQ(lrelu_backend_name(BadBackend(9)), nullptr);
  EXPECT_EQ(lrelu_device_count(LRELU_BACKEND_CPU), 1);
  EXPECT_TRUE(backend_available(LRELU_BACKEND_CPU));
  EXPECT_STREQ(lrelu_backend_unavailable_reason(LRELU_BACKEND_CPU), "");
  EXPECT_EQ(lrelu_device_count(BadBackend(9)), 0);
  for (lrelu_backend_t b : {LRELU_BACKEND_CUDA, LRELU_BACKEND_OPENCL}) {
    const bool available = backend_available(b);
    EXPECT_EQ(available, device_count(b) > 0);
    EXPECT_EQ(available, backend_unavailable_reason(b).empty());
    if (available) {
      EXPECT_EQ(lrelu_backend_built(b), 1);
    }
    std::printf("%s: built %d, devices %d%s%s\n", lrelu_backend_name(b),
                lrelu_backend_built(b), device_count(b), available ? "" : ", ",
                backend_unavailable_reason(b).c_str());
    for (const std::string& name : device_names(b))
      std::printf("  %s\n", name.c_str());
  }
}

TEST(BackendSelectTest, UnknownBackendIsUnavailable) {
  lrelu_options_t o = OptionsOn(BadBackend(7));
  EXPECT_EQ(ScalarCall(o), LRELU_STATUS_BACKEND_UNAVAILABLE);
  EXPECT_NE(std::strstr(lrelu_last_error(), "backend 7 is not built"), nullptr)
      << lrelu_last_error();
  o.backend = LRELU_BACKEND_CPU;
  o.device = -1;
  EXPECT_EQ(ScalarCall(o), LRELU_STATUS_INVALID_ARGUMENT);
}

// The message for an unknown backend lists every backend the library knows
// with its value, and each variant a backend lists can be forced on it.
TEST(BackendSelectTest, ListsComeFromTheBackendTable) {
  ASSERT_EQ(ScalarCall(OptionsOn(BadBackend(7))),
            LRELU_STATUS_BACKEND_UNAVAILABLE);
  const std::string message = lrelu_last_error();
  int known = 0;
  for (; lrelu_backend_name(BadBackend(known)) != nullptr; ++known) {
    const std::string entry =
        std::string(lrelu_backend_name(BadBackend(known))) + " " +
        std::to_string(known);
    EXPECT_NE(message.find(entry), std::string::npos) << message;
  }
  EXPECT_EQ(known, 3);
  EXPECT_EQ(lrelu_backend_variant(BadBackend(known), 0), nullptr);
  EXPECT_EQ(backend_variants(LRELU_BACKEND_CPU),
            (std::vector<std::string>{"reference", "contiguous", "strided"}));
  for (lrelu_backend_t b : {LRELU_BACKEND_CUDA, LRELU_BACKEND_OPENCL}) {
    EXPECT_EQ(backend_variants(b),
              (std::vector<std::string>{"scalar", "vec4"}));
  }
  // Each CPU variant is accepted by name, and the plan reports it (a
  // one-element tensor is one dense run, so each variant can serve it).
  float x = -1, y = 0;
  for (const std::string& variant : backend_variants(LRELU_BACKEND_CPU)) {
    Options options;
    options.variant = variant;
    Executor e =
        Executor::forward(TensorView(&x, DType::kFloat32, {1}), 0.5,
                          TensorView(&y, DType::kFloat32, {1}), options);
    EXPECT_EQ(e.variant(), variant);
  }
}

// A CPU plan runs on the host, with a SIMD target; the device it names is
// the CPU backend's device 0.
TEST(BackendSelectTest, CpuPlanNamesItsDeviceAndTarget) {
  float x = -1, y = 0;
  Executor e = Executor::forward(TensorView(&x, DType::kFloat32, {1}), 0.5,
                                 TensorView(&y, DType::kFloat32, {1}));
  EXPECT_EQ(e.device(), lrelu_device_name(LRELU_BACKEND_CPU, 0));
  EXPECT_EQ(e.cpu_target(), lrelu_cpu_target_name(0));
  EXPECT_EQ(lrelu_executor_device(nullptr), nullptr);
}

TEST(BackendSelectTest, UnavailableBackendSaysWhy) {
  for (lrelu_backend_t b : {LRELU_BACKEND_CUDA, LRELU_BACKEND_OPENCL}) {
    if (backend_available(b)) continue;
    EXPECT_EQ(ScalarCall(OptionsOn(b)), LRELU_STATUS_BACKEND_UNAVAILABLE);
    const std::string message = lrelu_last_error();
    const std::string name = lrelu_backend_name(b);
    if (lrelu_backend_built(b)) {
      EXPECT_NE(message.find("no "), std::string::npos) << message;
    } else {
      EXPECT_EQ(message, "backend " + name + " is not built into this library");
    }
  }
}

TEST(BackendSelectTest, OldOptionsStructStillWorks) {
  // A caller compiled before stream and device were appended.
  lrelu_options_t o;
  lrelu_options_init(&o);
  std::memset(&o.stream, 0x7f, sizeof(o.stream));  // beyond its struct_size
  o.device = 12345;
  o.struct_size = static_cast<uint32_t>(offsetof(lrelu_options_t, stream));
  float x = -2, y = 0;
  lrelu_tensor_t tx = {&x, LRELU_DTYPE_FLOAT32, 0, nullptr, nullptr};
  lrelu_tensor_t ty = {&y, LRELU_DTYPE_FLOAT32, 0, nullptr, nullptr};
  ASSERT_EQ(lrelu_leaky_relu(&tx, 0.5, &ty, &o), LRELU_STATUS_OK)
      << lrelu_last_error();
  EXPECT_EQ(y, -1.0f);
}

}  // namespace
}  // namespace lrelu
