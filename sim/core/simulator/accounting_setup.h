// What a deployment serves and on what, resolved: the model, the GPU, the weight and KV-cache
// formats, the tensor-core math they run in and the weights' bytes. The accounting commands
// (memory, roofline) and every simulation start from it; sim/app/cli reads it from flags.
#ifndef INFERGRID_SIM_CORE_SIMULATOR_ACCOUNTING_SETUP_H_
#define INFERGRID_SIM_CORE_SIMULATOR_ACCOUNTING_SETUP_H_

#include "base/dtype.h"
#include "hardware/hardware_spec.pb.h"
#include "models/model_spec.pb.h"
#include "models/parameter_counts.pb.h"

namespace infergrid {

struct AccountingSetup {
  ModelSpec model;
  GpuSpec gpu;
  WeightFormat weights;
  DType kv_dtype = DType::BF16;
  // Tensor-core math (ComputeDType).
  DType compute_dtype = DType::BF16;
  ParameterCounts parameters;  // counts, and which one is used
  double weight_bytes = 0;  // WeightBytes
  double checkpoint_bytes = 0;  // payload bytes in --safetensors (0: none)
};

// The tensor-core math a weight format runs in: fp8 for fp8 weights; FP4 weights on FP4
// tensor cores where the GPU has them (Blackwell), elsewhere dequantized inside the GEMM and
// multiplied in bf16, as vLLM runs NVFP4 and MXFP4 checkpoints on Ampere/Hopper (Marlin's
// W4A16 kernels); else bf16.
DType ComputeDType(const WeightFormat& weights, const GpuSpec& gpu);

// The weights' bytes: a checkpoint's payload when its count is used (packed int4, scales and
// all), else the parameter count in use times the format's bytes per parameter, a checkpoint
// quantizing only its experts holding the rest in the model's float dtype.
double WeightBytes(const AccountingSetup& setup);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SIMULATOR_ACCOUNTING_SETUP_H_
