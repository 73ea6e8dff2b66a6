#include "support/lrelu_tester.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "reference/reference.h"
#include "support/test_data.h"

namespace lrelu::testing {
namespace {

constexpr unsigned char kUntouched = 0x5a;
constexpr size_t kAlign = 64;

// One operand's memory: a 64-byte-aligned block with guard bytes around the
// elements the view reaches, and the element index of the logical origin.
struct Buffer {
  std::vector<unsigned char> bytes;
  size_t base = 0;     // byte offset of the lowest element reached
  int64_t origin = 0;  // elements from the lowest reached to the origin
  std::vector<int64_t> strides;
  size_t elem = 0;

  unsigned char* data() {
    return bytes.data() + base + static_cast<size_t>(origin) * elem;
  }
  size_t ByteOf(const std::vector<int64_t>& index) const {
    int64_t o = origin;
    for (size_t k = 0; k < index.size(); ++k) o += index[k] * strides[k];
    return base + static_cast<size_t>(o) * elem;
  }
};

std::vector<int64_t> DenseStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t step = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = step;
    step *= std::max<int64_t>(shape[k], 1);
  }
  return strides;
}

// on_device: the library sees a copy in a block of its own (aligned to 64
// bytes), so `base` is placed for that block's alignment, not the vector's.
Buffer MakeBuffer(const std::vector<int64_t>& shape,
                  const std::vector<int64_t>& given, size_t elem,
                  size_t lead_bytes, bool on_device) {
  Buffer b;
  b.elem = elem;
  b.strides = given.empty() ? DenseStrides(shape) : given;
  int64_t lo = 0, hi = 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    const int64_t reach = b.strides[k] * std::max<int64_t>(shape[k] - 1, 0);
    (reach < 0 ? lo : hi) += reach;
  }
  b.origin = -lo;
  // The block is over-allocated so that `base` can sit lead_bytes past a
  // 64-byte boundary whatever vector's own alignment is.
  const size_t span = static_cast<size_t>(hi - lo + 1) * elem;
  b.bytes.assign(span + lead_bytes + 3 * kAlign, kUntouched);
  const auto address =
      on_device ? uintptr_t{0} : reinterpret_cast<uintptr_t>(b.bytes.data());
  b.base = (kAlign - address % kAlign) % kAlign + kAlign + lead_bytes;
  return b;
}

// Calls f with every index of shape in C order (none when any dimension is
// 0; one, empty, for rank 0).
template <class F>
void ForEachIndex(const std::vector<int64_t>& shape, const F& f) {
  for (int64_t d : shape) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(shape.size(), 0);
  while (true) {
    f(index);
    size_t k = shape.size();
    while (k > 0) {
      --k;
      if (++index[k] < shape[k]) break;
      index[k] = 0;
      if (k == 0) return;
    }
    if (shape.empty()) return;
  }
}

// Dense C-order operands: one bulk comparison, then the bytes around.
std::string CheckDenseOperands(lrelu_dtype_t dtype, bool gradient, bool inplace,
                               double alpha, const Buffer& x_before,
                               const Buffer& s_before, const Buffer& x,
                               const Buffer& s, const Buffer& out,
                               size_t count) {
  const size_t elem = lrelu_dtype_size(dtype);
  const unsigned char* v = x_before.bytes.data() + x_before.base;
  const unsigned char* sign =
      gradient ? s_before.bytes.data() + s_before.base : v;
  const unsigned char* got = out.bytes.data() + out.base;
  std::string diff = CompareWithReference(dtype, v, sign, got, count, alpha);
  if (!diff.empty()) return diff;
  for (size_t i = 0; i < out.bytes.size(); ++i) {
    if (i >= out.base && i < out.base + count * elem) continue;
    const unsigned char was = inplace ? x_before.bytes[i] : kUntouched;
    if (out.bytes[i] != was) {
      return "wrote outside the output (byte " + std::to_string(i) + ")";
    }
  }
  if (s.bytes != s_before.bytes) return "changed the sign source";
  if (!inplace && x.bytes != x_before.bytes) return "changed the input";
  return "";
}

}  // namespace

