// The API fuzzer's model on its own. It used to decide density by
// listing the elements; for a tensor too large to list (a dense in-place
// float16 view of millions of elements claimed inside an arena of a few
// hundred bytes) it said "not dense", required UNSUPPORTED_VARIANT for
// variant "contiguous", and, a refusal being required, let the fuzzer make
// the call: the library rightly accepted it and read what the shape claims,
// far outside the arena (ASan SEGV in Contiguous<float16>).
#include "api_model.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "api_case.h"
#include "lrelu/lrelu.h"

namespace lrelu::fuzz {
namespace {

ApiCase ContiguousCase() {
  ApiCase c;
  c.null_options = false;
  c.has_variant = true;
  c.variant = "contiguous";
  return c;
}

TEST(ApiModel, DensityOfTensorsTooLargeToList) {
  std::vector<unsigned char> arena(256);
  const ApiCase c = ContiguousCase();
  const int64_t shape[2] = {4, int64_t{1} << 20};
  lrelu_tensor_t t = {arena.data(), LRELU_DTYPE_FLOAT16, 2, shape, nullptr};
  const Verdict v = Predict(c, {&t, &t}, arena.data(), arena.size());
  EXPECT_TRUE(v.dense);  // from shape and strides, without listing
  EXPECT_TRUE(v.required.empty());
  EXPECT_FALSE(v.callable);  // reaches far outside the arena
  EXPECT_FALSE(v.plan_only);

  // Reversed and Fortran-order views are dense runs too; a gap is not.
  const int64_t reversed[2] = {-(int64_t{1} << 20), -1};
  t.strides = reversed;
  EXPECT_TRUE(Predict(c, {&t, &t}, arena.data(), arena.size()).dense);
  const int64_t fortran[2] = {1, 4};
  t.strides = fortran;
  EXPECT_TRUE(Predict(c, {&t, &t}, arena.data(), arena.size()).dense);
  const int64_t gap[2] = {(int64_t{1} << 20) + 1, 1};
  t.strides = gap;
  const Verdict g = Predict(c, {&t, &t}, arena.data(), arena.size());
  EXPECT_FALSE(g.dense);
  EXPECT_TRUE(g.required.count(LRELU_STATUS_UNSUPPORTED_VARIANT));
  EXPECT_FALSE(g.callable);  // only planned: it must be refused
  EXPECT_TRUE(g.plan_only);
}

TEST(ApiModel, SmallCallsInsideTheArenaAreMade) {
  std::vector<unsigned char> arena(256);
  const ApiCase c = ContiguousCase();
  const int64_t shape[1] = {16};
  lrelu_tensor_t x = {arena.data(), LRELU_DTYPE_FLOAT32, 1, shape, nullptr};
  lrelu_tensor_t y = {arena.data() + 64, LRELU_DTYPE_FLOAT32, 1, shape,
                      nullptr};
  const Verdict v = Predict(c, {&x, &y}, arena.data(), arena.size());
  EXPECT_TRUE(v.dense);
  EXPECT_TRUE(v.callable);
  EXPECT_TRUE(v.required.empty());
  const int64_t step2[1] = {2};
  y.strides = step2;
  const Verdict s = Predict(c, {&x, &y}, arena.data(), arena.size());
  EXPECT_FALSE(s.dense);
  EXPECT_TRUE(s.callable);
  EXPECT_TRUE(s.required.count(LRELU_STATUS_UNSUPPORTED_VARIANT));
}

}  // namespace
}  // namespace lrelu::fuzz
