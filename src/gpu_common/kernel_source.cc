#include "gpu_common/kernel_source.h"

#include <cstring>
#include <string>

#include "core/error.h"

namespace lrelu::gpu {

// Embedded at build time (embed_text.cmake) from the real source files.
extern const char kOpenClSource[];  // src/opencl/lrelu.cl
extern const char kCudaKernels[];   // src/cuda/kernels.cuh
// The WGSL files are those of the contract package (contract/v1/), which
// metadata.json's "webgpu" section describes; the JavaScript module
// (js/) renders the same files the same way.
extern const char kWgslScalar[];       // unary-scalar.wgsl.jinja
extern const char kWgslVec4[];         // unary-vec4.wgsl.jinja
extern const char kWgslMultiplyF32[];  // multiply-f32.wgsl
extern const char kWgslHelpersF32[];   // helpers-f32.wgsl
extern const char kWgslHelpersF16[];   // helpers-f16.wgsl
// PReLU forward (variants "prelu" and, WGSL only, "prelu-vec4"): next to
// the LeakyReLU sources; its WGSL files are the ai.onnx.PRelu package's
// (contract/prelu/v1/), rendered with the LeakyRelu package's helpers.
extern const char kOpenClPreluSource[];  // src/opencl/prelu.cl
extern const char kCudaPreluKernels[];   // src/cuda/prelu_kernels.cuh
extern const char kWgslPrelu[];          // prelu.wgsl.jinja
extern const char kWgslPreluF32[];       // prelu-f32.wgsl
extern const char kWgslPreluF16[];       // prelu-f16.wgsl
extern const char kWgslPreluVec4[];      // prelu-vec4.wgsl.jinja
extern const char kWgslPreluVec4F32[];   // prelu-vec4-f32.wgsl
extern const char kWgslPreluVec4F16[];   // prelu-vec4-f16.wgsl

namespace {

constexpr uint32_t kDefaultWorkgroup = 256;
// WebGPU's default limit (maxComputeInvocationsPerWorkgroup).
constexpr uint32_t kMaxWorkgroup = 256;

void ReplaceAll(std::string* text, const std::string& key,
                const std::string& value) {
  for (size_t at = text->find(key); at != std::string::npos;
       at = text->find(key, at + value.size())) {
    text->replace(at, key.size(), value);
  }
}

lrelu_status_t RenderWgsl(lrelu_dtype_t dtype, bool vec4, bool prelu,
                          uint32_t workgroup, std::string* source) {
  if (dtype != LRELU_DTYPE_FLOAT32 && dtype != LRELU_DTYPE_FLOAT16) {
    return Fail(LRELU_STATUS_UNSUPPORTED_DTYPE,
                "target wgsl renders float32 and float16 only, not %s",
                lrelu_dtype_name(dtype));
  }
  if (workgroup == 0) workgroup = kDefaultWorkgroup;
  if (workgroup > kMaxWorkgroup) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "workgroup_size %u is above WebGPU's default limit of %u",
                workgroup, kMaxWorkgroup);
  }
  const bool f16 = dtype == LRELU_DTYPE_FLOAT16;
  // Storage words of raw bits: f32 one element per u32, f16 two.
  const char* word = vec4 ? (f16 ? "vec2<u32>" : "vec4<u32>") : "u32";
  const char* lanes = vec4 ? "4" : (f16 ? "2" : "1");
  if (prelu) {
    *source = vec4 ? kWgslPreluVec4 : kWgslPrelu;
  } else {
    *source = vec4 ? kWgslVec4 : kWgslScalar;
  }
  // HELPERS: the dtype's helper files, concatenated in metadata order
  // (PReLU: then its template's own per-dtype rule).
  std::string helpers = std::string(kWgslMultiplyF32) + "\n" +
                        (f16 ? kWgslHelpersF16 : kWgslHelpersF32);
  if (prelu && vec4) {
    helpers +=
        std::string("\n") + (f16 ? kWgslPreluVec4F16 : kWgslPreluVec4F32);
  } else if (prelu) {
    helpers += std::string("\n") + (f16 ? kWgslPreluF16 : kWgslPreluF32);
  }
  ReplaceAll(source, "{{HELPERS}}", helpers);
  ReplaceAll(source, "{{WORD}}", word);
  ReplaceAll(source, "{{LANES}}", lanes);
  ReplaceAll(source, "{{DTYPE}}", lrelu_dtype_name(dtype));
  ReplaceAll(source, "{{WORKGROUP_SIZE}}", std::to_string(workgroup));
  return LRELU_STATUS_OK;
}

