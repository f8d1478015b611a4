#include "sim/core/cost/host_time_model.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "calibration/host_profile.h"

namespace infergrid {

namespace {

// Without overlap, phases placed under a forward move to execution.placement_without_overlap.
HostPlacement WithOverlap(HostPlacement placement, const ExecutionModel& execution, bool overlap) {
  if (overlap || (placement != UNDER_GPU && placement != UNDER_NEXT_STEP)) return placement;
  return execution.placement_without_overlap() != HOST_PLACEMENT_UNSPECIFIED ? execution.placement_without_overlap()
                                                                             : AFTER_GPU;
}

}  // namespace

absl::StatusOr<HostTimeModel> HostTimeModel::Create(const ExecutionModel& execution, const HostCalibration& calibration,
                                                    const HostTimeOptions& options) {
  if (!(options.host_speed > 0)) return absl::InvalidArgumentError("the host speed must be positive");
  HostTimeModel model;
  for (const HostPhaseUse& use : execution.host()) {
    const HostPhase* fitted = FindHostPhase(calibration, use.phase());
    if (fitted == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("host phase '", use.phase(), "' is not in host calibration '", calibration.name(), "'"));
    }
    if (use.placement() == HOST_PLACEMENT_UNSPECIFIED) {
      return absl::InvalidArgumentError(absl::StrCat("host phase '", use.phase(), "' has no placement"));
    }
    Phase p;
    const double scale = (use.relative_cost() > 0 ? use.relative_cost() : 1.0) / options.host_speed;
    // The TP term is a fixed cost of the step when the engine drives several GPUs.
    p.base_s = (fitted->base_s() + (options.tensor_parallel > 1 ? fitted->tensor_parallel_s() : 0)) * scale;
    const double vocabulary =
        use.vocabulary_term() ? static_cast<double>(options.vocab_size) : calibration.reference_vocab_size();
    const double vocabulary_s = fitted->per_sequence_vocab_s() * vocabulary * scale;
    p.placement = WithOverlap(use.placement(), execution, options.overlap);
    if (options.multi_step && use.per_sequence_placement_multi_step() != HOST_PLACEMENT_UNSPECIFIED) {
      p.per_sequence_s = vocabulary_s;
      p.moved_per_sequence_s = fitted->per_sequence_s() * scale;
      p.moved_placement = WithOverlap(use.per_sequence_placement_multi_step(), execution, options.overlap);
    } else {
      p.per_sequence_s = fitted->per_sequence_s() * scale + vocabulary_s;
    }
    p.once_per_schedule = use.once_per_schedule();
    model.phases_.push_back(p);
  }
  return model;
}

HostTimes HostTimeModel::Times(const BatchShape& batch) const {
  HostTimes t;
  const double sequences = static_cast<double>(batch.sequences());
  for (const Phase& p : phases_) {
    if (p.once_per_schedule && !batch.schedules) continue;
    // A fitted line can go below zero at small batches (launch has a small negative slope).
    Add(p.placement, std::max(0.0, p.base_s + p.per_sequence_s * sequences), t);
    if (p.moved_per_sequence_s != 0) Add(p.moved_placement, std::max(0.0, p.moved_per_sequence_s * sequences), t);
  }
  return t;
}

void HostTimeModel::Add(HostPlacement placement, double seconds, HostTimes& t) {
  switch (placement) {
    case BEFORE_GPU: t.before_s += seconds; break;
    case AFTER_GPU: t.after_s += seconds; break;
    case UNDER_GPU: t.under_gpu_s += seconds; break;
    case UNDER_NEXT_STEP: t.under_next_s += seconds; break;
    default: t.off_path_s += seconds; break;
  }
}

}  // namespace infergrid
