// How liblrelu reports a missing OpenCL, run by ctest in processes whose
// environment takes a piece away (LRELU_EXPECT_OPENCL names which):
//   no-loader    LRELU_OPENCL_LIBRARY points at no file: "no OpenCL ICD
//                loader: dlopen(...)"
//   no-platform  the loader is there but loads no ICD (OCL_ICD_VENDORS is an
//                empty folder; or, with LRELU_TEST_FD_LIMIT=1, the loader is
//                mapped first and then no file descriptor is left for it to
//                read its ICDs): "the OpenCL ICD loader is there but found
//                no platform"
// Either way the status is BACKEND_UNAVAILABLE and the CPU keeps working.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lrelu/lrelu.h"
#include "reference/reference.h"

namespace {

TEST(OpenClLoadTest, ReasonNamesTheMissingPiece) {
  const char* expect = std::getenv("LRELU_EXPECT_OPENCL");
  ASSERT_NE(expect, nullptr) << "run through ctest (opencl_no_loader, ...)";
  rlimit saved{};
  const bool fd_limit = std::getenv("LRELU_TEST_FD_LIMIT") != nullptr;
  if (fd_limit) {
    ASSERT_NE(dlopen("libOpenCL.so.1", RTLD_NOW), nullptr) << dlerror();
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
    const int lowest_free = dup(0);
    ASSERT_GE(lowest_free, 0);
    close(lowest_free);
    rlimit tight = saved;
    tight.rlim_cur = static_cast<rlim_t>(lowest_free);  // no new descriptor
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &tight), 0);
  }
  EXPECT_FALSE(lrelu_backend_available(LRELU_BACKEND_OPENCL));
  if (fd_limit) {
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
  }
  EXPECT_EQ(lrelu_device_count(LRELU_BACKEND_OPENCL), 0);
  const std::string reason =
      lrelu_backend_unavailable_reason(LRELU_BACKEND_OPENCL);
  std::printf("reason: %s\n", reason.c_str());
  if (std::strcmp(expect, "no-loader") == 0) {
    EXPECT_EQ(reason.rfind("no OpenCL ICD loader: dlopen(", 0), 0u) << reason;
  } else {
    ASSERT_STREQ(expect, "no-platform");
    EXPECT_EQ(reason.rfind("the OpenCL ICD loader is there but found no "
                           "platform",
                           0),
              0u)
        << reason;
  }
  std::vector<float> x = {-2.0f, 3.0f}, y(2);
  const int64_t shape[1] = {2};
  lrelu_tensor_t tx = {x.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t ty = {y.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.backend = LRELU_BACKEND_OPENCL;
  EXPECT_EQ(lrelu_leaky_relu(&tx, 0.5, &ty, &o),
            LRELU_STATUS_BACKEND_UNAVAILABLE);
  EXPECT_NE(std::string(lrelu_last_error()).find(reason), std::string::npos)
      << lrelu_last_error();
  o.backend = LRELU_BACKEND_CPU;
  ASSERT_EQ(lrelu_leaky_relu(&tx, 0.5, &ty, &o), LRELU_STATUS_OK);
  std::vector<float> want(2);
  lrelu::reference::Apply(LRELU_DTYPE_FLOAT32, x.data(), x.data(), want.data(),
                          2, 0.5);
  EXPECT_EQ(std::memcmp(y.data(), want.data(), sizeof(float) * 2), 0);
}

}  // namespace
