// The median of a sample: the middle value, or the mean of the two middle ones; 0 for none.
#ifndef INFERGRID_BASE_MEDIAN_H_
#define INFERGRID_BASE_MEDIAN_H_

#include <algorithm>
#include <vector>

namespace infergrid {

inline double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace infergrid

#endif  // INFERGRID_BASE_MEDIAN_H_
