// Runs a resolved simulation (resolved_simulation.h): opens the workload (the trace with its rescaling, or the
// synthetic preset seeded for this run), builds the cost model, runs the engine, and writes the
// files its options select. `simulate` runs it once; `compare` once per configuration and seed,
// each in a child process (one SimGrid engine per process).
#ifndef INFERGRID_SIM_APP_RUN_SIMULATION_RUN_H_
#define INFERGRID_SIM_APP_RUN_SIMULATION_RUN_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "sim/app/run/resolved_simulation.h"
#include "sim/app/output/output_dir.h"
#include "sim/app/results/simulation.pb.h"

namespace infergrid {

// Runs `resolved` with the workload seeded by `seed`. With `out`, writes the files
// resolved.options.outputs selects (summary.json, requests.csv, iterations.csv, the timeline) as
// temporaries there (the caller commits).
absl::StatusOr<SimulationSummary> ExecuteSimulation(const ResolvedSimulation& resolved, uint64_t seed, OutputDir* out);

// ExecuteSimulation without files, in a child process of its own (one SimGrid engine per
// process), for commands that run several simulations (`compare`, `plan`).
absl::StatusOr<SimulationSummary> ExecuteSimulationInChild(const ResolvedSimulation& resolved, uint64_t seed);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_RUN_SIMULATION_RUN_H_
