#include "base/student_t.h"

#include <cmath>

namespace infergrid {

double StudentT95(int df) {
  static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return 0;
  if (df <= 30) return table[df - 1];
  return 1.96 + 2.4 / df;
}

MeanInterval MeanWithInterval95(const std::vector<double>& values) {
  MeanInterval m;
  const size_t n = values.size();
  if (n == 0) return m;
  for (double v : values) m.mean += v;
  m.mean /= static_cast<double>(n);
  double var = 0;
  for (double v : values) var += (v - m.mean) * (v - m.mean);
  const double half =
      n > 1 ? StudentT95(static_cast<int>(n) - 1) * std::sqrt(var / static_cast<double>(n - 1) / static_cast<double>(n))
            : 0;
  m.low = m.mean - half;
  m.high = m.mean + half;
  return m;
}

}  // namespace infergrid
