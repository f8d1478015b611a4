// Derivative-free minimisation (Nelder-Mead simplex) for the calibration fits: a handful of
// parameters, objectives that are piecewise smooth (tile choices and wave counts jump).
// Bounds are the objective's business (return a large value outside them).
#ifndef INFERGRID_CALIBRATION_NELDER_MEAD_H_
#define INFERGRID_CALIBRATION_NELDER_MEAD_H_

#include <functional>
#include <vector>

namespace infergrid {

struct MinimizeResult {
  std::vector<double> x;
  double value = 0;
  int evaluations = 0;
};

// Starts from `x0` with initial steps `step` (one per parameter); stops after `iterations`
// simplex steps or when the simplex's values agree to `tolerance`. Restarts once from the
// best point, which recovers from a collapsed simplex. Deterministic.
MinimizeResult NelderMead(const std::function<double(const std::vector<double>&)>& objective,
                          const std::vector<double>& x0, const std::vector<double>& step, int iterations,
                          double tolerance = 1e-9);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_NELDER_MEAD_H_
