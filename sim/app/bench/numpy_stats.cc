#include "sim/app/bench/numpy_stats.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace infergrid::bench {
namespace {

// numpy/core/src/umath/loops_utils.h: 8-way unrolled blocks of up to 128, halves above.
double PairwiseSum(const double* a, size_t n) {
  if (n < 8) {
    double res = 0.;
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSum(a, n2) + PairwiseSum(a + n2, n - n2);
}

}  // namespace

double NumpySum(const std::vector<double>& values) { return PairwiseSum(values.data(), values.size()); }

double NumpyMean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return NumpySum(values) / static_cast<double>(values.size());
}

double NumpyStd(const std::vector<double>& values) {
  if (values.empty()) return 0;
  const double mean = NumpyMean(values);
  std::vector<double> squares(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const double d = values[i] - mean;
    squares[i] = d * d;
  }
  return std::sqrt(NumpySum(squares) / static_cast<double>(values.size()));
}

double NumpyMedian(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t half = values.size() / 2;
  if (values.size() % 2 == 1) return values[half];
  return (0. + values[half - 1] + values[half]) / 2.0;
}

double SortedPercentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto n = static_cast<double>(sorted.size());
  const double virtual_index = (n - 1) * (p / 100.0);
  if (virtual_index >= n - 1) return sorted.back();
  if (virtual_index < 0) return sorted.front();
  const double previous_index = std::floor(virtual_index);
  const double a = sorted[static_cast<size_t>(previous_index)];
  const double b = sorted[static_cast<size_t>(previous_index) + 1];
  const double t = virtual_index - previous_index;
  const double diff = b - a;
  // NumPy's _lerp: from the nearer end, so t = 1 returns b exactly.
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

double NumpyPercentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return SortedPercentile(values, p);
}

NumpySummary SummarizeAsNumpy(std::vector<double> values, std::initializer_list<int> percentiles) {
  NumpySummary s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.avg = NumpyMean(values);
  s.std = NumpyStd(values);
  s.min = values.front();
  s.max = values.back();
  for (const int p : percentiles) s.percentiles.emplace_back(p, SortedPercentile(values, p));
  return s;
}

}  // namespace infergrid::bench
