#include "calibration/nelder_mead.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace infergrid {
namespace {

MinimizeResult Run(const std::function<double(const std::vector<double>&)>& f, const std::vector<double>& x0,
                   const std::vector<double>& step, int iterations, double tolerance) {
  const size_t n = x0.size();
  std::vector<std::vector<double>> points(n + 1, x0);
  for (size_t i = 0; i < n; ++i) points[i + 1][i] += step[i];
  std::vector<double> values(n + 1);
  int evaluations = 0;
  for (size_t i = 0; i <= n; ++i, ++evaluations) values[i] = f(points[i]);
  std::vector<size_t> order(n + 1);
  auto along = [&](const std::vector<double>& centroid, const std::vector<double>& worst, double t) {
    std::vector<double> x(n);
    for (size_t j = 0; j < n; ++j) x[j] = centroid[j] + t * (worst[j] - centroid[j]);
    return x;
  };
  for (int it = 0; it < iterations; ++it) {
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
    const size_t best = order[0], worst = order[n], second = order[n - 1];
    if (values[worst] - values[best] <= tolerance * (1 + std::abs(values[best]))) break;
    std::vector<double> centroid(n, 0.0);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) centroid[j] += points[order[i]][j] / static_cast<double>(n);
    }
    const std::vector<double> reflected = along(centroid, points[worst], -1);
    const double fr = f(reflected);
    ++evaluations;
    if (fr < values[best]) {
      const std::vector<double> expanded = along(centroid, points[worst], -2);
      const double fe = f(expanded);
      ++evaluations;
      if (fe < fr) {
        points[worst] = expanded;
        values[worst] = fe;
      } else {
        points[worst] = reflected;
        values[worst] = fr;
      }
    } else if (fr < values[second]) {
      points[worst] = reflected;
      values[worst] = fr;
    } else {
      const std::vector<double> contracted = along(centroid, points[worst], 0.5);
      const double fc = f(contracted);
      ++evaluations;
      if (fc < values[worst]) {
        points[worst] = contracted;
        values[worst] = fc;
      } else {
        for (size_t i = 1; i <= n; ++i) {
          std::vector<double>& p = points[order[i]];
          for (size_t j = 0; j < n; ++j) p[j] = points[best][j] + 0.5 * (p[j] - points[best][j]);
          values[order[i]] = f(p);
          ++evaluations;
        }
      }
    }
  }
  const size_t best = static_cast<size_t>(std::min_element(values.begin(), values.end()) - values.begin());
  return {points[best], values[best], evaluations};
}

}  // namespace

MinimizeResult NelderMead(const std::function<double(const std::vector<double>&)>& objective,
                          const std::vector<double>& x0, const std::vector<double>& step, int iterations,
                          double tolerance) {
  MinimizeResult first = Run(objective, x0, step, iterations, tolerance);
  std::vector<double> smaller(step);
  for (double& s : smaller) s *= 0.5;
  MinimizeResult second = Run(objective, first.x, smaller, iterations, tolerance);
  second.evaluations += first.evaluations;
  if (first.value < second.value) {
    first.evaluations = second.evaluations;
    return first;
  }
  return second;
}

}  // namespace infergrid
