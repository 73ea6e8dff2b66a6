// PReLU forward on the OpenCL backend (PoCL here and in CI) against the
// oracle: every dtype x broadcast pattern, random bits full of specials in
// x and alpha, permuted and reversed dense layouts of x, strided and
// reversed alpha, in place, a large per-channel tensor, and the refusals.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu/gpu_test_support.h"
#include "gpu/prelu_device_cases.h"
#include "lrelu/lrelu.h"
#include "support/test_data.h"

namespace lrelu {
namespace {

using testing::AllDTypes;
using testing::BackendOptions;
using testing::HostMemory;
using testing::PreluCase;
using testing::RunPreluDeviceCase;

class OpenClPreluTest : public testing::DeviceTest<LRELU_BACKEND_OPENCL> {
 protected:
  static std::vector<lrelu_dtype_t> DTypes() {
    return testing::DeviceDTypes(LRELU_BACKEND_OPENCL);
  }
  // Status of a forward call on the OpenCL backend with the last error.
  static lrelu_status_t Call(const lrelu_tensor_t& x, const lrelu_tensor_t& a,
                             const lrelu_tensor_t& y,
                             const char* variant = nullptr) {
    lrelu_options_t o = BackendOptions(LRELU_BACKEND_OPENCL);
    o.variant = variant;
    return lrelu_prelu(&x, &a, &y, &o);
  }
  // An executor for the forward pass on `backend`, or NULL (a failure).
  static lrelu_executor_t* PlanOn(lrelu_backend_t backend,
                                  const lrelu_tensor_t& x,
                                  const lrelu_tensor_t& a,
                                  const lrelu_tensor_t& y) {
    const lrelu_options_t o = BackendOptions(backend);
    size_t ws = 0;
    lrelu_executor_t* e = nullptr;
    const lrelu_status_t s =
        lrelu_prelu_get_workspace_size(&x, &a, &y, &o, &ws, &e);
    EXPECT_EQ(s, LRELU_STATUS_OK) << lrelu_last_error();
    return s == LRELU_STATUS_OK ? e : nullptr;
  }
};

TEST_F(OpenClPreluTest, EveryDTypeAndPattern) {
  testing::ExpectEveryPreluPattern(
      LRELU_BACKEND_OPENCL, DTypes(), HostMemory(),
      [](const testing::PreluPattern& pattern, const std::string& variant) {
        int64_t n = 1;
        for (int64_t d : pattern.x_shape) n *= d;
        EXPECT_EQ(variant, n == 0 ? "empty" : "scalar") << pattern.name;
      });
}

TEST_F(OpenClPreluTest, LayoutsOfXAndAlpha) {
  for (lrelu_dtype_t dtype : DTypes()) {
    // x NCHW-shaped but stored NHWC (a permuted dense run), alpha [C,1,1].
    PreluCase c = Case(dtype, {2, 3, 4, 5}, {3, 1, 1});
    c.x_strides = {60, 1, 15, 3};
    EXPECT_EQ(RunPreluDeviceCase(c, HostMemory(), 11), "") << "permuted x";
    // alpha per channel, strided (every third element) and reversed.
    c = Case(dtype, {2, 4, 5, 6}, {6});
    c.alpha_strides = {3};
    EXPECT_EQ(RunPreluDeviceCase(c, HostMemory(), 12), "") << "strided alpha";
    c.alpha_strides = {-1};
    EXPECT_EQ(RunPreluDeviceCase(c, HostMemory(), 13), "") << "reversed alpha";
    // alpha as large as x, transposed.
    c = Case(dtype, {6, 7}, {6, 7});
    c.alpha_strides = {1, 6};
    EXPECT_EQ(RunPreluDeviceCase(c, HostMemory(), 14), "") << "alpha.T";
    // x walked backwards along one axis (dense in memory, negative stride).
    c = Case(dtype, {4, 9}, {4, 1});
    c.x_strides = {-9, 1};
    EXPECT_EQ(RunPreluDeviceCase(c, HostMemory(), 15), "") << "reversed x";
  }
}

// alpha with a gap between its elements that the process may not read (a
// page without access): only alpha's elements are copied to the device.
// The whole byte range from alpha's first element to its last used to be,
// which stopped the process with SIGSEGV here (and refused a column of a
// matrix larger than a device buffer).
TEST_F(OpenClPreluTest, AlphaWithAnUnreadableGap) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* map = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* pages = static_cast<unsigned char*>(map);
  ASSERT_EQ(mprotect(pages + page, page, PROT_NONE), 0);
  std::mt19937_64 rng(31);
  for (lrelu_dtype_t dtype : DTypes()) {
    const size_t elem = lrelu_dtype_size(dtype);
    // 0.25 and -3 in each dtype, at the first bytes of pages 0 and 2.
    const uint64_t quarter[] = {0, 0x3e800000, 0x3400, 0x3e80,
                                0x3fd0000000000000};
    const uint64_t minus3[] = {0, 0xc0400000, 0xc200, 0xc040,
                               0xc008000000000000};
    const std::vector<unsigned char> bits =
        testing::StoredBits(dtype, {quarter[dtype], minus3[dtype]});
    std::memcpy(pages, bits.data(), elem);
    std::memcpy(pages + 2 * page, bits.data() + elem, elem);
    // x [2, 8], alpha [2, 1] per row (NCHW's per channel).
    const int64_t shape[2] = {2, 8}, alpha_shape[2] = {2, 1};
    const int64_t alpha_strides[2] = {static_cast<int64_t>(2 * page / elem), 1};
    std::vector<unsigned char> x = testing::RandomBits(dtype, 16, rng);
    std::vector<unsigned char> y(x.size());
    const lrelu_tensor_t tx = {x.data(), dtype, 2, shape, nullptr};
    const lrelu_tensor_t ty = {y.data(), dtype, 2, shape, nullptr};
    const lrelu_tensor_t ta = {pages, dtype, 2, alpha_shape, alpha_strides};
    ASSERT_EQ(Call(tx, ta, ty), LRELU_STATUS_OK) << lrelu_last_error();
    const double alphas[2] = {0.25, -3.0};
    for (int row = 0; row < 2; ++row) {
      const size_t at = static_cast<size_t>(row) * 8 * elem;
      EXPECT_EQ(testing::CompareWithReference(dtype, &x[at], &x[at], &y[at], 8,
                                              alphas[row]),
                "")
          << lrelu_dtype_name(dtype) << " row " << row;
    }
  }
  munmap(map, 3 * page);
}

TEST_F(OpenClPreluTest, LargePerChannel) {
  for (lrelu_dtype_t dtype : DTypes()) {
    // 2^20 + 3 * 64 elements: NHWC 64 channels and NCHW 512 channels.
    PreluCase c = Case(dtype, {1, 16387, 64}, {64});
    EXPECT_EQ(RunPreluDeviceCase(c, HostMemory(), 21), "") << "NHWC";
    c = Case(dtype, {1, 512, 2049}, {512, 1});
    EXPECT_EQ(RunPreluDeviceCase(c, HostMemory(), 22), "") << "NCHW";
  }
}

TEST_F(OpenClPreluTest, Refusals) {
  float x[24] = {}, y[24] = {}, alpha[4] = {0.5f, 0.25f, 0.125f, 2.0f};
  double alpha64[3] = {0.5, 0.25, 0.125};
  const int64_t shape[2] = {4, 6}, cshape[2] = {4, 1}, bad[1] = {4};
  const int64_t strided[2] = {6, 2}, small[2] = {4, 3};
  lrelu_tensor_t tx = {x, LRELU_DTYPE_FLOAT32, 2, shape, nullptr};
  lrelu_tensor_t ty = {y, LRELU_DTYPE_FLOAT32, 2, shape, nullptr};
  lrelu_tensor_t ta = {alpha, LRELU_DTYPE_FLOAT32, 2, cshape, nullptr};
  ASSERT_EQ(Call(tx, ta, ty), LRELU_STATUS_OK) << lrelu_last_error();
  // Not broadcastable.
  lrelu_tensor_t tb = {alpha, LRELU_DTYPE_FLOAT32, 1, bad, nullptr};
  EXPECT_EQ(Call(tx, tb, ty), LRELU_STATUS_SHAPE_MISMATCH);
  // float64 alpha with a float32 x: the cpu backend only.
  lrelu_tensor_t t64 = {alpha64, LRELU_DTYPE_FLOAT64, 2, cshape, nullptr};
  EXPECT_EQ(Call(tx, t64, ty), LRELU_STATUS_UNSUPPORTED_DTYPE);
  EXPECT_NE(std::string(lrelu_last_error()).find("x's dtype"),
            std::string::npos)
      << lrelu_last_error();
  // Strided x and y: dense views only, as LeakyReLU.
  lrelu_tensor_t sx = {x, LRELU_DTYPE_FLOAT32, 2, small, strided};
  lrelu_tensor_t sy = {y, LRELU_DTYPE_FLOAT32, 2, small, strided};
  EXPECT_EQ(Call(sx, ta, sy), LRELU_STATUS_UNSUPPORTED_VARIANT);
  EXPECT_NE(std::string(lrelu_last_error()).find("dense"), std::string::npos);
  // y overlapping alpha.
  lrelu_tensor_t overlap = {y, LRELU_DTYPE_FLOAT32, 2, cshape, nullptr};
  EXPECT_EQ(Call(tx, overlap, ty), LRELU_STATUS_OVERLAP);
  // vec4 is LeakyReLU's; PReLU has the scalar kernel.
  EXPECT_EQ(Call(tx, ta, ty, "vec4"), LRELU_STATUS_UNSUPPORTED_VARIANT);
  EXPECT_EQ(Call(tx, ta, ty, "scalar"), LRELU_STATUS_OK);
  // options.stream must be NULL (LeakyReLU's check).
  lrelu_options_t o = BackendOptions(LRELU_BACKEND_OPENCL);
  o.stream = &o;
  EXPECT_EQ(lrelu_prelu(&tx, &ta, &ty, &o), LRELU_STATUS_INVALID_ARGUMENT);
  // The gradient is still the cpu backend's.
  o.stream = nullptr;
  float dx[24];
  lrelu_tensor_t tdx = {dx, LRELU_DTYPE_FLOAT32, 2, shape, nullptr};
  EXPECT_EQ(lrelu_prelu_backward(&tx, &tx, &ta, &tdx, nullptr, &o),
            LRELU_STATUS_BACKEND_UNAVAILABLE);
}

// lrelu_executor_bind: planned on other buffers, bound to these, the
// oracle's bits on every pattern, a reversed and a permuted x, in place;
// the buffers planned on stay untouched.
TEST_F(OpenClPreluTest, BoundExecutorsGiveTheOracleBits) {
  testing::ExpectBoundPrelu(LRELU_BACKEND_OPENCL, DTypes(), HostMemory());
}

TEST_F(OpenClPreluTest, BindRefusals) {
  float x[24] = {}, y[24] = {}, z[24] = {};
  float alpha[4] = {0.5f, 0.25f, 0.125f, 2.0f}, other[4] = {};
  for (float& v : x) v = -2.0f;
  const int64_t shape[2] = {4, 6}, cshape[2] = {4, 1};
  lrelu_tensor_t tx = {x, LRELU_DTYPE_FLOAT32, 2, shape, nullptr};
  lrelu_tensor_t ty = {y, LRELU_DTYPE_FLOAT32, 2, shape, nullptr};
  lrelu_tensor_t ta = {alpha, LRELU_DTYPE_FLOAT32, 2, cshape, nullptr};
  lrelu_executor_t* e = PlanOn(LRELU_BACKEND_OPENCL, tx, ta, ty);
  ASSERT_NE(e, nullptr);
  void* const two[2] = {x, y};
  EXPECT_EQ(lrelu_executor_bind(e, two, 2), LRELU_STATUS_INVALID_ARGUMENT);
  void* const y_on_alpha[3] = {x, z, z};
  EXPECT_EQ(lrelu_executor_bind(e, y_on_alpha, 3), LRELU_STATUS_OVERLAP);
  void* const in_place[3] = {x, alpha, x};
  EXPECT_EQ(lrelu_executor_bind(e, in_place, 3), LRELU_STATUS_OVERLAP);
  void* const half[3] = {x, alpha, x + 12};  // y overlapping x
  EXPECT_EQ(lrelu_executor_bind(e, half, 3), LRELU_STATUS_OVERLAP);
  void* const null_alpha[3] = {x, nullptr, y};
  EXPECT_EQ(lrelu_executor_bind(e, null_alpha, 3), LRELU_STATUS_NULL_DATA);
  // Refused binds kept the planned pointers.
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  EXPECT_EQ(y[0], -1.0f);   // channel 0: alpha 0.5
  EXPECT_EQ(y[23], -4.0f);  // channel 3: alpha 2
  // A new alpha and output.
  other[0] = 0.75f;
  void* const fresh[3] = {x, other, z};
  ASSERT_EQ(lrelu_executor_bind(e, fresh, 3), LRELU_STATUS_OK)
      << lrelu_last_error();
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  EXPECT_EQ(z[0], -1.5f);
  EXPECT_EQ(z[23], -0.0f);
  EXPECT_EQ(y[0], -1.0f);
  lrelu_executor_destroy(e);
}

// x empty, alpha one element: binding alpha to NULL is refused, as planning
// refuses it and as the cpu backend's executors do (the prelu fuzzer: the
// OpenCL executor checked alpha's pointer only where x had elements).
TEST_F(OpenClPreluTest, BindChecksAlphaBesideAnEmptyX) {
  float x[1] = {}, y[1] = {}, alpha[1] = {0.5f}, other[1] = {0.25f};
  const int64_t shape[2] = {5, 0};
  const lrelu_tensor_t tx = {x, LRELU_DTYPE_FLOAT32, 2, shape, nullptr};
  const lrelu_tensor_t ty = {y, LRELU_DTYPE_FLOAT32, 2, shape, nullptr};
  const lrelu_tensor_t ta = {alpha, LRELU_DTYPE_FLOAT32, 0, nullptr, nullptr};
  for (lrelu_backend_t backend : {LRELU_BACKEND_OPENCL, LRELU_BACKEND_CPU}) {
    lrelu_executor_t* e = PlanOn(backend, tx, ta, ty);
    ASSERT_NE(e, nullptr);
    void* const null_alpha[3] = {x, nullptr, y};
    EXPECT_EQ(lrelu_executor_bind(e, null_alpha, 3), LRELU_STATUS_NULL_DATA)
        << lrelu_backend_name(backend);
    EXPECT_NE(std::string(lrelu_last_error()).find("alpha"), std::string::npos)
        << lrelu_last_error();
    // x and y may be NULL: they have no elements.
    void* const empty[3] = {nullptr, other, nullptr};
    EXPECT_EQ(lrelu_executor_bind(e, empty, 3), LRELU_STATUS_OK)
        << lrelu_backend_name(backend) << ": " << lrelu_last_error();
    EXPECT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
    lrelu_executor_destroy(e);
  }
}

// x and y walked backwards (a stride of -1): binding NULL for x is refused
// before the plan's offset is applied to it (UBSan in the asan preset: the
// prelu fuzzer found a NULL pointer moved by -12 bytes).
TEST_F(OpenClPreluTest, BindRefusesNullBeforeMovingIt) {
  float x[4] = {-1.0f, 2.0f, -3.0f, 4.0f}, y[4] = {};
  float alpha[4] = {0.5f, 0.25f, 0.125f, 2.0f};
  const int64_t shape[1] = {4}, reversed[1] = {-1};
  const lrelu_tensor_t tx = {x + 3, LRELU_DTYPE_FLOAT32, 1, shape, reversed};
  const lrelu_tensor_t ty = {y + 3, LRELU_DTYPE_FLOAT32, 1, shape, reversed};
  const lrelu_tensor_t ta = {alpha, LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_executor_t* e = PlanOn(LRELU_BACKEND_OPENCL, tx, ta, ty);
  ASSERT_NE(e, nullptr);
  void* const null_x[3] = {nullptr, alpha, y + 3};
  EXPECT_EQ(lrelu_executor_bind(e, null_x, 3), LRELU_STATUS_NULL_DATA);
  void* const null_y[3] = {x + 3, alpha, nullptr};
  EXPECT_EQ(lrelu_executor_bind(e, null_y, 3), LRELU_STATUS_NULL_DATA);
  // The refusals kept the planned pointers: element i of x is x[3 - i],
  // with alpha[i].
  ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
  const float want[4] = {-2.0f, 2.0f, -0.75f, 4.0f};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y[i], want[i]) << i;
  lrelu_executor_destroy(e);
}

TEST_F(OpenClPreluTest, MoreThanEightMergedDimensionsAreRefused) {
  // alpha alternates between varying and broadcast over 17 axes: nothing
  // merges, so the walk would need 17 dimensions.
  std::vector<int64_t> shape(17, 2), ashape(17, 1);
  for (size_t i = 0; i < ashape.size(); i += 2) ashape[i] = 2;
  std::vector<float> x(size_t{1} << 17), y(x.size()), alpha(512, 0.5f);
  lrelu_tensor_t tx = {x.data(), LRELU_DTYPE_FLOAT32, 17, shape.data(),
                       nullptr};
  lrelu_tensor_t ty = {y.data(), LRELU_DTYPE_FLOAT32, 17, shape.data(),
                       nullptr};
  lrelu_tensor_t ta = {alpha.data(), LRELU_DTYPE_FLOAT32, 17, ashape.data(),
                       nullptr};
  EXPECT_EQ(Call(tx, ta, ty), LRELU_STATUS_UNSUPPORTED_VARIANT);
  // Eight are taken: alternate over 8 axes.
  std::vector<int64_t> shape8(8, 3), ashape8(8, 1);
  for (size_t i = 0; i < ashape8.size(); i += 2) ashape8[i] = 3;
  PreluCase c = Case(LRELU_DTYPE_FLOAT32, shape8, ashape8);
  EXPECT_EQ(RunPreluDeviceCase(c, HostMemory(), 31), "");
}

}  // namespace
}  // namespace lrelu
