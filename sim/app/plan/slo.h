// A service-level objective as users write it: comma-separated terms METRIC_STAT<=LIMIT, e.g.
// `ttft_p99<=2s,tpot_p99<=100ms,e2e_p90<=20s`. METRIC is a latency summary.json reports (ttft,
// tpot, itl, e2e, queueing), STAT one of its statistics (mean, p50, p90, p95, p99, p99_9, max),
// LIMIT a duration with its unit (s, ms, us). `<` reads as `<=`: the simulator's latencies are
// continuous, the difference never decides anything.
#ifndef INFERGRID_SIM_APP_PLAN_SLO_H_
#define INFERGRID_SIM_APP_PLAN_SLO_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/app/plan/plan_result.pb.h"
#include "sim/app/results/simulation.pb.h"

namespace infergrid::plan {

// Errors are usage errors naming `flag` and the term.
absl::StatusOr<std::vector<SloTerm>> ParseSlo(absl::string_view text, absl::string_view flag);

// The term's statistic in `summary`, seconds.
double SloValueIn(const SimulationSummary& summary, const SloTerm& term);

// Every term within its limit, at least one request completed and none rejected.
bool MeetsSlo(const SimulationSummary& summary, const std::vector<SloTerm>& slo);

}  // namespace infergrid::plan

#endif  // INFERGRID_SIM_APP_PLAN_SLO_H_
