#include "sim/app/validation/slo_validation.h"

#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace infergrid {
namespace {

constexpr double kPercentiles[] = {50, 90, 99};

std::unordered_map<std::string, const RequestLatency*> IndexById(const RequestLatencyFile& file) {
  std::unordered_map<std::string, const RequestLatency*> index;
  for (const RequestLatency& request : file.requests) index.emplace(request.id, &request);
  return index;
}

}  // namespace

bool MissesSlo(const RequestLatency& request, const SloLimits& limits) {
  if (limits.ttft_s > 0 && request.ttft_s > limits.ttft_s) return true;
  return limits.tpot_s > 0 && request.tpot_s.has_value() && *request.tpot_s > limits.tpot_s;
}

absl::StatusOr<SloValidation> ValidateSloPredictions(const RequestLatencyFile& predicted,
                                                     const RequestLatencyFile& observed, const SloLimits& limits,
                                                     bool allow_unmatched) {
  const auto predicted_by_id = IndexById(predicted);
  const auto observed_by_id = IndexById(observed);
  SloValidation validation;
  std::vector<double> ttft_predicted, ttft_observed, tpot_predicted, tpot_observed;
  for (const RequestLatency& o : observed.requests) {
    const auto it = predicted_by_id.find(o.id);
    if (it == predicted_by_id.end()) {
      if (!allow_unmatched) {
        return absl::InvalidArgumentError(absl::StrCat(observed.path, ":", o.line, ": request '", o.id,
                                                       "' has no prediction in ", predicted.path,
                                                       " (--allow-unmatched leaves such requests out)"));
      }
      ++validation.observed_only;
      continue;
    }
    const RequestLatency& p = *it->second;
    ++validation.joined;
    validation.confusion.Add(MissesSlo(p, limits), MissesSlo(o, limits));
    ttft_predicted.push_back(p.ttft_s);
    ttft_observed.push_back(o.ttft_s);
    if (p.tpot_s.has_value() && o.tpot_s.has_value()) {
      tpot_predicted.push_back(*p.tpot_s);
      tpot_observed.push_back(*o.tpot_s);
    }
  }
  for (const RequestLatency& p : predicted.requests) {
    if (observed_by_id.contains(p.id)) continue;
    if (!allow_unmatched) {
      return absl::InvalidArgumentError(absl::StrCat(predicted.path, ":", p.line, ": request '", p.id, "' is not in ",
                                                     observed.path, " (--allow-unmatched leaves such requests out)"));
    }
    ++validation.predicted_only;
  }
  if (validation.joined == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(predicted.path, " and ", observed.path, " have no request id in common"));
  }
  validation.metrics = ComputeClassificationMetrics(validation.confusion);
  validation.ttft = CompareLatencies(ttft_predicted, ttft_observed, kPercentiles);
  validation.tpot = CompareLatencies(tpot_predicted, tpot_observed, kPercentiles);
  return validation;
}

}  // namespace infergrid
