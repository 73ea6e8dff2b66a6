#include "gpu/prelu_device_cases.h"

#include <cstring>
#include <random>

#include "support/test_data.h"

namespace lrelu::testing {
namespace {

std::vector<int64_t> StridesOf(const std::vector<int64_t>& shape,
                               const std::vector<int64_t>& strides) {
  if (!strides.empty()) return strides;
  std::vector<int64_t> s(shape.size());
  int64_t c = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = c;
    c *= shape[i];
  }
  return s;
}

// Lowest and highest element offsets of a view; false when it is empty.
bool Range(const std::vector<int64_t>& shape,
           const std::vector<int64_t>& strides, int64_t* lo, int64_t* hi) {
  *lo = *hi = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return false;
    const int64_t r = strides[i] * (shape[i] - 1);
    (r < 0 ? *lo : *hi) += r;
  }
  return true;
}

// Element offsets of every element of the view, in C order.
std::vector<int64_t> Offsets(const std::vector<int64_t>& shape,
                             const std::vector<int64_t>& strides) {
  std::vector<int64_t> out;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n == 0) return out;
  std::vector<int64_t> idx(shape.size(), 0);
  int64_t off = 0;
  for (int64_t k = 0; k < n; ++k) {
    out.push_back(off);
    for (size_t j = shape.size(); j-- > 0;) {
      if (++idx[j] < shape[j]) {
        off += strides[j];
        break;
      }
      off -= (shape[j] - 1) * strides[j];
      idx[j] = 0;
    }
  }
  return out;
}

}  // namespace

