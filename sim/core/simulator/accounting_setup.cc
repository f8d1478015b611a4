#include "sim/core/simulator/accounting_setup.h"

#include "models/parameter_count.h"

namespace infergrid {

DType ComputeDType(const WeightFormat& weights, const GpuSpec& gpu) {
  switch (weights.dtype) {
    case DType::FP8_E4M3:
    case DType::FP8_E5M2: return DType::FP8_E4M3;
    case DType::FP32: return DType::FP32;
    case DType::FP4_E2M1: return gpu.tensor_peaks().fp4_flops() > 0 ? DType::FP4_E2M1 : DType::BF16;
    default: return DType::BF16;
  }
}

double WeightBytes(const AccountingSetup& setup) {
  const ParameterCounts& params = setup.parameters;
  if (params.used() == "checkpoint") return setup.checkpoint_bytes;
  const DType float_dtype = setup.model.dtype() == DType::DTYPE_UNSPECIFIED ? DType::BF16 : setup.model.dtype();
  const double quantized_share = setup.weights.experts_only && params.exact() > 0
                                     ? static_cast<double>(RoutedExpertParameters(setup.model)) / params.exact()
                                     : 1.0;
  return params.count() *
         (quantized_share * setup.weights.BytesPerParameter() + (1 - quantized_share) * BytesPerElement(float_dtype));
}

}  // namespace infergrid
