#include "sim/core/metrics/latency_stats.h"

#include <algorithm>
#include <cmath>

#include "boost/sort/spreadsort/float_sort.hpp"

namespace infergrid {

double SortedQuantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const double fraction = position - static_cast<double>(below);
  if (below + 1 >= sorted.size() || fraction == 0) return sorted[below];
  return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

LatencyStats ComputeLatencyStats(std::vector<double>& samples) {
  LatencyStats stats;
  if (samples.empty()) return stats;
  // A radix sort (Boost's spreadsort): the same order as std::sort for latencies (no NaN, no
  // -0), in linear time; a million requests sort five such vectors.
  boost::sort::spreadsort::float_sort(samples.begin(), samples.end());
  double sum = 0;
  for (double s : samples) sum += s;
  stats.count = static_cast<int64_t>(samples.size());
  stats.mean = sum / static_cast<double>(samples.size());
  stats.p50 = SortedQuantile(samples, 0.50);
  stats.p90 = SortedQuantile(samples, 0.90);
  stats.p95 = SortedQuantile(samples, 0.95);
  stats.p99 = SortedQuantile(samples, 0.99);
  stats.p999 = SortedQuantile(samples, 0.999);
  stats.max = samples.back();
  return stats;
}

LatencyStats ComputeLatencyStats(const LogHistogram& histogram) {
  LatencyStats stats;
  stats.count = histogram.count();
  if (stats.count == 0) return stats;
  stats.mean = histogram.mean();
  stats.p50 = histogram.Quantile(0.50);
  stats.p90 = histogram.Quantile(0.90);
  stats.p95 = histogram.Quantile(0.95);
  stats.p99 = histogram.Quantile(0.99);
  stats.p999 = histogram.Quantile(0.999);
  stats.max = histogram.max();
  return stats;
}

}  // namespace infergrid
