// `simulate` from checked options to a runnable plan: the engine personality (--engine: its
// memory rule and its execution), the deployment (TP inside a node, heads divisible), the
// memory plan with the engine's limits (the user's, else the engine's defaults; the KV capacity
// `infergrid memory --engine` prints for the same flags), the scheduler (the user's, else the
// engine's batch policy), the execution policy (CUDA-graph sizes, multi-step), the engine
// configuration, the cost-model request (with the engine's host time and all-reduce) and the
// configuration echo of summary.json. Errors: usage errors name the flag; a model that does
// not fit is FailedPrecondition.
#ifndef INFERGRID_SIM_APP_COMMANDS_SIMULATION_PLAN_H_
#define INFERGRID_SIM_APP_COMMANDS_SIMULATION_PLAN_H_

#include <string>

#include "absl/status/statusor.h"
#include "sim/app/cli/simulate_options.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/engine/simulation.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/personality/engine_personality.pb.h"
#include "sim/app/results/simulation.pb.h"

namespace infergrid {

struct SimulationPlan {
  cli::SimulateOptions options;
  EnginePersonality personality;
  MemoryPlan memory_plan;
  EngineConfig engine;
  CostModelRequest cost_request;
  SimulationConfig config;            // the echo in summary.json (seed set per run)
  // Which personality runs a version that has none of its own ("vllm-v1@0.15.1 runs on
  // personality vllm-v1@0.11 ..."); empty when --engine names a personality.
  std::string engine_note;
  std::string title;                  // "Llama-3-8B on 1 x NVIDIA H100 SXM 80GB"
};

absl::StatusOr<SimulationPlan> ResolveSimulationPlan(const cli::SimulateOptions& options);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_COMMANDS_SIMULATION_PLAN_H_
