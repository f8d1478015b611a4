// The one way to run a simulation: a resolved setup (simulation_setup.h), one seed, the
// requests and, optionally, a sink for every iteration. Simulate builds the cost model the
// setup asks for, completes the engine's settings with what that model decides (the
// all-reduce latency) and with the seed (every random stream of the run, the speculative
// acceptances and the run-to-run noise, derives from it; OpenWorkload takes the same seed for
// the workload's draws), and runs the engine. simulate, bench, compare, plan, sweep and Python
// all run through it. One SimGrid engine per process (sim/core/engine/simulation.h): a caller
// running several simulations runs each in a process of its own.
#ifndef INFERGRID_SIM_CORE_SIMULATOR_SIMULATE_H_
#define INFERGRID_SIM_CORE_SIMULATOR_SIMULATE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/engine/simulation.h"
#include "sim/core/simulator/simulation_setup.h"
#include "traces/request.h"

namespace infergrid {

struct SimulationRun {
  SimulationResult result;
  CostModelChoice cost;  // the model that priced the run, and why it was chosen
};

// What a run records beyond its log and statistics: `sink`, when given, receives every
// iteration (iterations.csv, the timeline); `record_chunk_times` keeps every request's
// token chunk times in the log (a benchmark client's inter-token latencies); `on_progress`,
// when set, receives the run's progress (sim/core/engine/run_progress.h).
struct RunRecording {
  IterationSink* sink = nullptr;
  bool record_chunk_times = false;
  ProgressCallback on_progress;
};

absl::StatusOr<SimulationRun> Simulate(const SimulationSetup& setup, uint64_t seed, RequestSource& source,
                                       const RunRecording& recording = {});

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SIMULATOR_SIMULATE_H_
