#include "sim/app/plan/plan_assumptions.h"

#include <map>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace infergrid::plan {
namespace {

// "its fitted lengths", or the length flags that replace them.
std::string LengthsText(const PlanWorkload& w) {
  std::vector<std::string> parts;
  if (!w.lengths().empty()) parts.push_back(absl::StrCat("lengths resampled from ", w.lengths()));
  if (!w.input_lengths().empty()) parts.push_back(absl::StrCat("input ", w.input_lengths()));
  if (!w.output_lengths().empty()) parts.push_back(absl::StrCat("output ", w.output_lengths()));
  if (parts.empty()) return w.source() == "trace" ? "its lengths" : "its fitted lengths";
  return absl::StrJoin(parts, ", ");
}

std::string ArrivalsText(const PlanWorkload& w) {
  if (w.arrival() == "trace") return "its arrival times rescaled to each rate searched";
  if (w.arrival() == "gamma") return absl::StrCat("gamma arrivals (cv ", w.cv(), ") at each rate searched");
  return absl::StrCat(w.arrival(), " arrivals at each rate searched");
}

}  // namespace

std::string WorkloadLine(const PlanWorkload& w) {
  const std::string source = w.source() == "trace"     ? absl::StrCat("trace ", w.trace())
                             : w.source() == "lengths" ? std::string("synthetic")
                                                       : absl::StrCat("synthetic preset ", w.source());
  const std::string requests = w.max_requests() > 0 ? absl::StrCat(w.max_requests(), " requests a run at first")
                                                    : std::string("all its requests a run at first");
  return absl::StrCat(source, " (", LengthsText(w), "), ", ArrivalsText(w), ", ", requests, ", seed ", w.seed());
}

std::string ProfileMark(const PlanCandidate& c) {
  if (c.cost_model().empty()) return "-";
  if (c.cost_model() != "calibrated") return c.cost_model();
  return c.profile_extrapolated() ? "extrapolated" : "measured";
}

std::string ProfileNote(const PlanResult& result) {
  std::map<std::string, std::set<std::string>> by_source;  // measured GPU -> GPUs scaled from it
  std::set<std::string> roofline;
  for (const PlanCandidate& c : result.candidates()) {
    if (c.profile_extrapolated()) by_source[c.profile_extrapolated_from()].insert(c.gpu());
    if (c.cost_model() == "roofline") roofline.insert(c.gpu());
  }
  std::vector<std::string> parts;
  if (!by_source.empty()) {
    std::vector<std::string> scaled;
    for (const auto& [source, gpus] : by_source) {
      scaled.push_back(absl::StrCat(absl::StrJoin(gpus, ", "), " from ", source));
    }
    parts.push_back(absl::StrCat(
        "the GPU profiles of ", absl::StrJoin(scaled, "; "),
        " are extrapolated by datasheet ratios, not measured on those GPUs: their capacities and costs are "
        "estimates no measurement on them has checked (an A100 profile extrapolated from H100 this way missed "
        "A100's measured GEMM times by 10.4% on average, where measured profiles miss by 5.6-6.8%; "
        "docs/calibration.md)"));
  }
  if (!roofline.empty()) {
    parts.push_back(absl::StrCat(absl::StrJoin(roofline, ", "),
                                 " ran on the roofline model (datasheet peaks, no calibration profile): coarser "
                                 "than a calibrated profile"));
  }
  return absl::StrJoin(parts, "; ");
}

}  // namespace infergrid::plan
