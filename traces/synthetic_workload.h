// Synthetic workloads: an arrival process combined with a length distribution, from named
// presets fitted to the real traces (see README "Workloads and trace formats" for the fitted
// parameters). Deterministic: every random stream is derived from spec.seed (std::mt19937_64).
#ifndef INFERGRID_TRACES_SYNTHETIC_WORKLOAD_H_
#define INFERGRID_TRACES_SYNTHETIC_WORKLOAD_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "traces/arrival_process.h"
#include "traces/request.h"

namespace infergrid {

// Named presets fitted to the real traces: azure-conv, azure-code, mooncake-conv, sharegpt, arxiv.
// arrival: "poisson", "gamma" (with cv) or "constant" (evenly spaced); rate_per_s > 0; num_requests > 0; every stream seeded
// from seed (std::mt19937_64).
// Beyond those: arrival "piecewise" (rate_schedule: "DURATION_S:RELATIVE_RATE,...", repeated,
// scaled to a mean of rate_per_s) and "replay" (replay_trace's inter-arrivals scaled to
// rate_per_s); the preset's lengths can be replaced per column (input_lengths /
// output_lengths: fixed:N, uniform:LO:HI, lognormal:MU:SIGMA, zipf:S:MAX) or as pairs
// resampled from a trace (lengths_trace). The preset may also be a WorkloadPreset .textproto.
// Arrivals and lengths draw from separate streams: changing one leaves the other unchanged.
struct SyntheticWorkloadSpec {
  std::string preset = "azure-conv";
  std::string arrival = "poisson";
  double rate_per_s = 1.0;
  double cv = 1.0;
  int64_t num_requests = 1000;
  uint64_t seed = 0;
  std::string rate_schedule;  // arrival == "piecewise"
  std::string replay_trace;  // arrival == "replay"
  std::string input_lengths;  // "" keeps the preset's
  std::string output_lengths;  // "" keeps the preset's
  std::string lengths_trace;  // non-empty: resample (input, output) pairs from this trace
};

absl::StatusOr<std::unique_ptr<RequestSource>> MakeSyntheticWorkload(const SyntheticWorkloadSpec& spec);

// The spec's arrival process alone (arrival, rate_per_s, cv, rate_schedule, replay_trace, seed):
// the times a length table without its own receives.
absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakeSyntheticArrivals(const SyntheticWorkloadSpec& spec);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_SYNTHETIC_WORKLOAD_H_
