#include "api_case.h"

#include <signal.h>

#include <cstddef>
#include <cstring>
#include <limits>

namespace lrelu::fuzz {
namespace {

// Negative values in the enum fields (dtype, backend) are undefined
// behaviour inside the library today (docs/errors.md, "Found by fuzzing"):
// lrelu.h's enums have no negative enumerator. Off until lrelu.h is fixed,
// so that the fuzzer explores past them; FoundByFuzzing.NegativeEnumValues
// keeps the finding.
#ifndef LRELU_FUZZ_NEGATIVE_ENUMS
#define LRELU_FUZZ_NEGATIVE_ENUMS 0
#endif
constexpr int kNegativeEnum = LRELU_FUZZ_NEGATIVE_ENUMS ? -1 : 6;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

}  // namespace

int DecodeDType(ByteReader& in) {
  const uint8_t c = in.U8();
  if (c < 240) return c % 4 + 1;
  const int invalid[] = {0, 5, kNegativeEnum, 100, 0x7fffffff};
  return invalid[c % 5];
}

int64_t DecodeDim(ByteReader& in) {
  const uint8_t d = in.U8();
  if (d < 200) return 1 + d % 5;
  if (d < 220) return 0;
  if (d < 240) return 6 + d % 11;
  const int64_t special[] = {-1,
                             kMin,
                             int64_t{1} << 31,
                             int64_t{1} << 32,
                             kMax,
                             int64_t{1} << 62,
                             int64_t{3} << 61,
                             -7,
                             int64_t{1} << 40,
                             1000,
                             4096,
                             int64_t{1} << 21,
                             65537,
                             2,
                             3,
                             int64_t{1} << 20};
  return special[d - 240];
}

int64_t DecodeStride(ByteReader& in) {
  const uint8_t s = in.U8();
  if (s < 216) return static_cast<int64_t>(s % 17) - 8;
  const int64_t special[] = {kMin,
                             kMax,
                             int64_t{1} << 40,
                             -(int64_t{1} << 40),
                             int64_t{1} << 61,
                             kMax / 2,
                             0x7fffffff,
                             kMin / 2,
                             kMax / 8,
                             -(kMax / 8),
                             int64_t{1} << 59,
                             100,
                             -100,
                             1000,
                             -1000,
                             int64_t{1} << 20,
                             17,
                             -17,
                             kMax / 4,
                             kMin / 4,
                             64,
                             -64,
                             kMax / 16 + 1,
                             33,
                             -33,
                             9,
                             -9,
                             12,
                             24,
                             48,
                             -48,
                             96,
                             -96,
                             128,
                             -128,
                             256,
                             -256,
                             512,
                             -512,
                             int64_t{1} << 16};
  return special[(s - 216) % (sizeof(special) / sizeof(special[0]))];
}

TensorSpec DecodeTensor(ByteReader& in, bool big, size_t arena_bytes) {
  TensorSpec t;
  t.null_tensor = in.Chance(64);
  t.dtype = DecodeDType(in);
  if (big) {
    // One long run: large enough for several tasks on the thread pools.
    t.rank = 1;
    t.shape = {16384 + static_cast<int64_t>(in.Bytes(2) % 32768)};
    t.null_strides = in.Chance(2);
    if (!t.null_strides) {
      const int64_t strides[] = {1, -1, 2, -2, 1, 1, 0, 3};
      t.strides = {strides[in.Below(8)]};
    }
  } else {
    const uint8_t r = in.U8();
    if (r < 224) {
      t.rank = r % 5;
    } else if (r < 240) {
      t.rank = -1 - (r % 3);
    } else {
      t.rank = 60 + r % 16;  // many size-1 dimensions
    }
    t.null_shape = t.rank > 0 && in.Chance(64);
    for (int32_t i = 0; i < t.rank; ++i) {
      // In a high rank, most dimensions are 1; a few are not.
      t.shape.push_back(t.rank > 8 && !in.Chance(16) ? 1 : DecodeDim(in));
    }
    t.null_strides = in.Chance(2);
    if (!t.null_strides) {
      for (int32_t i = 0; i < t.rank; ++i)
        t.strides.push_back(DecodeStride(in));
    }
  }
  t.null_data = in.Chance(64);
  t.offset = static_cast<size_t>(in.Bytes(3) % arena_bytes);
  return t;
}

// Another tensor of the call, usually related to the first (same view,
// same shape elsewhere, shifted by a few bytes) so that in-place calls,
// exact aliasing and partial overlap come up often.
TensorSpec DecodeRelated(ByteReader& in, const TensorSpec& first, bool big,
                         size_t arena_bytes) {
  const uint32_t mode = in.Below(8);
  TensorSpec t = first;
  switch (mode) {
    case 0:
    case 1:
      return t;  // the same view: in place
    case 2:
    case 3:
      t.offset = static_cast<size_t>(in.Bytes(3) % arena_bytes);
      return t;
    case 4:
      t.null_strides = true;
      t.strides.clear();
      t.offset = static_cast<size_t>(in.Bytes(3) % arena_bytes);
      return t;
    case 5: {
      const int64_t delta = static_cast<int64_t>(in.U8() % 33) - 16;
      const int64_t offset = static_cast<int64_t>(t.offset) + delta;
      t.offset = offset < 0 ? 0 : static_cast<size_t>(offset);
      return t;
    }
    case 6:
      return DecodeTensor(in, big, arena_bytes);
    default:
      break;
  }
  // The same view with one thing changed.
  switch (in.Below(6)) {
    case 0:
      t.dtype = DecodeDType(in);
      break;
    case 1:
      if (!t.shape.empty()) t.shape[in.U8() % t.shape.size()] = DecodeDim(in);
      break;
    case 2:
      t.rank = t.rank > 0 ? t.rank - 1 : t.rank + 1;
      t.shape.resize(t.rank > 0 ? t.rank : 0, 1);
      t.strides.resize(t.shape.size(), 1);
      break;
    case 3:
      if (!t.strides.empty()) {
        t.strides[in.U8() % t.strides.size()] = DecodeStride(in);
      } else {
        t.null_strides = false;
        for (int32_t i = 0; i < t.rank; ++i)
          t.strides.push_back(DecodeStride(in));
      }
      break;
    case 4:
      t.null_data = true;
      break;
    default:
      t.null_tensor = true;
      break;
  }
  return t;
}

PoolKind DecodePool(ByteReader& in) {
  switch (in.Below(8)) {
    case 4:
      return PoolKind::kSerial;
    case 5:
      return PoolKind::kReverse;
    case 6:
      return PoolKind::kNoFunction;
    case 7:
      return PoolKind::kNoConcurrency;
    default:
      return PoolKind::kNone;
  }
}

std::string RefusalFault(const char* what, int status,
                         const std::vector<unsigned char>& arena,
                         const std::vector<unsigned char>& before) {
  const std::string message = lrelu_last_error();
  if (status <= LRELU_STATUS_OK || status >= LRELU_STATUS_INTERNAL) {
    return std::string(what) + " refused with status " +
           std::to_string(status) + ": " + message;
  }
  if (message.empty() || message.find('\n') != std::string::npos) {
    return std::string(what) + "'s message is empty or spans lines: '" +
           message + "'";
  }
  if (arena != before) {
    return std::string("a refused ") + what + " wrote to memory: " + message;
  }
  return "";
}

void StartOpenCl() {
  // PoCL's LLVM installs crash handlers as it loads, which restore the
  // previous handler and raise again: libFuzzer, which installs its own
  // after this (and not over another's), would never see an abort, and a
  // failing input would leave no crash file. The process keeps the
  // handlers it had.
  const int signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL,
                         SIGFPE,  SIGINT,  SIGTERM};
  constexpr int kSignals = sizeof(signals) / sizeof(signals[0]);
  struct sigaction saved[kSignals];
  for (int i = 0; i < kSignals; ++i) sigaction(signals[i], nullptr, &saved[i]);
  if (lrelu_backend_available(LRELU_BACKEND_OPENCL) != 0) {
    float x[4] = {-1.0f, 2.0f, -3.0f, 4.0f}, alpha[1] = {0.5f}, y[4];
    const int64_t shape[1] = {4}, alpha_shape[1] = {1};
    const lrelu_tensor_t tx = {x, LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
    const lrelu_tensor_t ty = {y, LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
    const lrelu_tensor_t ta = {alpha, LRELU_DTYPE_FLOAT32, 1, alpha_shape,
                               nullptr};
    lrelu_options_t options;
    lrelu_options_init(&options);
    options.backend = LRELU_BACKEND_OPENCL;
    // Failures here show again, and are checked, in the inputs that reach
    // them.
    (void)lrelu_leaky_relu(&tx, 0.01, &ty, &options);
    (void)lrelu_prelu(&tx, &ta, &ty, &options);
  }
  for (int i = 0; i < kSignals; ++i) sigaction(signals[i], &saved[i], nullptr);
}

void FillArena(std::vector<unsigned char>& arena, uint64_t seed) {
  // Random bits with 16-bit special values sprinkled in (the float16 and
  // bfloat16 zeros, infinities, NaNs and subnormals).
  static const uint16_t kSpecials[] = {
      0x0000, 0x8000, 0x7c00, 0xfc00, 0x7f80, 0xff80, 0x8001, 0x0001,
      0x7e00, 0xffc1, 0x83ff, 0xfd00, 0x8080, 0x807f, 0xbc00, 0x3c00};
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i + 1 < arena.size(); i += 2) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    uint16_t bits = static_cast<uint16_t>(state >> 16);
    if ((state & 15) == 0) bits = kSpecials[(state >> 4) & 15];
    std::memcpy(&arena[i], &bits, 2);
  }
}

