#include "hardware/lower_bounds.h"

namespace infergrid {

double PeakTensorFlops(const GpuSpec& gpu, DType compute_dtype) {
  const TensorPeaks& peaks = gpu.tensor_peaks();
  switch (compute_dtype) {
    case DType::FP8_E4M3:
    case DType::FP8_E5M2: return peaks.fp8_flops();
    case DType::INT8: return peaks.int8_ops();
    case DType::FP4_E2M1: return peaks.fp4_flops();
    case DType::FP32: return peaks.fp32_flops();
    default: return peaks.fp16_flops();
  }
}

LowerBounds ComputeLowerBounds(const GpuSpec& gpu, DType compute_dtype, double flops, double hbm_bytes) {
  LowerBounds bounds;
  bounds.peak_flops = PeakTensorFlops(gpu, compute_dtype);
  bounds.peak_hbm_bytes_per_s = gpu.hbm_bytes_per_s();
  bounds.compute_s = bounds.peak_flops > 0 ? flops / bounds.peak_flops : 0;
  bounds.hbm_s = hbm_bytes / bounds.peak_hbm_bytes_per_s;
  bounds.machine_balance = bounds.peak_flops / bounds.peak_hbm_bytes_per_s;
  return bounds;
}

}  // namespace infergrid