// The whole lrelu.cl (it builds every kernel; float64 only where the device
// has cl_khr_fp64) under a line naming the entry point asked for.
std::string RenderOpenCl(const char* tag, const char* variant) {
  std::string source = "// Entry point: lrelu_";
  source += std::string(tag) + "_" + variant +
            "(v, v_offset, s, s_offset, out, out_offset, n, alpha)\n";
  return source + kOpenClSource;
}

// PReLU: lrelu.cl then prelu.cl (one program, as the backend builds it).
std::string RenderOpenClPrelu(const char* tag) {
  return std::string("// Entry point: lrelu_prelu_") + tag +
         "(x, y, n, first, alpha, alpha_base, rank, dims)\n" + kOpenClSource +
         kOpenClPreluSource;
}

// PReLU: kernels.cuh, prelu_kernels.cuh and one extern "C" entry point.
std::string RenderCudaPrelu(lrelu_dtype_t dtype, const char* tag) {
  const char* bits = dtype == LRELU_DTYPE_FLOAT32   ? "unsigned int"
                     : dtype == LRELU_DTYPE_FLOAT64 ? "unsigned long long"
                                                    : "unsigned short";
  const char* type = dtype == LRELU_DTYPE_FLOAT32   ? "F32"
                     : dtype == LRELU_DTYPE_FLOAT16 ? "F16"
                     : dtype == LRELU_DTYPE_FLOAT64 ? "F64"
                                                    : "BF16";
  std::string source = std::string(kCudaKernels) + "\n" + kCudaPreluKernels;
  source +=
      "\n// Entry point. Exact under any compiler flags. x and y dense runs\n"
      "// of n elements, alpha element-aligned; dims as prelu_kernels.cuh.\n";
  source += std::string("extern \"C\" __global__ void lrelu_prelu_") + tag +
            "(const " + bits + "* x, " + bits + "* y, long long n, const " +
            bits + "* alpha, lrelu_cuda::PreluDims dims) {\n" +
            "  lrelu_cuda::Prelu<lrelu_cuda::" + type +
            ">(x, y, n, alpha, dims);\n}\n";
  return source;
}

// kernels.cuh plus one extern "C" entry point, ready for NVRTC or nvcc
// under any flags (the arithmetic is inline PTX; no include needed).
std::string RenderCuda(lrelu_dtype_t dtype, const char* tag, bool vec4) {
  const char* bits = "unsigned int";
  const char* type = "F32";
  const char* alpha = "float";
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32:
      break;
    case LRELU_DTYPE_FLOAT16:
      bits = "unsigned short";
      type = "F16";
      break;
    case LRELU_DTYPE_BFLOAT16:
      bits = "unsigned short";
      type = "BF16";
      break;
    case LRELU_DTYPE_FLOAT64:
      bits = "unsigned long long";
      type = "F64";
      alpha = "double";
      break;
    default:
      break;
  }
  std::string source = kCudaKernels;
  source +=
      "\n// Entry point. Exact under any compiler flags (--use_fast_math,\n"
      "// -ftz=true included). Every pointer element-aligned; for vec4, v, s\n"
      "// and out must share their address modulo 16 and head is the\n"
      "// number of elements before out's first 16-byte boundary.\n";
  source += std::string("extern \"C\" __global__ void lrelu_") + tag + "_" +
            (vec4 ? "vec4" : "scalar") + "(const " + bits + "* v, const " +
            bits + "* s, " + bits + "* out, long long n, long long head, " +
            alpha + " alpha) {\n";
  source +=
      vec4 ? std::string("  lrelu_cuda::Access16<lrelu_cuda::") + type +
                 ">(v, s, out, n, head, alpha);\n"
           : std::string("  (void)head;\n  lrelu_cuda::Scalar<lrelu_cuda::") +
                 type + ">(v, s, out, n, alpha);\n";
  return source + "}\n";
}

}  // namespace

