// Quick start: the seed examples through the C++ API.
#include <cstdio>
#include <vector>

#include "lrelu/lrelu.hpp"

int main() {
  // y = x < 0 ? alpha * x : x, default alpha 0.01, into a new tensor.
  std::vector<float> x = {-2.0f, -1.0f, 0.0f, 1.0f, 2.0f};
  lrelu::TensorView xv(x.data(), lrelu::DType::kFloat32, {5});
  lrelu::Tensor y = lrelu::leaky_relu(xv);
  const float* out = static_cast<const float*>(y.data());
  std::printf("%g %g %g %g %g\n", out[0], out[1], out[2], out[3], out[4]);

  // In place, alpha 0.2, on two threads at most.
  float z = -3.0f;
  lrelu::TensorView zv(&z, lrelu::DType::kFloat32, {});  // rank 0
  lrelu::Options options;
  options.threads = 2;
  lrelu::leaky_relu(zv, 0.2, zv, options);
  std::printf("%g\n", z);

  // Errors are exceptions that name the problem.
  try {
    lrelu::leaky_relu(
        xv, 0.01, lrelu::TensorView(x.data() + 1, lrelu::DType::kFloat32, {5}));
  } catch (const lrelu::Error& e) {
    std::printf("error: %s\n", e.what());
  }
  return out[0] == -0.02f && z == -3.0f * 0.2f ? 0 : 1;
}
