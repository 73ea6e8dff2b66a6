// lrelu_kernel_source: every target x dtype x variant renders, every
// template placeholder is filled, the entry points are named, and the
// errors (WGSL float64/bfloat16, a short buffer, unknown names) are clear.
#include <gtest/gtest.h>

#include <string>

#include "lrelu/lrelu.hpp"
#include "support/test_data.h"

namespace lrelu {
namespace {

using testing::AllDTypes;

const char* Tag(lrelu_dtype_t d) {
  switch (d) {
    case LRELU_DTYPE_FLOAT32:
      return "f32";
    case LRELU_DTYPE_FLOAT16:
      return "f16";
    case LRELU_DTYPE_BFLOAT16:
      return "bf16";
    case LRELU_DTYPE_FLOAT64:
      return "f64";
    default:
      break;
  }
  return "";
}

TEST(KernelSourceTest, WgslRendersFloat32AndFloat16) {
  for (lrelu_dtype_t d : {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16}) {
    for (const char* variant : {"scalar", "vec4"}) {
      const std::string text =
          kernel_source("wgsl", static_cast<DType>(d), variant, 64);
      EXPECT_EQ(text.find("{{"), std::string::npos) << text;
      EXPECT_NE(text.find("@workgroup_size(64)"), std::string::npos);
      EXPECT_NE(text.find("fn forward("), std::string::npos);
      EXPECT_NE(text.find("fn backward("), std::string::npos);
      EXPECT_NE(text.find("bitcast<"), std::string::npos);
      const bool vec4 = std::string(variant) == "vec4";
      const bool f16 = d == LRELU_DTYPE_FLOAT16;
      const std::string word = vec4 ? (f16 ? "vec2<u32>" : "vec4<u32>") : "u32";
      EXPECT_NE(text.find("var<storage, read> v: array<" + word + ">;"),
                std::string::npos)
          << text;
      EXPECT_EQ(text.find("enable f16;"), std::string::npos);  // not needed
    }
  }
  EXPECT_NE(kernel_source("wgsl", DType::kFloat32, "scalar")
                .find("@workgroup_size(256)"),
            std::string::npos);
}

TEST(KernelSourceTest, OpenClAndCudaNameTheirEntryPoint) {
  for (lrelu_dtype_t d : AllDTypes()) {
    for (const char* variant : {"scalar", "vec4"}) {
      const std::string entry = std::string("lrelu_") + Tag(d) + "_" + variant;
      const std::string cl =
          kernel_source("opencl", static_cast<DType>(d), variant);
      EXPECT_NE(cl.find("kernel void " + entry + "("), std::string::npos)
          << entry;
      const std::string cu =
          kernel_source("cuda", static_cast<DType>(d), variant);
      EXPECT_NE(cu.find("extern \"C\" __global__ void " + entry + "("),
                std::string::npos)
          << cu;
      // Inline PTX, which no flag turns into mul.rn.ftz (nvrtc_test checks
      // the compiled PTX).
      EXPECT_NE(cu.find(d == LRELU_DTYPE_FLOAT64 ? "mul.rn.f64" : "mul.rn.f32"),
                std::string::npos);
      EXPECT_EQ(cu.find("__fmul_rn("), std::string::npos);
      EXPECT_EQ(cu.find("\n#include"), std::string::npos);  // NVRTC as is
    }
  }
}

// Variant "prelu": PReLU's forward kernel for each target.
TEST(KernelSourceTest, PreluForEveryTarget) {
  for (lrelu_dtype_t d : {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16}) {
    const std::string text =
        kernel_source("wgsl", static_cast<DType>(d), "prelu", 64);
    EXPECT_EQ(text.find("{{"), std::string::npos) << text;
    EXPECT_NE(text.find("@workgroup_size(64)"), std::string::npos);
    EXPECT_NE(text.find("fn forward("), std::string::npos);
    EXPECT_EQ(text.find("fn backward("), std::string::npos);
    EXPECT_NE(text.find("fn prelu_word("), std::string::npos);
    EXPECT_NE(text.find("var<storage, read> alpha"), std::string::npos);
  }
  for (lrelu_dtype_t d : AllDTypes()) {
    const std::string entry = std::string("lrelu_prelu_") + Tag(d);
    const std::string cl =
        kernel_source("opencl", static_cast<DType>(d), "prelu");
    EXPECT_NE(cl.find("kernel void " + entry + "("), std::string::npos)
        << entry;
    EXPECT_NE(cl.find("inline uint lrelu_f32("),
              std::string::npos);  // lrelu.cl
    const std::string cu =
        kernel_source("cuda", static_cast<DType>(d), "prelu");
    EXPECT_NE(cu.find("extern \"C\" __global__ void " + entry + "("),
              std::string::npos)
        << cu;
    EXPECT_NE(cu.find("__umul64hi"), std::string::npos);  // no division
    EXPECT_EQ(cu.find("\n#include"), std::string::npos);
  }
  size_t length = 0;
  EXPECT_EQ(lrelu_kernel_source("wgsl", LRELU_DTYPE_BFLOAT16, "prelu", 0,
                                nullptr, 0, &length),
            LRELU_STATUS_UNSUPPORTED_DTYPE);
}

// Variant "prelu-vec4": the package's four-element WGSL template, with its
// own rule file (not template prelu's) and 16/8-byte words; WGSL only.
TEST(KernelSourceTest, PreluVec4IsWgslOnly) {
  for (lrelu_dtype_t d : {LRELU_DTYPE_FLOAT32, LRELU_DTYPE_FLOAT16}) {
    const std::string text =
        kernel_source("wgsl", static_cast<DType>(d), "prelu-vec4", 64);
    const std::string word =
        d == LRELU_DTYPE_FLOAT32 ? "vec4<u32>" : "vec2<u32>";
    EXPECT_EQ(text.find("{{"), std::string::npos) << text;
    EXPECT_NE(text.find("template prelu-vec4"), std::string::npos);
    EXPECT_NE(text.find("@workgroup_size(64)"), std::string::npos);
    EXPECT_NE(text.find("var<storage, read> x: array<" + word + ">"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("fn prelu_word4(w: " + word), std::string::npos);
    EXPECT_EQ(text.find("fn prelu_word("), std::string::npos);
    EXPECT_NE(text.find("var<storage, read> alpha"), std::string::npos);
  }
  size_t length = 0;
  for (const char* target : {"opencl", "cuda"}) {
    EXPECT_EQ(lrelu_kernel_source(target, LRELU_DTYPE_FLOAT32, "prelu-vec4", 0,
                                  nullptr, 0, &length),
              LRELU_STATUS_INVALID_ARGUMENT)
        << target;
    EXPECT_NE(std::string(lrelu_last_error()).find("takes variant prelu"),
              std::string::npos)
        << lrelu_last_error();
  }
  EXPECT_EQ(lrelu_kernel_source("wgsl", LRELU_DTYPE_BFLOAT16, "prelu-vec4", 0,
                                nullptr, 0, &length),
            LRELU_STATUS_UNSUPPORTED_DTYPE);
}

TEST(KernelSourceTest, Errors) {
  size_t length = 0;
  EXPECT_EQ(lrelu_kernel_source("wgsl", LRELU_DTYPE_FLOAT64, "scalar", 0,
                                nullptr, 0, &length),
            LRELU_STATUS_UNSUPPORTED_DTYPE);
  EXPECT_EQ(lrelu_kernel_source("wgsl", LRELU_DTYPE_BFLOAT16, "vec4", 0,
                                nullptr, 0, &length),
            LRELU_STATUS_UNSUPPORTED_DTYPE);
  EXPECT_EQ(lrelu_kernel_source("metal", LRELU_DTYPE_FLOAT32, "vec4", 0,
                                nullptr, 0, &length),
            LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(lrelu_kernel_source("cuda", LRELU_DTYPE_FLOAT32, "vec8", 0, nullptr,
                                0, &length),
            LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(lrelu_kernel_source("wgsl", LRELU_DTYPE_FLOAT32, "vec4", 1024,
                                nullptr, 0, &length),
            LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(lrelu_kernel_source("cuda", LRELU_DTYPE_FLOAT32, "vec4", 0, nullptr,
                                0, nullptr),
            LRELU_STATUS_INVALID_ARGUMENT);
  ASSERT_EQ(lrelu_kernel_source("opencl", LRELU_DTYPE_FLOAT32, "vec4", 0,
                                nullptr, 0, &length),
            LRELU_STATUS_OK);
  std::string small(length, '\0');  // no room for the NUL
  EXPECT_EQ(lrelu_kernel_source("opencl", LRELU_DTYPE_FLOAT32, "vec4", 0,
                                small.data(), small.size(), &length),
            LRELU_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(length, small.size());
}

}  // namespace
}  // namespace lrelu
