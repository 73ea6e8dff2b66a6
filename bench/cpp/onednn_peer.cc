// oneDNN 2.x: eltwise_forward with algorithm::eltwise_relu and alpha as the
// negative slope (forward_inference). The primitive and memory objects are
// made untimed; a call is execute + stream.wait.
#include <omp.h>

#include <dnnl.hpp>
#include <optional>

#include "contender.h"

namespace lrelu_bench {
namespace {

std::optional<dnnl::memory::data_type> DnnlType(lrelu_dtype_t dtype) {
  switch (dtype) {
    case LRELU_DTYPE_FLOAT32:
      return dnnl::memory::data_type::f32;
    case LRELU_DTYPE_FLOAT16:
      return dnnl::memory::data_type::f16;
    case LRELU_DTYPE_BFLOAT16:
      return dnnl::memory::data_type::bf16;
    default:
      return std::nullopt;  // oneDNN 2.6 has no f64 memory.
  }
}

class Onednn final : public Contender {
 public:
  explicit Onednn(int threads)
      : Contender("oneDNN", "eltwise_relu(alpha) fwd_inference", threads,
                  false),
        engine_(dnnl::engine::kind::cpu, 0),
        stream_(engine_) {}

  bool Supports(lrelu_dtype_t dtype) const override {
    return DnnlType(dtype).has_value();
  }

  bool Setup(const Buffers& p, std::string* why) override {
    try {
      const dnnl::memory::desc md({static_cast<dnnl::memory::dim>(p.n)},
                                  *DnnlType(p.dtype),
                                  dnnl::memory::format_tag::a);
      const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference,
                                             dnnl::algorithm::eltwise_relu, md,
                                             static_cast<float>(kAlpha), 0.f);
      pd_ = dnnl::eltwise_forward::primitive_desc(desc, engine_);
      prim_ = dnnl::eltwise_forward(pd_);
      src_ = dnnl::memory(md, engine_, const_cast<void*>(p.x));
      dst_ = dnnl::memory(md, engine_, p.y);
    } catch (const dnnl::error& e) {
      *why = std::string("no primitive for this dtype (") + e.what() + ")";
      return false;
    }
    return true;
  }

  void Run(size_t) override {
    // This oneDNN uses the OpenMP runtime, which reads the thread count from
    // the calling thread's setting at each parallel region.
    omp_set_num_threads(threads());
    prim_.execute(stream_, {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}});
    stream_.wait();
  }

  void Teardown() override {
    prim_ = {};
    src_ = {};
    dst_ = {};
  }

  std::string Info() const override { return pd_.impl_info_str(); }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::eltwise_forward::primitive_desc pd_;
  dnnl::eltwise_forward prim_;
  dnnl::memory src_, dst_;
};

}  // namespace

void AddOnednnVariants(ContenderList* out) {
  for (int threads : {1, 2}) out->push_back(std::make_unique<Onednn>(threads));
}

}  // namespace lrelu_bench
