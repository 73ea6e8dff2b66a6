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

// The data of one (dtype, n) block. Every contender of a block works on the
// same two buffers, so that the copy baseline and the contender see the same
// caches.
struct Buffers {
  lrelu_dtype_t dtype;
  size_t n;
  const void* x;
  void* y;  // Out-of-place contenders write y; in-place contenders update y.
};

class Contender {
 public:
  Contender(std::string impl, std::string name, int threads, bool inplace,
            bool is_copy = false)
      : impl_(std::move(impl)),
        name_(std::move(name)),
        threads_(threads),
        inplace_(inplace),
        is_copy_(is_copy) {}
  virtual ~Contender() = default;

  const std::string& impl() const { return impl_; }
  const std::string& name() const { return name_; }
  int threads() const { return threads_; }
  bool inplace() const { return inplace_; }
  bool is_copy() const { return is_copy_; }

  // Whether this contender exists for the dtype at all (a table cell or "-").
  virtual bool Supports(lrelu_dtype_t dtype) const = 0;
  // Untimed: creates primitives, operators, plans for this problem. Returns
  // false and says why when the library refuses the problem.
  virtual bool Setup(const Buffers& problem, std::string* why) = 0;
  // One call. `call` counts calls since Setup: in-place contenders alternate
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

using ContenderList = std::vector<std::unique_ptr<Contender>>;

// alpha for call number `call` of an in-place contender (see Contender::Run).
inline double InPlaceAlpha(size_t call) { return call % 2 ? 100.0 : 0.01; }
constexpr double kAlpha = 0.01;

// Each peer adds its contenders; those built without the library add nothing.
void AddCopyVariants(ContenderList* out);
void AddLreluVariants(ContenderList* out);
void AddPlainVariants(ContenderList* out);
void AddOnednnVariants(ContenderList* out);
void AddXnnpackVariants(ContenderList* out);
void AddEigenVariants(ContenderList* out);

}  // namespace lrelu_bench

#endif  // LRELU_BENCH_CONTENDER_H_
