// What `plan` assumes besides its candidates, resolved as `simulate` resolves it: the workload
// every candidate is searched with (read from the shared flags by simulate's own workload
// reader), and the GPU profile each candidate's cost model runs on (ChooseCostModelSource in
// sim/core/cost/cost_model_factory.h, the choice MakeCostModel makes: the calibrated model on the
// bundled or given profile, else the roofline model). sim/app/plan/plan_assumptions.h puts them
// in words.
#ifndef INFERGRID_SIM_APP_RUN_PLAN_ASSUMED_H_
#define INFERGRID_SIM_APP_RUN_PLAN_ASSUMED_H_

#include "absl/status/statusor.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/plan/plan_result.pb.h"
#include "sim/core/cost/cost_model_factory.h"

namespace infergrid {

// The workload of `flags` (plan's whole command line); its errors are simulate's, which every
// candidate's check has already met.
absl::StatusOr<PlanWorkload> AssumedWorkload(const cli::FlagValues& flags);

// Sets the candidate's cost_model, profile, profile_extrapolated and profile_extrapolated_from
// from the cost-model request of its resolved simulation.
void SetAssumedProfile(const CostModelRequest& request, PlanCandidate& candidate);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_RUN_PLAN_ASSUMED_H_
