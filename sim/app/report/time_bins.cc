#include "sim/app/report/time_bins.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "sim/app/format/units.h"

namespace infergrid::report {

TimeAxis::TimeAxis(double span_s, int bins)
    : bins_(std::max(1, bins)), width_s_(span_s > 0 ? span_s / std::max(1, bins) : 1.0) {}

int TimeAxis::BinOf(double t_s) const {
  if (!(t_s > 0)) return 0;  // also NaN
  const double bin = std::floor(t_s / width_s_);
  return bin >= bins_ ? bins_ - 1 : static_cast<int>(bin);
}

std::string BinRule(const TimeAxis& axis, const std::string& what) {
  return absl::StrCat("Each point is one bin of ", format::Duration(axis.width_s()), " (the run cut into ", axis.bins(),
                      " equal bins): the line is the mean and the band the minimum to maximum of ", what,
                      " in the bin.");
}

}  // namespace infergrid::report
