// One thing the harness times: a copy baseline, lrelu, or a peer library's
// LeakyReLU, for one dtype, thread count and placement (in or out of place).
#ifndef LRELU_BENCH_CONTENDER_H_
#define LRELU_BENCH_CONTENDER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "lrelu/lrelu.h"

namespace lrelu_bench {

// The data of one (dtype, n) block. Every variant of a block works on the same
// two buffers, so that the copy baseline and the variant see the same caches.
struct Problem {
  lrelu_dtype_t dtype;
  size_t n;
  const void* x;
  void* y;  // Out-of-place variants write y; in-place variants update y.
};

class Variant {
 public:
  Variant(std::string impl, std::string name, int threads, bool inplace,
          bool is_copy = false)
      : impl_(std::move(impl)),
        name_(std::move(name)),
        threads_(threads),
        inplace_(inplace),
        is_copy_(is_copy) {}
  virtual ~Variant() = default;

  const std::string& impl() const { return impl_; }
  const std::string& name() const { return name_; }
  int threads() const { return threads_; }
  bool inplace() const { return inplace_; }
  bool is_copy() const { return is_copy_; }

  // Whether this variant exists for the dtype at all (a table cell or "-").
  virtual bool Supports(lrelu_dtype_t dtype) const = 0;
  // Untimed: creates primitives, operators, plans for this problem. Returns
  // false and says why when the library refuses the problem.
  virtual bool Setup(const Problem& problem, std::string* why) = 0;
  // One call. `call` counts calls since Setup: in-place variants alternate
  // alpha between 0.01 and 100 with it, so that repeated calls do not drive
  // the data towards zero and into subnormals.
  virtual void Run(size_t call) = 0;
  // Untimed: frees what Setup made.
  virtual void Teardown() {}
  // A line for the report ("jit:avx2", "AVX2"), after Setup; may be empty.
  virtual std::string Info() const { return {}; }

 private:
  std::string impl_, name_;
  int threads_;
  bool inplace_;
  bool is_copy_;
};

using VariantList = std::vector<std::unique_ptr<Variant>>;

// alpha for call number `call` of an in-place variant (see Variant::Run).
inline double InPlaceAlpha(size_t call) { return call % 2 ? 100.0 : 0.01; }
constexpr double kAlpha = 0.01;

// Each peer adds its variants; those built without the library add nothing.
void AddCopyVariants(VariantList* out);
void AddLreluVariants(VariantList* out);
void AddPlainVariants(VariantList* out);
void AddOnednnVariants(VariantList* out);
void AddXnnpackVariants(VariantList* out);
void AddEigenVariants(VariantList* out);

}  // namespace lrelu_bench

#endif  // LRELU_BENCH_CONTENDER_H_
