// The statistics vLLM's benchmark scripts print, computed as NumPy computes them so the digits
// match: np.sum's pairwise summation, np.mean, np.std (population), np.median and
// np.percentile with its default linear interpolation (including NumPy's two-sided lerp).
// An empty input behaves as vLLM's `values or 0`: every statistic is 0.
#ifndef INFERGRID_SIM_APP_BENCH_NUMPY_STATS_H_
#define INFERGRID_SIM_APP_BENCH_NUMPY_STATS_H_

#include <initializer_list>
#include <utility>
#include <vector>

namespace infergrid::bench {

// The statistics the benchmark clients report of one metric, in its unit: np.mean, np.min,
// np.max, np.std and np.percentile at each requested percentile.
struct NumpySummary {
  double avg = 0, min = 0, max = 0, std = 0;
  std::vector<std::pair<int, double>> percentiles;  // (p, value) in the order asked
};
// All zero (and no percentiles) for no values.
NumpySummary SummarizeAsNumpy(std::vector<double> values, std::initializer_list<int> percentiles);

double NumpySum(const std::vector<double>& values);
double NumpyMean(const std::vector<double>& values);
double NumpyStd(const std::vector<double>& values);
double NumpyMedian(std::vector<double> values);
// np.percentile(values, p) for p in [0, 100].
double NumpyPercentile(std::vector<double> values, double p);
// The same on values already sorted ascending.
double SortedPercentile(const std::vector<double>& sorted, double p);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_NUMPY_STATS_H_
