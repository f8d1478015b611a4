// `simulate --report=FILE`: runs a resolved simulation and builds the run's HTML report (sim/app/report), staged
// but not renamed into place, so that the caller commits it with --out's files: all or nothing.
// The report reads requests.csv and iterations.csv whatever --outputs selects, so the run
// writes its files into a scratch folder under the system's temporary folder, reads them, moves
// the ones --out asked for into `out`, and removes the scratch folder.
#ifndef INFERGRID_SIM_APP_RUN_SIMULATION_REPORT_H_
#define INFERGRID_SIM_APP_RUN_SIMULATION_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "sim/app/run/resolved_simulation.h"
#include "sim/app/output/output_dir.h"
#include "sim/app/report/staged_file.h"
#include "sim/app/results/simulation.pb.h"

namespace infergrid {

// ExecuteSimulation (simulation_run.h), plus the page for `report_path` staged into `report`.
absl::StatusOr<SimulationSummary> ExecuteSimulationWithReport(const ResolvedSimulation& resolved, uint64_t seed,
                                                              OutputDir* out, const std::string& report_path,
                                                              std::optional<report::StagedFile>* report);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_RUN_SIMULATION_REPORT_H_
