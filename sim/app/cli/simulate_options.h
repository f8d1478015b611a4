// Every setting of one `simulate` run, read from its flags once and checked: policy names become
// enums here, ranges are checked here, and a bad value is a usage error naming the flag. The
// simulation's settings are the core's (sim/core/simulator/simulation_settings.h), resolved by
// ResolveSimulation; the options add the files, the format and the SLO. `compare` builds one
// per configuration.
#ifndef INFERGRID_SIM_APP_CLI_SIMULATE_OPTIONS_H_
#define INFERGRID_SIM_APP_CLI_SIMULATE_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hardware/topology.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/speculative_options.h"
#include "sim/app/cli/workload_options.h"
#include "sim/core/simulator/simulation_settings.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/serving/router.h"
#include "sim/core/serving/scheduler.h"
#include "traces/synthetic_workload.h"
#include "traces/trace_reader.h"

namespace infergrid::cli {

// The files `simulate --out=DIR` writes (--outputs).
struct OutputSelection {
  bool summary = true;  // summary.json
  bool requests = true;  // requests.csv
  bool iterations = true;  // iterations.csv
  bool timeline = true;  // timeline.pftrace (timeline.json with timeline_json)
  bool timeline_json = false;  // --timeline-format=json
  bool fleet = false;  // fleet.csv (opt-in)
  bool zstd = false;  // --compress=zstd: requests.csv.zst, iterations.csv.zst
  std::string RequestsFile() const { return zstd ? "requests.csv.zst" : "requests.csv"; }
  std::string IterationsFile() const { return zstd ? "iterations.csv.zst" : "iterations.csv"; }
  std::string TimelineFile() const { return timeline_json ? "timeline.json" : "timeline.pftrace"; }
  // "summary.json, requests.csv, ..." in that order, for the closing line.
  std::string FileList() const;
};

// The settings of one `simulate` run (sim/core/simulator/simulation_settings.h) and what only
// the product needs: the files to write, the output format, the SLO the summary checks.
struct SimulateOptions : SimulationSettings {
  double slo_ttft_s = 0;  // 0: no limit
  double slo_tpot_s = 0;
  std::string out_dir;  // empty: no files
  OutputSelection outputs;
  std::string report_path;  // --report: an HTML report of the run (empty: none)
  bool json = false;  // --format=json
  bool progress = false;  // a progress line on stderr (a terminal, not --quiet)
  int64_t timeline_max_iterations = 200000;
  double fleet_window_s = 60;  // fleet.csv's window, seconds of simulated time
  bool record_wall_time = true;
  // The flags that differ from their defaults, as a command line that reruns the simulation.
  std::string command_line;
};

// Reads and checks every simulate flag. Usage errors (exit 2) name the flag; a trace that
// cannot be read or a model/GPU file that does not parse is bad input (exit 1).
absl::StatusOr<SimulateOptions> ReadSimulateOptions(const FlagValues& flags);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_SIMULATE_OPTIONS_H_
