#include "sim/core/simulator/simulate.h"

#include <utility>

namespace infergrid {

absl::StatusOr<SimulationRun> Simulate(const SimulationSetup& setup, uint64_t seed, RequestSource& source,
                                       const RunRecording& recording) {
  absl::StatusOr<CostModelChoice> cost = MakeCostModel(setup.cost_request);
  if (!cost.ok()) return cost.status();
  EngineConfig engine = setup.engine;
  engine.allreduce_latency_s = cost->allreduce_latency_s;
  engine.record_chunk_times = recording.record_chunk_times;
  engine.on_progress = recording.on_progress;
  // The run's own draws: replications (compare, sweep) differ in their acceptances and noise
  // as well as in their workload.
  if (engine.execution.has_value()) engine.execution->speculation.seed = seed;
  engine.noise.seed = seed;
  absl::StatusOr<SimulationResult> result = RunSimulation(engine, setup.gpu, *cost->model, source, recording.sink);
  if (!result.ok()) return result.status();
  SimulationRun run;
  run.result = *std::move(result);
  run.cost = *std::move(cost);
  return run;
}

}  // namespace infergrid
