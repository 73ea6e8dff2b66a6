// What the C ABI must do with a call, worked out independently of
// src/core/problem.cc from contract v1 and lrelu.h: which statuses are
// required (the call must fail with one of them), which are permitted (the
// library may refuse conservatively, e.g. interleaved outputs that never
// collide), and, for accepted calls, where every element lives.
#ifndef LRELU_TESTS_FUZZ_API_MODEL_H_
#define LRELU_TESTS_FUZZ_API_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include "api_case.h"
#include "lrelu/lrelu.h"

namespace lrelu::fuzz {

// Element offsets (in elements, relative to data) of a tensor, in C order
// of its logical index.
struct Elements {
  bool known = false;  // enumerated (valid and not too many elements)
  std::vector<int64_t> offsets;
};

struct Verdict {
  std::set<int> required;   // must fail with one of required + permitted
  std::set<int> permitted;  // may fail with one of these instead
  // false when an accepted call would reach memory outside the arena: the
  // fuzzer then does not make the call (that would be the caller's bug).
  bool callable = true;
  // Not callable, but the model requires a refusal: the fuzzer makes only
  // the planning call (which reads no tensor data) and checks it refuses.
  bool plan_only = false;
  bool dense = false;  // accepted: every operand one dense run, same order
  int64_t n = 0;       // accepted: element count
  size_t elem = 0;     // accepted: bytes per element
  std::vector<Elements> elements;  // accepted: per tensor, as in the call
};

// tensors: as passed to the call (nullptr for a NULL argument), output
// last. arena: [arena, arena + arena_bytes) is the memory that exists.
Verdict Predict(const ApiCase& c,
                const std::vector<const lrelu_tensor_t*>& tensors,
                const unsigned char* arena, size_t arena_bytes);

// The best runnable target's name, for checking executors.
const char* BestTarget();

}  // namespace lrelu::fuzz

#endif  // LRELU_TESTS_FUZZ_API_MODEL_H_
