// The searches of `infergrid plan`, over any function that runs a deployment at a rate (the
// command runs `simulate` in child processes; tests may use a known boundary):
//   MaxSustainableRate  the largest arrival rate at which the deployment passes: grows (x2) or
//                       shrinks (/2) from a start rate to bracket the boundary, bisects the
//                       bracket geometrically to a relative width of `tolerance`, then checks
//                       the lower end with every verification seed, stepping down by the
//                       tolerance until all pass;
//   FewestReplicas      the fewest replicas that pass at a target rate, starting from the
//                       target over one replica's sustainable rate and moving one at a time.
// "Passes" means: meets the SLO and is stable (the probe decides both). Passing is assumed to
// be monotone in the rate (more load never helps), which is what makes a bracket meaningful.
#ifndef INFERGRID_SIM_APP_PLAN_CAPACITY_SEARCH_H_
#define INFERGRID_SIM_APP_PLAN_CAPACITY_SEARCH_H_

#include <functional>
#include <string>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace infergrid::plan {

// A run shows a rate only when its arrivals last at least this many of its p99 end-to-end
// latencies: a shorter run at an unsustainable rate ends before its queue has grown (100
// requests read a rate 1.7x the one 1,000 do), and a burst at 1e9 req/s is over before it
// starts. A shorter run is repeated with more requests, up to kMaxPlanRequests.
inline constexpr double kWindowLatencies = 5;
inline constexpr int64_t kMaxPlanRequests = 20000;

struct ProbeResult {
  bool meets_slo = false;
  bool stable = false;
  std::vector<double> slo_values;  // one per SLO term, seconds
  double output_tokens_per_s = 0;
  int32_t simulations = 0;  // simulate runs this probe took
  std::string command_line;  // the simulate flags of this point
  bool shows_rate = true;  // the run's arrivals lasted long enough to show the rate
  bool passes() const { return meets_slo && stable && shows_rate; }
};

// Runs the deployment at `rate` requests/s on `replicas` replicas with verification seed
// `seed_index` (0 = the base seed). An error (a deployment that cannot run) ends the search.
using Probe = std::function<absl::StatusOr<ProbeResult>(double rate, int32_t replicas, int32_t seed_index)>;

struct SearchOptions {
  double start_rate = 1;
  double min_rate = 0.01;
  double max_rate = 10000;
  double tolerance = 0.05;  // the final bracket: hi / lo - 1 <= tolerance
  int32_t verify_seeds = 3;  // seeds that must all pass at the chosen point
  int32_t max_replicas = 64;
};

struct SearchResult {
  bool feasible = false;
  double rate = 0;
  int32_t replicas = 0;
  std::vector<ProbeResult> verified;  // the chosen point, one per verification seed
  int32_t probes = 0;
  int32_t simulations = 0;
  std::string note;  // why infeasible, or that the rate hit --max-rate
  bool last_failure_too_short = false;  // the last failing probe's run could not show its rate
};

absl::StatusOr<SearchResult> MaxSustainableRate(const Probe& probe, int32_t replicas, const SearchOptions& options);

// `one_replica_rate` (> 0) seeds the start: ceil(target / one_replica_rate) replicas.
absl::StatusOr<SearchResult> FewestReplicas(const Probe& probe, double target_rate, double one_replica_rate,
                                            const SearchOptions& options);

}  // namespace infergrid::plan

#endif  // INFERGRID_SIM_APP_PLAN_CAPACITY_SEARCH_H_