lrelu_status_t RenderKernelSource(const char* language, lrelu_dtype_t dtype,
                                  const char* variant, uint32_t workgroup_size,
                                  std::string* source) {
  const char* tag = DTypeTag(dtype);
  if (tag == nullptr) {
    return Fail(LRELU_STATUS_UNSUPPORTED_DTYPE,
                "unsupported dtype %d (supported: float32, float16, bfloat16, "
                "float64)",
                static_cast<int>(dtype));
  }
  const bool prelu_vec4 =
      variant != nullptr && std::strcmp(variant, "prelu-vec4") == 0;
  if (variant == nullptr ||
      (std::strcmp(variant, "scalar") != 0 &&
       std::strcmp(variant, "vec4") != 0 &&
       std::strcmp(variant, "prelu") != 0 && !prelu_vec4)) {
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "variant '%s': use scalar, vec4, prelu or prelu-vec4",
                variant == nullptr ? "(null)" : variant);
  }
  const bool vec4 = std::strcmp(variant, "vec4") == 0 || prelu_vec4;
  const bool prelu = std::strcmp(variant, "prelu") == 0 || prelu_vec4;
  if (language != nullptr && std::strcmp(language, "wgsl") == 0) {
    return RenderWgsl(dtype, vec4, prelu, workgroup_size, source);
  }
  if (prelu_vec4) {
    // OpenCL's and CUDA's PReLU kernels have one form (variant prelu).
    return Fail(LRELU_STATUS_INVALID_ARGUMENT,
                "variant 'prelu-vec4' is a WGSL template; target '%s' takes "
                "variant prelu",
                language == nullptr ? "(null)" : language);
  }
  if (language != nullptr && std::strcmp(language, "opencl") == 0) {
    *source = prelu ? RenderOpenClPrelu(tag) : RenderOpenCl(tag, variant);
    return LRELU_STATUS_OK;
  }
  if (language != nullptr && std::strcmp(language, "cuda") == 0) {
    *source =
        prelu ? RenderCudaPrelu(dtype, tag) : RenderCuda(dtype, tag, vec4);
    return LRELU_STATUS_OK;
  }
  return Fail(LRELU_STATUS_INVALID_ARGUMENT,
              "target '%s': use wgsl, opencl or cuda",
              language == nullptr ? "(null)" : language);
}

const char* DTypeTag(lrelu_dtype_t dtype) {
  switch (dtype) {
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
  return nullptr;
}

}  // namespace lrelu::gpu

// The C entry point (lrelu.h).
extern "C" {

lrelu_status_t lrelu_kernel_source(const char* target, lrelu_dtype_t dtype,
                                   const char* variant, uint32_t workgroup_size,
                                   char* buffer, size_t buffer_size,
                                   size_t* length) {
  if (length == nullptr) {
    return lrelu::Fail(LRELU_STATUS_INVALID_ARGUMENT,
                       "length must not be NULL");
  }
  *length = 0;
  std::string source;
  const lrelu_status_t status = lrelu::gpu::RenderKernelSource(
      target, dtype, variant, workgroup_size, &source);
  if (status != LRELU_STATUS_OK) return status;
  *length = source.size();
  if (buffer == nullptr) return LRELU_STATUS_OK;
  if (buffer_size <= source.size()) {
    return lrelu::Fail(LRELU_STATUS_INVALID_ARGUMENT,
                       "buffer_size is %zu but the source needs %zu bytes "
                       "with its terminating NUL",
                       buffer_size, source.size() + 1);
  }
  std::memcpy(buffer, source.c_str(), source.size() + 1);
  return LRELU_STATUS_OK;
}

}  // extern "C"
