// Fits an engine's host time per iteration from vidur's CPU-overhead table
// (../shared/data/measurements/a100/vllm_legacy_cpu_overheads.csv: mean milliseconds of each
// phase of an early vLLM's decode step over batch size, tensor parallelism and six models).
// Each phase is fitted as base + per-sequence x batch, plus the terms that lower its held-out
// error (a TP > 1 step cost; for sampling, a cost per sequence per vocabulary entry, the
// vocabulary taken from a table of the six profiled checkpoints), by least squares over every
// row; held-out errors leave one model out at a time. The Ray RPC time of that engine is not fitted: the
// engines modelled run their workers without Ray.
#ifndef INFERGRID_CALIBRATION_HOST_FIT_H_
#define INFERGRID_CALIBRATION_HOST_FIT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "calibration/host_calibration.pb.h"

namespace infergrid {

// One row of the table: a model's decode step at one batch size and TP degree.
struct HostOverheadRow {
  int line = 0;
  std::string model;
  int batch_size = 0;
  int tensor_parallel = 1;
  int64_t vocab_size = 0;  // the model's config.json vocab_size
  std::map<std::string, double> mean_s;  // source column -> seconds
};

// Parses the table's text; errors name `path` and the line.
absl::StatusOr<std::vector<HostOverheadRow>> ParseHostOverheadsCsv(absl::string_view contents, const std::string& path);

// The fitted phases with held-in and held-out errors; `path` goes into the provenance.
absl::StatusOr<HostCalibration> FitHostCalibration(const std::vector<HostOverheadRow>& rows, const std::string& path);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_HOST_FIT_H_
