// A `simulate` run as the product runs it: the checked options (the core's settings plus the
// files and format), the setup the core resolves from them (sim/core/simulator/
// simulation_setup.h) and the configuration echo of summary.json, read from the same members.
#ifndef INFERGRID_SIM_APP_RUN_RESOLVED_SIMULATION_H_
#define INFERGRID_SIM_APP_RUN_RESOLVED_SIMULATION_H_

#include "absl/status/statusor.h"
#include "sim/app/cli/simulate_options.h"
#include "sim/app/results/simulation.pb.h"
#include "sim/core/simulator/simulation_setup.h"

namespace infergrid {

struct ResolvedSimulation {
  cli::SimulateOptions options;
  SimulationSetup setup;
  SimulationConfig config;  // the echo in summary.json (seed set per run)
};

// ResolveSimulation, and the echo of what it resolved.
absl::StatusOr<ResolvedSimulation> ResolveSimulationOptions(const cli::SimulateOptions& options);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_RUN_RESOLVED_SIMULATION_H_
