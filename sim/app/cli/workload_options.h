// Where a simulation's requests come from, read from simulate's workload flags and checked: a
// trace (with its rescaling), a synthetic preset, lengths given as flags (--input-len,
// --output-len, --range-ratio) or resampled from a length table (--lengths), and the arrival
// process (--arrival, --rate, --cv) of everything that has no times of its own, a length table
// given as --trace included. `simulate`, `compare`, `plan` and a sweep's runs read it alike.
#ifndef INFERGRID_SIM_APP_CLI_WORKLOAD_OPTIONS_H_
#define INFERGRID_SIM_APP_CLI_WORKLOAD_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "sim/app/cli/flag_values.h"
#include "sim/core/simulator/workload_settings.h"
#include "traces/synthetic_workload.h"
#include "traces/trace_reader.h"

namespace infergrid::cli {

// Reads and checks the workload flags. Usage errors name the flag: a length flag beside
// --trace, --cv with an arrival process other than gamma (--cv other than 1 without --arrival
// means gamma), --arrival or --cv on a trace with its own times, a bad length spec.
absl::Status ReadWorkloadOptions(const FlagValues& flags, WorkloadSettings& w);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_WORKLOAD_OPTIONS_H_
