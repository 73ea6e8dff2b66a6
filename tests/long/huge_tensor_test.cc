// A float16 tensor of 2^31 + 1027 elements (4 GiB + 2 KiB), so that every
// index, byte offset and task boundary crosses 2^31 (and 2^32 bytes). x and
// y live in anonymous mmap()s. Checked at both ends, around 2^31, at every
// task boundary and at a million random positions, for the forward pass
// (contiguous and forced strided variants) and the in-place gradient.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/tiling.h"
#include "lrelu/lrelu.h"
#include "reference/reference.h"

namespace lrelu::long_tests {
namespace {

constexpr size_t kCount = (size_t{1} << 31) + 1027;

class Mapping {
 public:
  explicit Mapping(size_t bytes) : bytes_(bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : static_cast<uint16_t*>(p);
  }
  ~Mapping() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }
  uint16_t* data() const { return data_; }

 private:
  size_t bytes_;
  uint16_t* data_;
};

// x's bits at i: every 16-bit pattern, in an order that differs from
// block to block (so a wrong offset shows as a wrong value).
uint16_t XBits(size_t i) {
  return static_cast<uint16_t>(i * 40503u ^ (i >> 16) ^ (i >> 32));
}

// Positions worth checking: both ends, around 2^31 and 2^32 bytes, every
// task boundary the plan can have, and random ones.
std::vector<size_t> Positions(size_t tasks, uintptr_t out_address) {
  std::vector<size_t> around = {0, kCount - 1, size_t{1} << 31,
                                (size_t{1} << 31) - 1, size_t{1} << 30};
  // Seams on cache lines (32 elements) or, for streamed outputs, on pages
  // (2048), for the plan's tasks or the own pool's pieces of them.
  for (size_t edge : {size_t{64}, size_t{4096}}) {
    const size_t head = (edge - out_address % edge) % edge / 2;
    for (size_t pieces : {tasks, tasks * cpu::kPiecesPerThread}) {
      for (size_t t = 1; t <= pieces; ++t) {
        around.push_back(
            cpu::SplitRange(kCount, head, edge / 2, pieces, t - 1).end);
      }
    }
  }
  std::vector<size_t> positions;
  for (size_t p : around) {
    for (size_t d = 0; d < 4096; ++d) {
      if (p + d >= 2048 && p + d - 2048 < kCount)
        positions.push_back(p + d - 2048);
    }
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000000; ++i) positions.push_back(rng() % kCount);
  return positions;
}

std::string Check(const uint16_t* x, const uint16_t* dy, const uint16_t* out,
                  bool backward, double alpha,
                  const std::vector<size_t>& positions) {
  const float alpha32 = static_cast<float>(alpha);
  for (size_t i : positions) {
    const uint16_t want = backward
                              ? reference::BackwardF16(dy[i], x[i], alpha32)
                              : reference::ForwardF16(x[i], alpha32);
    if (out[i] != want) {
      return "element " + std::to_string(i) + ": x " + std::to_string(x[i]) +
             " expected " + std::to_string(want) + " got " +
             std::to_string(out[i]);
    }
  }
  return "";
}

TEST(HugeTensor, Float16BeyondTwoToThe31Elements) {
  const size_t bytes = kCount * 2;
  Mapping xm(bytes), ym(bytes);
  ASSERT_NE(xm.data(), nullptr) << "cannot map 4 GiB for x";
  ASSERT_NE(ym.data(), nullptr) << "cannot map 4 GiB for y";
  uint16_t* x = xm.data();
  uint16_t* y = ym.data();
  for (size_t i = 0; i < kCount; ++i) x[i] = XBits(i);

  const int64_t shape[1] = {static_cast<int64_t>(kCount)};
  lrelu_tensor_t xt{x, LRELU_DTYPE_FLOAT16, 1, shape, nullptr};
  lrelu_tensor_t yt{y, LRELU_DTYPE_FLOAT16, 1, shape, nullptr};
  const double alpha = 0.01;
  for (const char* variant : {"contiguous", "strided"}) {
    SCOPED_TRACE(variant);
    std::memset(y, 0xff, bytes);
    lrelu_options_t options;
    lrelu_options_init(&options);
    options.variant = variant;
    size_t workspace = 0;
    lrelu_executor_t* e = nullptr;
    ASSERT_EQ(lrelu_leaky_relu_get_workspace_size(&xt, alpha, &yt, &options,
                                                  &workspace, &e),
              LRELU_STATUS_OK)
        << lrelu_last_error();
    const size_t tasks = lrelu_executor_tasks(e);
    ASSERT_EQ(lrelu_execute(nullptr, 0, e, nullptr), LRELU_STATUS_OK);
    lrelu_executor_destroy(e);
    const auto positions = Positions(tasks, reinterpret_cast<uintptr_t>(y));
    EXPECT_EQ(Check(x, nullptr, y, false, alpha, positions), "");
  }
  // The gradient in place: dx = dy = y, from x.
  std::vector<uint16_t> dy_before;
  const auto positions =
      Positions(lrelu_hardware_threads(), reinterpret_cast<uintptr_t>(y));
  for (size_t i : positions) dy_before.push_back(y[i]);
  ASSERT_EQ(lrelu_leaky_relu_backward(&yt, &xt, alpha, LRELU_GRAD_FROM_X, &yt,
                                      nullptr),
            LRELU_STATUS_OK)
      << lrelu_last_error();
  for (size_t k = 0; k < positions.size(); ++k) {
    const size_t i = positions[k];
    const uint16_t want =
        reference::BackwardF16(dy_before[k], x[i], static_cast<float>(alpha));
    ASSERT_EQ(y[i], want) << "gradient element " << i;
  }
}

}  // namespace
}  // namespace lrelu::long_tests
