#include "sim/app/run/plan_assumed.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "calibration/profile_catalog.h"
#include "sim/app/cli/workload_options.h"
#include "sim/app/plan/plan_assumptions.h"

namespace infergrid {

absl::StatusOr<PlanWorkload> AssumedWorkload(const cli::FlagValues& flags) {
  WorkloadSettings w;
  if (absl::Status s = cli::ReadWorkloadOptions(flags, w); !s.ok()) return s;
  const SyntheticWorkloadSpec& spec = w.synthetic;
  const bool synthetic = w.trace.empty();
  const bool preset_unused =
      !spec.lengths_trace.empty() || (!spec.input_lengths.empty() && !spec.output_lengths.empty());
  PlanWorkload out;
  out.set_source(!synthetic ? "trace" : preset_unused ? "lengths" : spec.preset);
  out.set_trace(w.trace);
  // A length table given as --trace takes the synthetic arrival process, as simulate does.
  const bool generated_arrivals = synthetic || w.trace_without_times;
  out.set_arrival(generated_arrivals ? spec.arrival : "trace");
  out.set_cv(generated_arrivals && spec.arrival == "gamma" ? spec.cv : 0);
  if (synthetic) {
    out.set_input_lengths(spec.input_lengths);
    out.set_output_lengths(spec.output_lengths);
    out.set_lengths(spec.lengths_trace);
  }
  out.set_max_requests(static_cast<int32_t>(synthetic ? spec.num_requests : w.max_requests));
  out.set_seed(spec.seed);
  out.set_text(plan::WorkloadLine(out));
  return out;
}

void SetAssumedProfile(const CostModelRequest& request, PlanCandidate& candidate) {
  absl::StatusOr<CostModelSource> source = ChooseCostModelSource(request);
  if (!source.ok()) {
    // A profile that must load and does not fails the candidate's simulations: no model to name.
    candidate.set_profile(std::string(source.status().message()));
    return;
  }
  if (source->kind == CostModelKind::kRoofline) {
    candidate.set_cost_model("roofline");
    candidate.set_profile(source->reason);
    return;
  }
  const Calibration& calibration = *source->calibration;
  candidate.set_cost_model("calibrated");
  candidate.set_profile(CalibrationLabel(calibration));
  candidate.set_profile_extrapolated(calibration.extrapolated());
  candidate.set_profile_extrapolated_from(calibration.extrapolated_from());
}

}  // namespace infergrid
