// One call of the C ABI, decoded from a fuzz input: the operation, the
// tensors (pointing into one arena, so that aliasing and overlap happen),
// alpha and the options. Decoding favours small valid calls but reaches
// every kind of bad argument.
#ifndef LRELU_TESTS_FUZZ_API_CASE_H_
#define LRELU_TESTS_FUZZ_API_CASE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "byte_reader.h"
#include "lrelu/lrelu.h"

namespace lrelu::fuzz {

struct TensorSpec {
  bool null_tensor = false;  // pass NULL for the lrelu_tensor_t*
  int dtype = LRELU_DTYPE_FLOAT32;
  int32_t rank = 1;
  bool null_shape = false;
  std::vector<int64_t> shape;
  bool null_strides = true;  // C-contiguous
  std::vector<int64_t> strides;
  bool null_data = false;
  size_t offset = 0;  // bytes from the start of the arena
};

enum class PoolKind { kNone, kSerial, kReverse, kNoFunction, kNoConcurrency };

struct ApiCase {
  bool backward = false;
  int source = LRELU_GRAD_FROM_X;
  double alpha = 0.01;
  // forward: {x, y}; backward: {dy, s, dx}. The output is last.
  std::vector<TensorSpec> tensors;
  size_t arena_bytes = 0;
  uint64_t fill_seed = 0;

  bool null_options = true;
  uint32_t struct_size = sizeof(lrelu_options_t);
  size_t threads = 0;
  PoolKind pool = PoolKind::kNone;
  size_t pool_concurrency = 1;
  bool has_variant = false;
  std::string variant;
  bool has_cpu_target = false;
  std::string cpu_target;
  int backend = LRELU_BACKEND_CPU;
  int32_t device = 0;

  bool two_stage = false;
  bool null_workspace_size = false;  // two-stage: NULL size/executor pointer
  PoolKind execute_pool = PoolKind::kNone;
  size_t workspace_given = 0;
  // Two-stage: lrelu_executor_bind to other places in the arena (the same
  // layouts; the output mostly in place again where it was planned so)
  // before executing, a pointer NULL, or a wrong count.
  bool bind = false;
  std::vector<size_t> bind_offset;  // per tensor, bytes into the arena
  std::vector<bool> bind_null;
  size_t bind_count_error = 0;  // added to the right count
};

ApiCase DecodeApiCase(ByteReader& in);

// What is wrong with a refusal, "" if nothing: what a refused call of the
// C ABI owes its caller (lrelu.h) is a status in (OK, INTERNAL), a
// one-line message in lrelu_last_error() and no byte of the arena changed.
// `what` names the call in the description.
std::string RefusalFault(const char* what, int status,
                         const std::vector<unsigned char>& arena,
                         const std::vector<unsigned char>& before);

// OpenCL's one-time start (PoCL's threads, the program's build) by one
// small call of each entry point, for LLVMFuzzerInitialize: libFuzzer's
// per-input leak check then does not run LeakSanitizer while PoCL is
// starting (its tracer once crashed so: "Tracer caught signal 11"), and
// the crash handlers PoCL's LLVM installs are taken out again.
void StartOpenCl();

// The pieces DecodeApiCase is made of, for the other C ABI fuzzers: a
// dtype (mostly valid), an extent and a stride (mostly small, with the
// limits and overflows among them), one tensor of an arena of arena_bytes
// (`big`: one long run), a tensor related to `first` (the same view,
// elsewhere, shifted by a few bytes, or one thing changed), a pool kind.
int DecodeDType(ByteReader& in);
int64_t DecodeDim(ByteReader& in);
int64_t DecodeStride(ByteReader& in);
TensorSpec DecodeTensor(ByteReader& in, bool big, size_t arena_bytes);
TensorSpec DecodeRelated(ByteReader& in, const TensorSpec& first, bool big,
                         size_t arena_bytes);
PoolKind DecodePool(ByteReader& in);

// An arena's bytes from seed: random bits with the 16-bit zeros,
// infinities, NaNs and subnormals sprinkled in.
void FillArena(std::vector<unsigned char>& arena, uint64_t seed);

}  // namespace lrelu::fuzz

#endif  // LRELU_TESTS_FUZZ_API_CASE_H_
