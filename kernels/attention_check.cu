#include "kernels/attention_check.cuh"

#include <utility>

#include "kernels/attention_reference.h"
#include "kernels/device_common.cuh"

namespace infergrid::calib {

CorrectnessCheck NewAttentionCheck(std::string name) {
  CorrectnessCheck check;
  check.name = std::move(name);
  check.tolerance = 1e-2;
  return check;
}

void FillCheckInputs(const AttentionTensors& t, uint64_t seed, float kv_value_scale, cudaStream_t stream) {
  FillUniform(t.q_dtype, t.q, t.q_elems, seed, 1.0f, stream);
  FillUniform(t.kv_dtype, t.k, t.kv_elems, seed + 1, kv_value_scale, stream);
  FillUniform(t.kv_dtype, t.v, t.kv_elems, seed + 2, kv_value_scale, stream);
  CUDA_CHECK(cudaMemsetAsync(t.out, 0xFF, t.q_elems * static_cast<size_t>(DTypeBytes(t.q_dtype)), stream));
}

void CompareWithReference(const AttentionTensors& t, const std::vector<double>& expected, CorrectnessCheck* check) {
  const std::vector<float> got = DownloadAsFloat(t.q_dtype, t.out, t.q_elems);
  check->relative_error = RelativeError(got, expected);
  check->passed = check->relative_error <= check->tolerance;
}

}  // namespace infergrid::calib
