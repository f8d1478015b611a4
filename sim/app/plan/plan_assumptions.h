// What a plan's numbers rest on besides its candidates, in words for the table and the HTML report:
// the workload every candidate was searched with, and whether a candidate's GPU profile was
// measured on that GPU or extrapolated from another's measurements (docs/plan.md#what-a-plan-assumes).
// Pure functions of the result message; sim/app/run/plan_assumed.h fills the fields.
#ifndef INFERGRID_SIM_APP_PLAN_PLAN_ASSUMPTIONS_H_
#define INFERGRID_SIM_APP_PLAN_PLAN_ASSUMPTIONS_H_

#include <string>

#include "sim/app/plan/plan_result.pb.h"

namespace infergrid::plan {

// One line: "synthetic preset azure-code (its fitted lengths), poisson arrivals at each rate
// searched, 500 requests a run at first, seed 0".
std::string WorkloadLine(const PlanWorkload& workload);

// The table's profile column: "measured", "extrapolated", "roofline" (no profile: datasheet
// peaks), or "-" for a candidate that could not start.
std::string ProfileMark(const PlanCandidate& candidate);

// The note under the table naming the extrapolated GPUs, their sources and what that means for
// accuracy, and the roofline candidates; "" when every candidate runs on a measured profile.
std::string ProfileNote(const PlanResult& result);

}  // namespace infergrid::plan

#endif  // INFERGRID_SIM_APP_PLAN_PLAN_ASSUMPTIONS_H_
