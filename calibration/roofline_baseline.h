// The baseline every GEMM model here must beat: a constant-efficiency roofline with three
// parameters, time = max(FLOPs / (e_c x tensor peak), bytes / (e_m x HBM peak)) + t0, with the
// datasheet peaks of the GPU, the kernel's tensor FLOPs and its compulsory HBM bytes (X, W and
// D once). Fitted to the same rows as the calibrated model, it tells how much the shape-aware
// terms (tiles, waves, split-K, streaming SMs) earn on data neither has seen.
#ifndef INFERGRID_CALIBRATION_ROOFLINE_BASELINE_H_
#define INFERGRID_CALIBRATION_ROOFLINE_BASELINE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "calibration/profile_fit.h"
#include "hardware/hardware_spec.pb.h"
#include "models/iteration_kernels.h"

namespace infergrid {

struct RooflineBaseline {
  double compute_efficiency = 1;  // e_c: share of the dense tensor peak of the kernel's dtype
  double memory_efficiency = 1;  // e_m: share of the datasheet HBM peak
  double fixed_s = 0;  // t0

  double Seconds(const GpuSpec& gpu, const Kernel& kernel) const;
  double Seconds(const GpuSpec& gpu, const KernelSample& sample) const {
    return sample.launches * Seconds(gpu, sample.kernel);
  }
};

// Fits the three parameters to the GEMM rows of `samples` by least mean absolute percentage
// error (the metric the held-out tables report), from the best point of a coarse grid.
// Errors when `samples` holds no GEMM row.
absl::StatusOr<RooflineBaseline> FitRooflineBaseline(const GpuSpec& gpu, const std::vector<KernelSample>& samples);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_ROOFLINE_BASELINE_H_
