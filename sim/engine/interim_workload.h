// INTERIM, until traces/synthetic_workload.cc (MakeSyntheticWorkload) is in the build: Poisson
// or gamma arrivals at spec.rate_per_s with fixed lengths, the means of the Azure LLM 2023
// conversation trace (1,155 prompt and 211 output tokens), seeded from spec.seed
// (std::mt19937_64). `simulate` switches to the fitted presets when they land.
#ifndef INFERGRID_SIM_ENGINE_INTERIM_WORKLOAD_H_
#define INFERGRID_SIM_ENGINE_INTERIM_WORKLOAD_H_

#include <memory>

#include "traces/request.h"
#include "traces/synthetic_workload.h"

namespace infergrid {

inline constexpr int32_t kInterimPromptTokens = 1155;
inline constexpr int32_t kInterimOutputTokens = 211;

std::unique_ptr<RequestSource> MakeInterimSyntheticWorkload(const SyntheticWorkloadSpec& spec);

}  // namespace infergrid

#endif  // INFERGRID_SIM_ENGINE_INTERIM_WORKLOAD_H_
