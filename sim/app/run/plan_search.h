// `infergrid plan`'s capacity search, the part of the run service that runs simulations for a
// plan: each candidate's flags laid over the workload's and checked by resolving one point; then
// the largest arrival rate it sustains within the SLO, or with a target rate the fewest replicas
// that meet it (sim/app/plan/capacity_search.h decides where to probe; this runs the probes).
// A point passes when every SLO term holds, no request is rejected, and the run is stable: an
// overloaded queue that has not yet blown up within the run is caught by running the first half
// of the requests too, because a stable system's queueing delay does not depend on how long it
// runs while an overloaded one's grows with it. Every simulation runs in a child process of its
// own (one SimGrid engine per process).
#ifndef INFERGRID_SIM_APP_RUN_PLAN_SEARCH_H_
#define INFERGRID_SIM_APP_RUN_PLAN_SEARCH_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/app/cli/flag_values.h"
#include "sim/app/plan/candidates.h"
#include "sim/app/plan/capacity_search.h"
#include "sim/app/plan/plan_result.pb.h"
#include "sim/app/plan/slo.h"

namespace infergrid {

// The stability rule: the full run's mean queueing delay may exceed the first half's by this
// factor plus this slack; an overloaded queue doubles it (its delay grows linearly in time).
inline constexpr double kStableGrowth = 1.25;
inline constexpr double kStableSlackS = 0.05;

// What `plan` was asked, checked (plan_command.cc reads it from the flags).
struct PlanSettings {
  std::vector<SloTerm> slo;
  std::vector<plan::Candidate> candidates;
  plan::SearchOptions search;
  double target_rate = 0;
  std::map<std::string, double> prices;
  cli::FlagValues workload;  // the shared simulate flags
  int jobs = 1;
  bool quiet = false;
  bool json = false;
  std::string out;
};

// The candidate's flags over the workload's; checked by resolving one point (usage errors
// end the command before anything runs; a model that does not fit makes it infeasible, recorded
// in `out`). Fills `out`'s deployment, price and profile marks.
absl::StatusOr<cli::FlagValues> CandidateFlags(const PlanSettings& s, const plan::Candidate& c, PlanCandidate& out);

// Searches one candidate (its flags from CandidateFlags) and records the choice in `c`.
absl::Status SearchCandidate(const PlanSettings& s, const cli::FlagValues& flags, PlanCandidate& c);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_RUN_PLAN_SEARCH_H_
