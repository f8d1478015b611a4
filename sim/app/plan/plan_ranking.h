// Cost and order of a plan's candidates. A candidate that works gets its cost per hour
// (GPUs x the GPU's hourly price) and per million output tokens at its rate; the working ones
// are ranked 1, 2, ... by cost per million output tokens (max-rate mode: what serving costs
// when the deployment is run at its capacity) or by cost per hour, then per million tokens
// (target-rate mode: what meeting the target costs). Working candidates without a price come
// after the priced ones (by output tokens per GPU), then the infeasible, then the failed, in
// the order they were listed; those have rank 0.
#ifndef INFERGRID_SIM_APP_PLAN_PLAN_RANKING_H_
#define INFERGRID_SIM_APP_PLAN_PLAN_RANKING_H_

#include <vector>

#include "sim/app/plan/plan_result.pb.h"

namespace infergrid::plan {

// Fills usd_per_hour and usd_per_million_output_tokens from gpus, price and output tokens/s.
void AddCosts(PlanCandidate& candidate);

// Sorts (stable) and numbers the candidates as above.
void RankCandidates(std::vector<PlanCandidate>& candidates, bool target_mode);

}  // namespace infergrid::plan

#endif  // INFERGRID_SIM_APP_PLAN_PLAN_RANKING_H_
