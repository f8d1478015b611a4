// Raw measurements from kernels/ (a Measurements .textproto) as fitting input: GEMM and
// decode-attention samples become KernelSamples (fitted like any other rows), and what the
// sweep measures directly replaces the priors: the L2 read rate over working set, the
// CUDA-graph replay cost per kernel, the NCCL all-reduce tables, and the provenance (device
// name, driver, CUDA, clocks, date).
#ifndef INFERGRID_CALIBRATION_MEASUREMENTS_FIT_H_
#define INFERGRID_CALIBRATION_MEASUREMENTS_FIT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "calibration/calibration.pb.h"
#include "calibration/measurements.pb.h"
#include "calibration/profile_fit.h"
#include "hardware/hardware_spec.pb.h"

namespace infergrid {

struct MeasurementsFit {
  int rows = 0;
  std::string description;
  std::vector<KernelSample> samples;
  std::vector<CollectiveTable> collectives;
  RateTable l2;  // empty: not measured
  double graph_replay_s = 0;  // 0: not measured
  double stream_launch_s = 0;
  double hbm_read_peak = 0;  // largest measured streaming rate (a cross-check)
  CalibrationProvenance provenance;
  std::vector<std::string> notes;

  // Writes what was measured directly into `profile` (after the kernel fit).
  void Apply(Calibration* profile) const;
};

// Converts `m` (read from `path`, named in errors) for a profile of `gpu`. Errors when the
// measurements come from a GPU with another SM count, or hold no GEMM samples.
absl::StatusOr<MeasurementsFit> MeasurementsForFit(const Measurements& m, const std::string& path, const GpuSpec& gpu);
absl::StatusOr<MeasurementsFit> ReadMeasurementsForFit(const std::string& path, const GpuSpec& gpu);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_MEASUREMENTS_FIT_H_
