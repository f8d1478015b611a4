// Confidence intervals over a few replications: the two-sided 95% Student-t quantile and the
// interval of a sample mean. Shared by `compare` (paired differences) and `plan` (an SLO
// metric at the chosen rate).
#ifndef INFERGRID_BASE_STUDENT_T_H_
#define INFERGRID_BASE_STUDENT_T_H_

#include <vector>

namespace infergrid {

// Two-sided 95% quantile of Student's t with `df` degrees of freedom (0 for df < 1): exact to
// three decimals up to 30, within 0.3% above.
double StudentT95(int df);

struct MeanInterval {
  double mean = 0;
  double low = 0;  // mean -/+ t * s / sqrt(n); both the mean for one value
  double high = 0;
};
MeanInterval MeanWithInterval95(const std::vector<double>& values);

}  // namespace infergrid

#endif  // INFERGRID_BASE_STUDENT_T_H_
