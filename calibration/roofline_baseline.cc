#include "calibration/roofline_baseline.h"

#include <algorithm>
#include <cmath>

#include "calibration/nelder_mead.h"
#include "hardware/lower_bounds.h"

namespace infergrid {

double RooflineBaseline::Seconds(const GpuSpec& gpu, const Kernel& kernel) const {
  const double peak = PeakTensorFlops(gpu, kernel.tensor_dtype);
  const double compute_s = peak > 0 ? kernel.tensor_flops / (compute_efficiency * peak) : 0;
  const double memory_s = kernel.hbm_bytes / (memory_efficiency * gpu.hbm_bytes_per_s());
  return std::max(compute_s, memory_s) + fixed_s;
}

absl::StatusOr<RooflineBaseline> FitRooflineBaseline(const GpuSpec& gpu, const std::vector<KernelSample>& samples) {
  std::vector<const KernelSample*> rows;
  for (const KernelSample& s : samples) {
    if (s.kernel.kind == KernelKind::kGemm && s.measured_s > 0) rows.push_back(&s);
  }
  if (rows.empty()) return absl::InvalidArgumentError("no GEMM rows to fit the roofline baseline to");
  if (!(gpu.hbm_bytes_per_s() > 0)) {
    return absl::InvalidArgumentError("the roofline baseline needs the GPU's HBM peak");
  }
  // Parameters: e_c, e_m, t0 in microseconds (commensurate steps for the simplex).
  auto loss = [&](const std::vector<double>& x) {
    if (!(x[0] > 1e-3 && x[0] <= 2 && x[1] > 1e-3 && x[1] <= 2 && x[2] >= 0 && x[2] < 1e3)) return 1e9;
    const RooflineBaseline b{x[0], x[1], x[2] * 1e-6};
    double sum = 0;
    for (const KernelSample* s : rows) sum += std::abs(b.Seconds(gpu, *s) / s->measured_s - 1);
    return sum / static_cast<double>(rows.size());
  };
  std::vector<double> start = {0.7, 0.8, 2};
  double best = loss(start);
  for (double ec : {0.3, 0.45, 0.6, 0.75, 0.9}) {
    for (double em : {0.4, 0.55, 0.7, 0.85, 1.0}) {
      for (double t0 : {0.0, 2.0, 5.0, 10.0}) {
        const double l = loss({ec, em, t0});
        if (l < best) {
          best = l;
          start = {ec, em, t0};
        }
      }
    }
  }
  const MinimizeResult r = NelderMead(loss, start, {0.05, 0.05, 1.0}, 2000, 1e-12);
  return RooflineBaseline{r.x[0], r.x[1], r.x[2] * 1e-6};
}

}  // namespace infergrid
