// From checked settings to a runnable simulation: the engine personality (its memory rule and
// its execution), the deployment (TP inside a node or NVLink domain, heads divisible), the
// memory plan with the engine's limits (the user's, else the engine's defaults; the KV capacity
// `infergrid memory --engine` prints for the same flags), the scheduler (the user's, else the
// engine's batch policy), the execution policy (CUDA-graph sizes, multi-step), the engine
// configuration and the cost-model request (with the engine's host time and all-reduce).
// Engine defaults and physics the settings leave open are decided here, once, for every caller
// (simulate, bench, compare, plan, sweep, Python). Errors: a setting that cannot run is a
// UsageError naming its flag; a model that does not fit is FailedPrecondition.
#ifndef INFERGRID_SIM_CORE_SIMULATOR_SIMULATION_SETUP_H_
#define INFERGRID_SIM_CORE_SIMULATOR_SIMULATION_SETUP_H_

#include <string>

#include "absl/status/statusor.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/engine/simulation.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/personality/engine_personality.pb.h"
#include "sim/core/simulator/simulation_settings.h"

namespace infergrid {

struct SimulationSetup {
  GpuSpec gpu;  // each GPU of the deployment
  EnginePersonality personality;
  MemoryPlan memory_plan;
  // The engine's settings; Simulate completes them with what the cost model decides (the
  // all-reduce latency) and the run's seed.
  EngineConfig engine;
  CostModelRequest cost_request;
  // Which personality runs a version that has none of its own ("vllm-v1@0.15.1 runs on
  // personality vllm-v1@0.11 ..."); empty when the engine setting names a personality.
  std::string engine_note;
  std::string title;  // "Llama-3-8B on 1 x NVIDIA H100 SXM 80GB"
};

absl::StatusOr<SimulationSetup> ResolveSimulation(const SimulationSettings& settings);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SIMULATOR_SIMULATION_SETUP_H_
