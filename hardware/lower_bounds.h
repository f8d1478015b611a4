// The two lower bounds on a pass's time from the accounting lesson (section 9): bytes over the
// peak HBM bandwidth and FLOPs over the peak tensor rate of the compute dtype. Both are
// ceilings-based: the measured (or calibrated) time must sit at or above each of them. Which
// one is larger is a hypothesis about the binding resource, not a measurement.
#ifndef INFERGRID_HARDWARE_LOWER_BOUNDS_H_
#define INFERGRID_HARDWARE_LOWER_BOUNDS_H_

#include "absl/strings/string_view.h"

#include "base/dtype.pb.h"
#include "hardware/hardware_spec.pb.h"

namespace infergrid {

// Peak dense tensor rate for math in `dtype` (fp8 at the fp8 rate, int8 at the int8 rate, fp4
// at the fp4 rate, fp32 as TF32, everything else at the fp16/bf16 rate); 0 if the GPU lacks it.
double PeakTensorFlops(const GpuSpec& gpu, DType compute_dtype);

struct LowerBounds {
  double peak_flops = 0;  // FLOP/s
  double peak_hbm_bytes_per_s = 0;
  double compute_s = 0;  // flops / peak_flops
  double hbm_s = 0;  // bytes / peak bandwidth
  double machine_balance = 0;  // peak_flops / peak bandwidth, FLOP per byte
  // "hbm" or "compute": the larger of the two bounds.
  absl::string_view larger() const { return hbm_s >= compute_s ? "hbm" : "compute"; }
  double max_s() const { return hbm_s >= compute_s ? hbm_s : compute_s; }
};

LowerBounds ComputeLowerBounds(const GpuSpec& gpu, DType compute_dtype, double flops, double hbm_bytes);

}  // namespace infergrid

#endif  // INFERGRID_HARDWARE_LOWER_BOUNDS_H_