std::string LeakyReluTester::Run() {
  const size_t elem = lrelu_dtype_size(dtype_);
  const size_t lead = misaligned_ ? 1 : offset_ * elem;
  const size_t y_lead = misaligned_ || y_offset_ < 0
                            ? lead
                            : static_cast<size_t>(y_offset_) * elem;
  size_t count = 1;
  for (int64_t d : shape_) count *= static_cast<size_t>(d);

  std::mt19937_64 rng(seed_);
  const auto random_x = RandomBits(dtype_, count, rng);
  const auto random_s = RandomBits(dtype_, count, rng);
  auto logical = [&](const std::vector<uint64_t>& given,
                     const std::vector<unsigned char>& random, size_t i) {
    return given.empty() ? LoadBits(dtype_, random.data(), i)
                         : given[i % given.size()];
  };

  const bool on_device = memory_ != nullptr;
  Buffer x = MakeBuffer(shape_, x_strides_, elem, lead, on_device);
  Buffer s = MakeBuffer(shape_, s_strides_, elem, lead, on_device);
  Buffer y;
  if (!inplace_) y = MakeBuffer(shape_, y_strides_, elem, y_lead, on_device);
  // Logical values (what each index holds); an input stride of 0 makes
  // several indices share an element: the last write wins, and the
  // expectation reads back what the buffer holds.
  const bool dense =
      x_strides_.empty() && s_strides_.empty() && y_strides_.empty();
  if (dense) {  // the same, in one pass (large cases)
    for (size_t i = 0; i < count; ++i) {
      StoreBits(dtype_, x.bytes.data() + x.base, i,
                logical(x_bits_, random_x, i));
      StoreBits(dtype_, s.bytes.data() + s.base, i,
                logical(s_bits_, random_s, i));
    }
  } else {
    size_t i = 0;
    ForEachIndex(shape_, [&](const std::vector<int64_t>& index) {
      StoreBits(dtype_, x.bytes.data() + x.ByteOf(index), 0,
                logical(x_bits_, random_x, i));
      StoreBits(dtype_, s.bytes.data() + s.ByteOf(index), 0,
                logical(s_bits_, random_s, i));
      ++i;
    });
  }
  const Buffer x_before = x;
  const Buffer s_before = s;
  Buffer* out = inplace_ ? &x : &y;

  Options options;
  options.threads = threads_;
  options.thread_pool = thread_pool_;
  options.backend = backend_;
  options.cpu_target = cpu_target_;
  options.variant = variant_ == "auto" ? "" : variant_;
  // With memory_: each buffer copied to a block of its own, the call on
  // those, and the blocks read back into the buffers.
  std::vector<std::pair<Buffer*, unsigned char*>> blocks;
  auto where = [&](Buffer& b) {
    if (!on_device) return b.data();
    for (const auto& [host, block] : blocks) {
      if (host == &b) return block + (b.data() - b.bytes.data());
    }
    auto* block = static_cast<unsigned char*>(memory_->alloc(b.bytes.size()));
    memory_->to_device(block, b.bytes.data(), b.bytes.size());
    blocks.emplace_back(&b, block);
    return block + (b.data() - b.bytes.data());
  };
  struct Release {
    const Memory* memory;
    std::vector<std::pair<Buffer*, unsigned char*>>* blocks;
    ~Release() {
      for (const auto& entry : *blocks) memory->free(entry.second);
    }
  } release{memory_, &blocks};
  const auto d = static_cast<DType>(dtype_);
  const TensorView tx(where(x), d, shape_, x.strides);
  const TensorView ts(where(s), d, shape_, s.strides);
  const TensorView ty(where(*out), d, shape_, out->strides);
  if (planned_) {
    Executor e = gradient_ ? Executor::backward(tx, ts, alpha_, grad_source_,
                                                ty, options)
                           : Executor::forward(tx, alpha_, ty, options);
    const int runs = inplace_ ? 1 : executions_;
    for (int r = 0; r < runs; ++r) e.execute();
    last_variant_ = e.variant();
    last_tasks_ = e.tasks();
    last_cpu_target_ = e.cpu_target();
  } else if (gradient_) {
    leaky_relu_backward(tx, ts, ty, alpha_, grad_source_, options);
  } else {
    leaky_relu(tx, ty, alpha_, options);
  }

  if (on_device) {
    memory_->sync();
    for (const auto& [host, block] : blocks) {
      memory_->to_host(host->bytes.data(), block, host->bytes.size());
    }
  }
  if (dense) {
    return CheckDenseOperands(dtype_, gradient_, inplace_, alpha_, x_before,
                              s_before, x, s, *out, count);
  }
  // Every element against the oracle; mark the output bytes written.
  std::vector<bool> written(out->bytes.size(), false);
  std::string diff;
  ForEachIndex(shape_, [&](const std::vector<int64_t>& index) {
    if (!diff.empty()) return;
    const uint64_t vb =
        LoadBits(dtype_, x_before.bytes.data() + x_before.ByteOf(index), 0);
    const uint64_t sb =
        gradient_ ? LoadBits(dtype_, s.bytes.data() + s.ByteOf(index), 0) : vb;
    unsigned char vbytes[8], sbytes[8], expected[8];
    StoreBits(dtype_, vbytes, 0, vb);
    StoreBits(dtype_, sbytes, 0, sb);
    reference::Apply(dtype_, vbytes, sbytes, expected, 1, alpha_);
    const size_t at = out->ByteOf(index);
    const uint64_t want = LoadBits(dtype_, expected, 0);
    const uint64_t got = LoadBits(dtype_, out->bytes.data() + at, 0);
    std::fill(written.begin() + static_cast<std::ptrdiff_t>(at),
              written.begin() + static_cast<std::ptrdiff_t>(at + elem), true);
    if (!ElementMatches(dtype_, sb, want, got)) {
      std::ostringstream o;
      o << "at index [";
      for (size_t k = 0; k < index.size(); ++k) o << (k ? "," : "") << index[k];
      o << "] v " << Hex(vb, elem) << " s " << Hex(sb, elem) << ": expected "
        << Hex(want, elem) << ", got " << Hex(got, elem);
      diff = o.str();
    }
  });
  if (!diff.empty()) return diff;
  for (size_t i = 0; i < out->bytes.size(); ++i) {
    const unsigned char was = inplace_ ? x_before.bytes[i] : kUntouched;
    if (!written[i] && out->bytes[i] != was) {
      return "wrote outside the output (byte " + std::to_string(i) + ")";
    }
  }
  if (s.bytes != s_before.bytes) return "changed the sign source";
  if (!inplace_ && x.bytes != x_before.bytes) return "changed the input";
  return "";
}

std::string LeakyReluTester::Describe() const {
  std::ostringstream o;
  o << lrelu_dtype_name(dtype_) << (gradient_ ? " gradient" : " forward")
    << " shape [";
  for (size_t k = 0; k < shape_.size(); ++k) o << (k ? "," : "") << shape_[k];
  o << "] alpha " << alpha_ << " threads " << threads_ << " backend "
    << lrelu_backend_name(backend_) << " variant " << variant_;
  if (!cpu_target_.empty()) o << " target " << cpu_target_;
  if (memory_ != nullptr) o << " device memory";
  if (inplace_) o << " in place";
  if (misaligned_) {
    o << " misaligned";
  } else {
    o << " offset " << offset_;
  }
  if (!x_strides_.empty() || !y_strides_.empty()) o << " strided";
  o << " seed " << seed_;
  return o.str();
}

}  // namespace lrelu::testing
