// Fits a WorkloadPreset to a trace: each length column becomes a quantile table (type-7
// quantiles, linear between order statistics, at probabilities 0, 0.005, ..., 0.995, 0.999,
// 0.9999 and 1), the rank correlation of input and output becomes a Gaussian copula, and the
// arrival rate and inter-arrival CV are recorded. The lengths are held in memory to sort them.
#ifndef INFERGRID_TRACES_PRESET_FIT_H_
#define INFERGRID_TRACES_PRESET_FIT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "traces/trace_reader.h"
#include "traces/workload_preset.pb.h"

namespace infergrid {

absl::StatusOr<WorkloadPreset> FitPreset(const std::string& path, const TraceOptions& options, const std::string& name);

// The knot probabilities of fitted tables.
std::vector<double> PresetProbabilityGrid();

// Spearman rank correlation (ties get their average rank).
double SpearmanCorrelation(const std::vector<double>& a, const std::vector<double>& b);

// Mean and nearest-rank p50/p90/p99/max of values.
LengthSummary SummarizeLengths(std::vector<double> values);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_PRESET_FIT_H_
