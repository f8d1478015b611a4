// Summary statistics of a latency sample: mean, p50, p90, p95, p99, p99.9 and max, with
// percentiles linearly interpolated between the two nearest ranks (numpy's default, as vLLM's
// benchmark_serving reports them). Exact: the samples are sorted.
#ifndef INFERGRID_SIM_CORE_METRICS_LATENCY_STATS_H_
#define INFERGRID_SIM_CORE_METRICS_LATENCY_STATS_H_

#include <cstdint>
#include <vector>

#include "sim/core/metrics/log_histogram.h"

namespace infergrid {

struct LatencyStats {
  int64_t count = 0;
  double mean = 0;
  double p50 = 0;
  double p90 = 0;
  double p95 = 0;
  double p99 = 0;
  double p999 = 0;
  double max = 0;
};

// Sorts `samples` in place.
LatencyStats ComputeLatencyStats(std::vector<double>& samples);
LatencyStats ComputeLatencyStats(const LogHistogram& histogram);

// The q-quantile of sorted samples, linearly interpolated; 0 when empty.
double SortedQuantile(const std::vector<double>& sorted, double q);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_METRICS_LATENCY_STATS_H_