namespace {

double DecodeAlpha(ByteReader& in) {
  const double alphas[] = {0.01, 0.2,   0.0,    -0.0,   -0.5, 1.5, 1e-30,
                           3e38, 1e-45, -1e300, 5e-324, -2.0, 0.01};
  const uint8_t a = in.U8();
  if (a < 13 * 16) return alphas[a % 13];
  if (a < 240) {
    const double special[] = {std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::quiet_NaN(),
                              -std::numeric_limits<double>::quiet_NaN()};
    return special[a % 4];
  }
  return in.Double();
}

}  // namespace

ApiCase DecodeApiCase(ByteReader& in) {
  ApiCase c;
  const uint8_t flags = in.U8();
  c.backward = (flags & 1) != 0;
  c.two_stage = (flags & 2) != 0;
  c.null_options = (flags & 4) == 0;
  const bool big = (flags & 0x78) == 0x78;  // one input in 16
  if (c.backward) {
    const uint8_t s = in.U8();
    c.source = s >= 250 ? 2 + s % 3 : s % 2;  // 2, 3, 4: not a source
  }
  c.alpha = DecodeAlpha(in);
  c.arena_bytes = big ? (size_t{640} << 10) : 64 + in.Bytes(2) % 4096;
  c.fill_seed = in.Bytes(4);
  c.tensors.push_back(DecodeTensor(in, big, c.arena_bytes));
  const int others = c.backward ? 2 : 1;
  for (int i = 0; i < others; ++i) {
    c.tensors.push_back(DecodeRelated(in, c.tensors[0], big, c.arena_bytes));
  }
  if (!c.null_options) {
    // Mostly the full size; else an older caller's size or any size up to
    // the struct's (one ending inside a field must be refused).
    const uint32_t full = static_cast<uint32_t>(sizeof(lrelu_options_t));
    // Larger: a newer header's (zero tail), the documented maximum, past
    // it, and garbage (must be refused without reading that far).
    // clang-format off
    const uint32_t sizes[] = {16, 24, 32, 40, 44, 48, 56, 60, 0, 8, 15,
                              full + 8, LRELU_OPTIONS_MAX_STRUCT_SIZE,
                              LRELU_OPTIONS_MAX_STRUCT_SIZE + 1, 0xffffffffu};
    // clang-format on
    const uint32_t pick = in.Below(8);
    c.struct_size = pick == 0   ? sizes[in.Below(15)]
                    : pick == 1 ? in.U8() % (full + 1)
                                : full;
    const uint8_t t = in.U8();
    c.threads = t < 240 ? t % 5 : (t % 2 ? SIZE_MAX : 1000);
    c.pool = DecodePool(in);
    c.pool_concurrency = 1 + in.Below(4);
    const char* variants[] = {"",           "auto",    "reference",
                              "contiguous", "strided", "bogus"};
    const uint32_t v = in.Below(10);
    c.has_variant = v >= 4;
    if (c.has_variant) c.variant = variants[v - 4];
    const uint32_t target = in.Below(8);
    c.has_cpu_target = target >= 4;
    if (target == 5) c.cpu_target = "NOPE";
    if (target >= 6) {
      c.cpu_target = lrelu_cpu_target_name(in.U8() % lrelu_cpu_target_count());
    }
    const uint8_t b = in.U8();
    // 1 (CUDA) and 2 (OpenCL) are left out: they need devices.
    const int backends[] = {3, 1000, kNegativeEnum, 0x7fffffff};
    c.backend = b < 240 ? LRELU_BACKEND_CPU : backends[b % 4];
    const uint8_t d = in.U8();
    const int32_t devices[] = {-1, 5, INT32_MIN};
    c.device = d < 240 ? 0 : devices[d % 3];
  }
  if (c.two_stage) {
    c.null_workspace_size = in.Chance(32);
    c.execute_pool = DecodePool(in);
    if (c.execute_pool == PoolKind::kNoConcurrency) {
      c.execute_pool = PoolKind::kNone;
    }
    c.workspace_given = in.Chance(4) ? in.Bytes(2) : 0;
  }
  // OpenCL (PoCL on the CPU here) comes last, so that the inputs from
  // before it decode as they did (past the end every byte is 0: no change):
  // device 0 or an index out of range, the device variants or none.
  const uint8_t device_backend = in.U8();
  if (!c.null_options && device_backend >= 128) {
    c.backend = LRELU_BACKEND_OPENCL;
    c.device = device_backend < 248    ? 0
               : device_backend == 255 ? -1
                                       : device_backend - 247;
    const uint32_t v = in.Below(8);
    if (v >= 4) {
      const char* names[] = {"", "auto", "scalar", "vec4"};
      c.has_variant = true;
      c.variant = names[v - 4];
    }
  }
  // Binding comes after the backend, for the same reason.
  c.bind = c.two_stage && in.U8() >= 128;
  if (c.bind) {
    for (const TensorSpec& t : c.tensors) {
      const uint32_t how = in.Below(8);
      c.bind_offset.push_back(
          how < 2   ? t.offset  // where it was
          : how < 6 ? static_cast<size_t>(in.Bytes(3) % c.arena_bytes)
                    : t.offset + how - 5);  // shifted by a byte or two
      c.bind_null.push_back(in.Chance(64));
    }
    const size_t out = c.tensors.size() - 1;
    for (size_t i = 0; i < out; ++i) {
      if (c.tensors[i].offset == c.tensors[out].offset && !in.Chance(4)) {
        c.bind_offset[out] = c.bind_offset[i];
      }
    }
    c.bind_count_error = in.Chance(32) ? 1 + in.Below(3) : 0;
  }
  return c;
}

}  // namespace lrelu::fuzz
