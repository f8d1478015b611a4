// What the startup checks of the two attention kernels (decode_attention.cu,
// prefill_attention.cu) share around the kernel itself: random inputs and a NaN-poisoned
// output on the device, and the comparison of that output with the CPU reference of
// attention_reference.h under one tolerance.
#ifndef INFERGRID_KERNELS_ATTENTION_CHECK_CUH_
#define INFERGRID_KERNELS_ATTENTION_CHECK_CUH_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/measurement_types.h"

namespace infergrid::calib {

// The device tensors of one attention check (not owned): Q and the output in the query dtype,
// K and V in the KV dtype (fp8 KV is read with bf16 queries).
struct AttentionTensors {
  DType q_dtype = DType::kBf16;
  DType kv_dtype = DType::kBf16;
  size_t q_elems = 0;  // of Q, and of the output
  size_t kv_elems = 0;  // of K, and of V
  void* q = nullptr;
  void* k = nullptr;
  void* v = nullptr;
  void* out = nullptr;
};

// A check named `name`, not run yet, with the tolerance both attention kernels are held to.
CorrectnessCheck NewAttentionCheck(std::string name);

// Enqueues on `stream`: Q = uniform[-1, 1) from `seed`, K and V = kv_value_scale *
// uniform[-1, 1) from seed + 1 and seed + 2, and the output all 0xFF bytes (NaN), so that an
// element the kernel does not write fails the check.
void FillCheckInputs(const AttentionTensors& t, uint64_t seed, float kv_value_scale, cudaStream_t stream);

// Reads the kernel's output back (after the caller synchronized) and sets
// check->relative_error against `expected`, the CPU reference, and check->passed.
void CompareWithReference(const AttentionTensors& t, const std::vector<double>& expected, CorrectnessCheck* check);

}  // namespace infergrid::calib

#endif  // INFERGRID_KERNELS_ATTENTION_CHECK_CUH_
