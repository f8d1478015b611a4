// How far predicted latencies are from observed ones, request by request and distribution by
// distribution: the mean absolute percentage error (MAPE), the median absolute error, the
// mean signed error (bias), and predicted vs observed quantiles (p50, p90, p99).
//
// Quantiles interpolate linearly between the closest ranks (numpy's default, Hyndman & Fan
// type 7). MAPE leaves out pairs whose observed value is 0 (the ratio is undefined there) and
// says how many pairs it used.
#ifndef INFERGRID_SIM_APP_VALIDATION_LATENCY_ERRORS_H_
#define INFERGRID_SIM_APP_VALIDATION_LATENCY_ERRORS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace infergrid {

// The q-th percentile (q in [0, 100]) of `values` (not empty), linear between closest ranks.
double Percentile(std::vector<double> values, double q);

struct QuantileComparison {
  double percentile = 0;  // 50, 90, 99
  double observed = 0;
  double predicted = 0;
  double RelativeError() const { return observed > 0 ? (predicted - observed) / observed : 0; }
};

struct LatencyErrors {
  int64_t pairs = 0;  // requests compared
  int64_t mape_pairs = 0;  // of them, with observed > 0
  double mape = 0;  // mean |predicted - observed| / observed over mape_pairs
  double median_absolute_error = 0;  // seconds
  double mean_error = 0;  // mean (predicted - observed), seconds: > 0 predicts too slow
  std::vector<QuantileComparison> quantiles;
};

// `predicted[i]` and `observed[i]` belong to the same request; the spans have equal length.
// With no pairs, everything is 0.
LatencyErrors CompareLatencies(absl::Span<const double> predicted, absl::Span<const double> observed,
                               absl::Span<const double> percentiles);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_VALIDATION_LATENCY_ERRORS_H_
