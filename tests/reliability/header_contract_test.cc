// What lrelu.h promises, held against the library: the message
// of the thread's last FAILED call survives successful calls; struct_size is
// bounded before anything past the known fields is read; every executor
// query refuses a NULL, destroyed or foreign handle and says why; the CPU
// backend has one device. Accepted calls are checked against the oracle.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "lrelu/lrelu.h"
#include "reference/reference.h"

namespace {

struct Data {
  float x[16];
  float y[16];
  Data() {
    for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i - 8) * 0.75f;
    std::memset(y, 0x77, sizeof(y));
  }
  bool YUntouched() const {
    const auto* b = reinterpret_cast<const unsigned char*>(y);
    for (size_t i = 0; i < sizeof(y); ++i) {
      if (b[i] != 0x77) return false;
    }
    return true;
  }
  bool YMatchesTheOracle(double alpha) const {
    float expected[16];
    lrelu::reference::Apply(LRELU_DTYPE_FLOAT32, x, x, expected, 16, alpha);
    return std::memcmp(expected, y, sizeof(y)) == 0;
  }
};

const int64_t kShape[1] = {16};

lrelu_tensor_t View(float* data) {
  return lrelu_tensor_t{data, LRELU_DTYPE_FLOAT32, 1, kShape, nullptr};
}

std::string LastError() { return lrelu_last_error(); }

TEST(HeaderContract, LastErrorSurvivesSuccessfulCalls) {
  Data d;
  lrelu_tensor_t x = View(d.x), y = View(d.y);
  lrelu_tensor_t bad = x;
  bad.dtype = LRELU_DTYPE_FLOAT16;
  ASSERT_EQ(lrelu_leaky_relu(&x, 0.1, &bad, nullptr),
            LRELU_STATUS_DTYPE_MISMATCH);
  const std::string message = LastError();
  ASSERT_NE(message.find("float16"), std::string::npos) << message;
  // Successful calls of every kind leave it alone.
  ASSERT_EQ(lrelu_leaky_relu(&x, 0.1, &y, nullptr), LRELU_STATUS_OK);
  EXPECT_TRUE(d.YMatchesTheOracle(0.1));
  size_t workspace = 0;
  lrelu_executor_t* e = nullptr;
  ASSERT_EQ(
      lrelu_leaky_relu_get_workspace_size(&x, 0.1, &y, nullptr, &workspace, &e),
      LRELU_STATUS_OK);
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  lrelu_executor_destroy(e);
  size_t length = 0;
  ASSERT_EQ(lrelu_kernel_source("opencl", LRELU_DTYPE_FLOAT32, "scalar", 0,
                                nullptr, 0, &length),
            LRELU_STATUS_OK);
  EXPECT_EQ(LastError(), message);
  // The next failure replaces it.
  ASSERT_EQ(lrelu_execute(nullptr, 0, nullptr, nullptr),
            LRELU_STATUS_INVALID_EXECUTOR);
  EXPECT_NE(LastError().find("executor is NULL"), std::string::npos);
}

TEST(HeaderContract, StructSizeIsBounded) {
  Data d;
  lrelu_tensor_t x = View(d.x), y = View(d.y);
  // A buffer of exactly the maximum, options at its front, zero tail: a
  // newer header's struct. Accepted, and nothing past it is read (ASan).
  std::vector<unsigned char> buffer(LRELU_OPTIONS_MAX_STRUCT_SIZE, 0);
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.threads = 1;
  o.struct_size = LRELU_OPTIONS_MAX_STRUCT_SIZE;
  std::memcpy(buffer.data(), &o, sizeof(o));
  const auto* big = reinterpret_cast<const lrelu_options_t*>(buffer.data());
  ASSERT_EQ(lrelu_leaky_relu(&x, 0.1, &y, big), LRELU_STATUS_OK) << LastError();
  EXPECT_TRUE(d.YMatchesTheOracle(0.1));
  // Past the maximum, up to a garbled 0xffffffff: refused before reading
  // past the known fields (the struct here is only sizeof(o) bytes).
  Data fresh;
  y = View(fresh.y);
  for (uint32_t size : {uint32_t{LRELU_OPTIONS_MAX_STRUCT_SIZE + 1},
                        uint32_t{1} << 20, 0xffffffffu}) {
    o.struct_size = size;
    ASSERT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o), LRELU_STATUS_INVALID_ARGUMENT)
        << size;
    EXPECT_NE(LastError().find("LRELU_OPTIONS_MAX_STRUCT_SIZE"),
              std::string::npos)
        << LastError();
    EXPECT_TRUE(fresh.YUntouched());
  }
}

TEST(HeaderContract, QueriesOnInvalidExecutors) {
  Data d;
  lrelu_tensor_t x = View(d.x), y = View(d.y);
  size_t workspace = 0;
  lrelu_executor_t* e = nullptr;
  ASSERT_EQ(
      lrelu_leaky_relu_get_workspace_size(&x, 0.1, &y, nullptr, &workspace, &e),
      LRELU_STATUS_OK);
  ASSERT_NE(lrelu_executor_variant(e), nullptr);
  ASSERT_NE(lrelu_executor_cpu_target(e), nullptr);
  ASSERT_GE(lrelu_executor_tasks(e), 1u);
  lrelu_executor_destroy(e);
  int foreign = 0;
  auto* stranger = reinterpret_cast<lrelu_executor_t*>(&foreign);
  for (lrelu_executor_t* handle :
       {static_cast<lrelu_executor_t*>(nullptr), e, stranger}) {
    EXPECT_EQ(lrelu_executor_variant(handle), nullptr);
    EXPECT_NE(LastError().find("executor is NULL, destroyed"),
              std::string::npos);
    EXPECT_EQ(lrelu_executor_cpu_target(handle), nullptr);
    EXPECT_EQ(lrelu_executor_tasks(handle), 0u);
    EXPECT_EQ(lrelu_execute(nullptr, 0, handle, nullptr),
              LRELU_STATUS_INVALID_EXECUTOR);
    lrelu_executor_destroy(handle);  // ignored, never freed
  }
  EXPECT_EQ(foreign, 0);
  EXPECT_TRUE(d.YUntouched());
}

TEST(HeaderContract, CpuBackendHasOnlyDeviceZero) {
  Data d;
  lrelu_tensor_t x = View(d.x), y = View(d.y);
  ASSERT_EQ(lrelu_device_count(LRELU_BACKEND_CPU), 1);
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.device = 7;
  ASSERT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o), LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("options.device is 7 but the cpu backend has 1 "
                             "device"),
            std::string::npos)
      << LastError();
  EXPECT_TRUE(d.YUntouched());
  o.device = 0;
  ASSERT_EQ(lrelu_leaky_relu(&x, 0.1, &y, &o), LRELU_STATUS_OK);
  EXPECT_TRUE(d.YMatchesTheOracle(0.1));
}

}  // namespace
