#include "sim/core/engine/autoscale_policy.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace infergrid {

absl::StatusOr<AutoscaleTarget> ParseAutoscaleTarget(absl::string_view text) {
  const size_t colon = text.find(':');
  if (colon == absl::string_view::npos) {
    return absl::InvalidArgumentError("expected METRIC:TARGET, e.g. utilization:0.6 or queue:8");
  }
  AutoscaleTarget t;
  const absl::string_view metric = text.substr(0, colon);
  const std::optional<AutoscaleMetric> named = ParseEnumName(kAutoscaleMetricNames, metric);
  if (!named.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown metric '", metric, "' (utilization or queue)"));
  }
  t.metric = *named;
  const std::string value(text.substr(colon + 1));
  if (!absl::SimpleAtod(value, &t.target) || !std::isfinite(t.target) || t.target <= 0 ||
      (t.metric == AutoscaleMetric::kUtilization && t.target > 1)) {
    return absl::InvalidArgumentError(absl::StrCat("target '", value, "' is not a number in ",
                                                   t.metric == AutoscaleMetric::kUtilization ? "(0, 1]" : "(0, 1e6]"));
  }
  if (t.target > 1e6) return absl::InvalidArgumentError(absl::StrCat("target '", value, "' is above 1e6"));
  return t;
}

int DesiredReplicas(int active, double metric, double target, int min_replicas, int max_replicas) {
  const double wanted = std::ceil(static_cast<double>(active) * metric / target - 1e-9);
  const double clamped = std::clamp(wanted, static_cast<double>(min_replicas), static_cast<double>(max_replicas));
  return static_cast<int>(clamped);
}

int ScaleDownWindow::Add(double now, int desired) {
  decisions_.emplace_back(now, desired);
  while (!decisions_.empty() && decisions_.front().first <= now - delay_s_) decisions_.pop_front();
  int highest = desired;
  for (const auto& [time, count] : decisions_) highest = std::max(highest, count);
  return highest;
}

double DefaultReplicaStartup(double weight_bytes_per_gpu) {
  return weight_bytes_per_gpu / kWeightLoadBytesPerS + kEngineStartS;
}

}  // namespace infergrid