std::string RunPreluDeviceCase(const PreluCase& c, const Memory& memory,
                               unsigned seed, std::string* variant) {
  const size_t elem = lrelu_dtype_size(c.dtype);
  const std::vector<int64_t> xs = StridesOf(c.x_shape, c.x_strides);
  const std::vector<int64_t> as = StridesOf(c.alpha_shape, c.alpha_strides);
  int64_t xlo = 0, xhi = -1, alo = 0, ahi = -1;
  if (!Range(c.x_shape, xs, &xlo, &xhi)) xhi = xlo - 1;
  if (!Range(c.alpha_shape, as, &alo, &ahi)) ahi = alo - 1;
  const size_t xn = static_cast<size_t>(xhi - xlo + 1);
  const size_t an = static_cast<size_t>(ahi - alo + 1);
  std::mt19937_64 rng(seed);
  const std::vector<unsigned char> x_host = RandomBits(c.dtype, xn, rng);
  const std::vector<unsigned char> a_host = RandomBits(c.dtype, an, rng);

  // The oracle on host copies with the same strides.
  std::vector<unsigned char> expected(xn * elem + 1), x_copy = x_host;
  std::vector<unsigned char> a_copy = a_host;
  lrelu_tensor_t tx = {x_copy.data() - xlo * static_cast<int64_t>(elem),
                       c.dtype, static_cast<int32_t>(c.x_shape.size()),
                       c.x_shape.data(), xs.data()};
  lrelu_tensor_t ta = {a_copy.data() - alo * static_cast<int64_t>(elem),
                       c.dtype, static_cast<int32_t>(c.alpha_shape.size()),
                       c.alpha_shape.data(), as.data()};
  lrelu_tensor_t ty = tx;
  ty.data = expected.data() - xlo * static_cast<int64_t>(elem);
  lrelu_options_t ref;
  lrelu_options_init(&ref);
  ref.variant = "reference";
  if (lrelu_prelu(&tx, &ta, &ty, &ref) != LRELU_STATUS_OK) {
    return std::string("oracle: ") + lrelu_last_error();
  }

  // The device call.
  void* dx = memory.alloc(xn * elem + 16);
  void* da = memory.alloc(an * elem + 16);
  void* dy = c.in_place ? dx : memory.alloc(xn * elem + 16);
  memory.to_device(dx, x_host.data(), xn * elem);
  memory.to_device(da, a_host.data(), an * elem);
  lrelu_tensor_t gx = tx, ga = ta, gy = ty;
  gx.data = static_cast<char*>(dx) - xlo * static_cast<int64_t>(elem);
  ga.data = static_cast<char*>(da) - alo * static_cast<int64_t>(elem);
  gy.data = static_cast<char*>(dy) - xlo * static_cast<int64_t>(elem);
  lrelu_options_t o;
  lrelu_options_init(&o);
  o.backend = c.backend;
  o.variant = c.variant;
  o.stream = c.stream;
  std::string result;
  size_t ws = 0;
  lrelu_executor_t* e = nullptr;
  // With c.rebind: buffers the executor is planned on, then bound away from.
  const size_t qbytes = (xn + an) * elem + 64;
  void* q = c.rebind ? memory.alloc(2 * qbytes) : nullptr;
  const std::vector<unsigned char> qguard(2 * qbytes, 0xa5);
  lrelu_tensor_t px = gx, pa = ga, py = gy;
  if (c.rebind) {
    memory.to_device(q, qguard.data(), qguard.size());
    char* qc = static_cast<char*>(q);
    const auto e64 = static_cast<int64_t>(elem);
    px.data = qc + elem - xlo * e64;
    pa.data = qc + (xn + 2) * elem - alo * e64;
    py.data = c.in_place ? px.data : qc + qbytes + elem - xlo * e64;
  }
  lrelu_status_t s = lrelu_prelu_get_workspace_size(&px, &pa, &py, &o, &ws, &e);
  if (s == LRELU_STATUS_OK && c.rebind) {
    void* const data[3] = {gx.data, ga.data, gy.data};
    s = lrelu_executor_bind(e, data, 3);
  }
  if (s == LRELU_STATUS_OK) {
    if (variant != nullptr) *variant = lrelu_executor_variant(e);
    s = lrelu_execute(nullptr, 0, e, nullptr);
  }
  if (s != LRELU_STATUS_OK) {
    result = std::string(lrelu_status_string(s)) + ": " + lrelu_last_error();
  }
  lrelu_executor_destroy(e);
  memory.sync();
  std::vector<unsigned char> actual(xn * elem + 1);
  if (result.empty()) memory.to_host(actual.data(), dy, xn * elem);
  memory.free(dx);
  memory.free(da);
  if (!c.in_place) memory.free(dy);
  if (c.rebind) {
    std::vector<unsigned char> back(qguard.size());
    memory.to_host(back.data(), q, back.size());
    memory.free(q);
    if (result.empty() && back != qguard) {
      result =
          "a buffer the executor was planned on (then bound away from) "
          "changed";
    }
  }
  if (!result.empty()) return result;

  const std::vector<int64_t> offsets = Offsets(c.x_shape, xs);
  for (size_t k = 0; k < offsets.size(); ++k) {
    const size_t i = static_cast<size_t>(offsets[k] - xlo);
    const uint64_t xb = LoadBits(c.dtype, x_host.data(), i);
    const uint64_t want = LoadBits(c.dtype, expected.data(), i);
    const uint64_t got = LoadBits(c.dtype, actual.data(), i);
    if (!ElementMatches(c.dtype, xb, want, got)) {
      return "element " + std::to_string(k) + " (C order): x " + Hex(xb, elem) +
             " expected " + Hex(want, elem) + " got " + Hex(got, elem);
    }
  }
  return "";
}

std::vector<PreluPattern> PreluPatterns() {
  return {
      {"scalar [1]", {2, 3, 4, 5}, {1}},
      {"rank 0", {2, 3, 4, 5}, {}},
      {"NCHW [C,1,1]", {2, 3, 4, 5}, {3, 1, 1}},
      {"NCHW N=1", {1, 7, 9, 11}, {7, 1, 1}},
      {"NHWC [C]", {2, 4, 5, 3}, {3}},
      {"NHWC 64", {2, 3, 5, 64}, {64}},
      {"full", {2, 3, 4, 5}, {2, 3, 4, 5}},
      {"rows [C,H,1]", {2, 3, 4, 5}, {3, 4, 1}},
      {"middle [H,1]", {2, 3, 4, 5}, {4, 1}},
      {"two axes [N,1,1,W]", {2, 3, 4, 5}, {2, 1, 1, 5}},
      {"[C,1,W]", {2, 3, 4, 5}, {3, 1, 5}},
      {"vector", {37}, {37}},
      {"vector scalar", {37}, {1}},
      {"extent-1 axes", {1, 6, 1, 7}, {6, 1, 1}},
      {"x rank 0", {}, {}},
      {"empty", {2, 0, 5}, {1, 5}},
  };
}

}  // namespace lrelu::testing
