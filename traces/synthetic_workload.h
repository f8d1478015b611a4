// Synthetic workloads: an arrival process combined with a length distribution, from named
// presets fitted to the real traces (see README "Workloads and trace formats" for the fitted
// parameters). Deterministic: every random stream is derived from spec.seed (std::mt19937_64).
#ifndef INFERGRID_TRACES_SYNTHETIC_WORKLOAD_H_
#define INFERGRID_TRACES_SYNTHETIC_WORKLOAD_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "traces/request.h"

namespace infergrid {

// Named presets fitted to the real traces: azure-conv, azure-code, mooncake-conv, sharegpt, arxiv.
// arrival: "poisson" or "gamma" (with cv); rate_per_s > 0; num_requests > 0; every stream seeded
// from seed (std::mt19937_64).
struct SyntheticWorkloadSpec {
  std::string preset = "azure-conv";
  std::string arrival = "poisson";
  double rate_per_s = 1.0;
  double cv = 1.0;
  int64_t num_requests = 1000;
  uint64_t seed = 0;
};

absl::StatusOr<std::unique_ptr<RequestSource>> MakeSyntheticWorkload(
    const SyntheticWorkloadSpec& spec);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_SYNTHETIC_WORKLOAD_H_
