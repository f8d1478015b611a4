#include "sim/app/validation/latency_errors.h"

#include <algorithm>
#include <cmath>

namespace infergrid {

double Percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double rank = q / 100.0 * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = rank - static_cast<double>(below);
  return values[below] + fraction * (values[above] - values[below]);
}

LatencyErrors CompareLatencies(absl::Span<const double> predicted, absl::Span<const double> observed,
                               absl::Span<const double> percentiles) {
  LatencyErrors errors;
  errors.pairs = static_cast<int64_t>(observed.size());
  if (observed.empty()) return errors;
  std::vector<double> absolute(observed.size());
  double relative_sum = 0;
  double signed_sum = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    const double error = predicted[i] - observed[i];
    absolute[i] = std::fabs(error);
    signed_sum += error;
    if (observed[i] > 0) {
      relative_sum += absolute[i] / observed[i];
      ++errors.mape_pairs;
    }
  }
  if (errors.mape_pairs > 0) errors.mape = relative_sum / static_cast<double>(errors.mape_pairs);
  errors.median_absolute_error = Percentile(absolute, 50);
  errors.mean_error = signed_sum / static_cast<double>(observed.size());
  const std::vector<double> p(predicted.begin(), predicted.end());
  const std::vector<double> o(observed.begin(), observed.end());
  for (double q : percentiles) {
    errors.quantiles.push_back({q, Percentile(o, q), Percentile(p, q)});
  }
  return errors;
}

}  // namespace infergrid
