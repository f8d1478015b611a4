// `simulate` from checked options to a runnable plan: the deployment (TP inside a node, heads
// divisible), the engine's limits (the user's, else the scheduling personality's defaults),
// the memory plan (the KV capacity `infergrid memory --engine` prints for the same flags), the
// engine configuration, the cost-model request and the configuration echo of summary.json.
// Errors: usage errors name the flag; a model that does not fit is FailedPrecondition.
#ifndef INFERGRID_SIM_COMMANDS_SIMULATION_PLAN_H_
#define INFERGRID_SIM_COMMANDS_SIMULATION_PLAN_H_

#include <string>

#include "absl/status/statusor.h"
#include "sim/cli/simulate_options.h"
#include "sim/cost/cost_model_factory.h"
#include "sim/engine/simulation.h"
#include "sim/memory_plan/memory_plan.h"
#include "sim/reports/simulation.pb.h"

namespace infergrid {

// The simulated schedulers (sim/serving/) follow vLLM V0's scheduler; their default limits
// (max_num_seqs, the max_num_batched_tokens floor, block size, admission watermark) come from
// this personality, while --engine chooses the memory plan.
inline constexpr absl::string_view kSchedulingPersonality = "vllm-v0@0.6.5";

struct SimulationPlan {
  cli::SimulateOptions options;
  MemoryPlan memory_plan;
  EngineConfig engine;
  CostModelRequest cost_request;
  SimulationConfig config;            // the echo in summary.json (seed set per run)
  std::string title;                  // "Llama-3-8B on 1 x NVIDIA H100 SXM 80GB"
};

absl::StatusOr<SimulationPlan> ResolveSimulationPlan(const cli::SimulateOptions& options);

}  // namespace infergrid

#endif  // INFERGRID_SIM_COMMANDS_SIMULATION_PLAN_H_
