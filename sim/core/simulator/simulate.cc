#include "sim/core/simulator/simulate.h"

#include <utility>

namespace infergrid {

absl::StatusOr<SimulationRun> Simulate(const SimulationSetup& setup, uint64_t seed, RequestSource& source,
                                       const RunRecording& recording) {
  absl::StatusOr<CostModelChoice> cost = MakeCostModel(setup.cost_request);
  if (!cost.ok()) return cost.status();
  SimulationRun run;
  run.engine = setup.engine;
  run.engine.allreduce_latency_s = cost->allreduce_latency_s;
  run.engine.record_chunk_times = recording.record_chunk_times;
  run.engine.on_progress = recording.on_progress;
  // The run's own draws: replications (compare, sweep) differ in their acceptances and noise
  // as well as in their workload.
  if (run.engine.execution.has_value()) run.engine.execution->speculation.seed = seed;
  run.engine.noise.seed = seed;
  absl::StatusOr<SimulationResult> result =
      RunSimulation(run.engine, setup.settings.setup.gpu, *cost->model, source, recording.sink);
  if (!result.ok()) return result.status();
  run.result = *std::move(result);
  run.cost = *std::move(cost);
  return run;
}

}  // namespace infergrid
