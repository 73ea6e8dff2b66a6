#include "gpu/device_cases.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/test_data.h"

namespace lrelu::testing {
namespace {

std::string Run(const DeviceCase& c, const Memory& memory,
                const std::vector<unsigned char>& v,
                const std::vector<unsigned char>& s, std::string* variant) {
  const size_t elem = lrelu_dtype_size(c.dtype);
  const size_t bytes = c.n * elem;
  const size_t pad = 64;  // guard bytes around every operand
  const size_t block = bytes + (c.offset + c.out_offset) * elem + 2 * pad;
  unsigned char* dv = static_cast<unsigned char*>(memory.alloc(block));
  unsigned char* ds = static_cast<unsigned char*>(memory.alloc(block));
  unsigned char* dout = static_cast<unsigned char*>(memory.alloc(block));
  std::vector<unsigned char> guard(block, 0xa5);
  memory.to_device(dout, guard.data(), block);
  unsigned char* pv = dv + pad + c.offset * elem;
  unsigned char* ps = c.gradient ? ds + pad + c.offset * elem : pv;
  unsigned char* po =
      c.in_place ? pv : dout + pad + (c.offset + c.out_offset) * elem;
  if (bytes > 0) {
    memory.to_device(pv, v.data(), bytes);
    if (c.gradient) memory.to_device(ps, s.data(), bytes);
  }
  const int64_t shape[1] = {static_cast<int64_t>(c.n)};
  lrelu_tensor_t tv = {pv, c.dtype, 1, shape, nullptr};
  lrelu_tensor_t ts = {ps, c.dtype, 1, shape, nullptr};
  lrelu_tensor_t to = {po, c.dtype, 1, shape, nullptr};
  lrelu_options_t options;
  lrelu_options_init(&options);
  options.backend = c.backend;
  options.variant = c.variant;
  options.stream = c.stream;
  // With c.rebind: the buffers the executor is planned on.
  unsigned char *qv = nullptr, *qs = nullptr, *qo = nullptr;
  lrelu_tensor_t pv_t = tv, ps_t = ts, po_t = to;
  if (c.rebind) {
    qv = static_cast<unsigned char*>(memory.alloc(block + elem));
    qs = static_cast<unsigned char*>(memory.alloc(block + elem));
    qo = static_cast<unsigned char*>(memory.alloc(block + elem));
    std::vector<unsigned char> qguard(block + elem, 0xa5);
    memory.to_device(qv, qguard.data(), block + elem);
    memory.to_device(qs, qguard.data(), block + elem);
    memory.to_device(qo, qguard.data(), block + elem);
    pv_t.data = qv + pad + (c.offset + 1) * elem;
    ps_t.data = c.gradient ? qs + pad + (c.offset + 1) * elem : pv_t.data;
    po_t.data = c.in_place ? pv_t.data
                           : qo + pad + (c.offset + c.out_offset + 1) * elem;
  }
  size_t workspace = 0;
  lrelu_executor_t* executor = nullptr;
  lrelu_status_t status =
      c.gradient ? lrelu_leaky_relu_backward_get_workspace_size(
                       &pv_t, &ps_t, c.alpha, c.source, &po_t, &options,
                       &workspace, &executor)
                 : lrelu_leaky_relu_get_workspace_size(
                       &pv_t, c.alpha, &po_t, &options, &workspace, &executor);
  if (status == LRELU_STATUS_OK && c.rebind) {
    void* const forward[2] = {pv, po};
    void* const gradient[3] = {pv, ps, po};
    status = c.gradient ? lrelu_executor_bind(executor, gradient, 3)
                        : lrelu_executor_bind(executor, forward, 2);
  }
  if (status == LRELU_STATUS_OK) {
    if (variant != nullptr) *variant = lrelu_executor_variant(executor);
    status = lrelu_execute(nullptr, 0, executor, nullptr);
  }
  lrelu_executor_destroy(executor);
  std::string error;
  if (status != LRELU_STATUS_OK) {
    error =
        std::string(lrelu_status_string(status)) + ": " + lrelu_last_error();
  } else {
    memory.sync();
    std::vector<unsigned char> result(block);
    unsigned char* out_block = c.in_place ? dv : dout;
    memory.to_host(result.data(), out_block, block);
    const size_t at = static_cast<size_t>(po - out_block);
    error = CompareWithReference(c.dtype, v.data(),
                                 c.gradient ? s.data() : v.data(),
                                 result.data() + at, c.n, c.alpha);
    if (error.empty() && !c.in_place) {
      for (size_t i = 0; i < block; ++i) {
        if ((i < at || i >= at + bytes) && result[i] != 0xa5) {
          error = "byte " + std::to_string(i) + " outside the output changed";
          break;
        }
      }
    }
  }
  if (c.rebind) {
    // The buffers planned on were only planned on.
    std::vector<unsigned char> q(block + elem);
    for (unsigned char* b : {qv, qs, qo}) {
      if (!error.empty()) break;
      memory.to_host(q.data(), b, block + elem);
      for (size_t i = 0; i < q.size(); ++i) {
        if (q[i] != 0xa5) {
          error = "byte " + std::to_string(i) +
                  " of a buffer the executor was planned on (then bound "
                  "away from) changed";
          break;
        }
      }
    }
    memory.free(qv);
    memory.free(qs);
    memory.free(qo);
  }
  memory.free(dv);
  memory.free(ds);
  memory.free(dout);
  return error;
}

}  // namespace

std::string RunDeviceCase(const DeviceCase& c, const Memory& memory,
                          unsigned seed, std::string* variant) {
  std::mt19937_64 rng(seed);
  const auto v = RandomBits(c.dtype, c.n, rng);
  const auto s = RandomBits(c.dtype, c.n, rng);
  return Run(c, memory, v, s, variant);
}

std::string RunSpecials(const DeviceCase& c, const Memory& memory) {
  const std::vector<uint64_t> specials = SpecialBits(c.dtype);
  const size_t k = specials.size();
  DeviceCase all = c;
  all.n = k * k;
  std::vector<unsigned char> v(all.n * lrelu_dtype_size(c.dtype));
  std::vector<unsigned char> s(v.size());
  for (size_t i = 0; i < k; ++i) {
    for (size_t j = 0; j < k; ++j) {
      StoreBits(c.dtype, v.data(), i * k + j, specials[i]);
      StoreBits(c.dtype, s.data(), i * k + j, specials[j]);
    }
  }
  return Run(all, memory, v, s, nullptr);
}

}  // namespace lrelu::testing
