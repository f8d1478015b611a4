// `bench serve --client=aiperf`: NVIDIA aiperf's `aiperf profile` flags read into a bench run
// (github.com/ai-dynamo/aiperf at db4f6397, 2025-10-10: docs/cli_options.md and
// aiperf/common/config/*.py).
// Modelled: the load (--concurrency, default 1 when no --request-rate is given, as
// user_config.py's validate_timing_mode; --request-rate with --request-rate-mode, default
// poisson; both together: the rate, at most --concurrency in flight), --request-count (default
// 10), --warmup-request-count, the synthetic lengths, --extra-inputs max_tokens, --random-seed,
// --num-dataset-entries (default 100) and --artifact-dir (default
// artifacts/MODEL-openai-ENDPOINT_TYPE-concurrencyN, _compute_artifact_directory). Refused with
// a reason: length spreads, --benchmark-duration, request cancellation, another dataset.
#ifndef INFERGRID_SIM_APP_CLI_AIPERF_OPTIONS_H_
#define INFERGRID_SIM_APP_CLI_AIPERF_OPTIONS_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "sim/app/cli/bench_options.h"
#include "sim/app/cli/flag_values.h"

namespace infergrid::cli {

// The flags only --client=aiperf takes (refused with another client).
const std::vector<absl::string_view>& AiperfOnlyFlagNames();

// Reads aiperf's flags into o (its load, lengths, request counts and artifact folder); usage
// errors name the flag. Appends the extra inputs without effect to o.inert_flags.
absl::Status ReadAiperf(const FlagValues& flags, BenchOptions& o);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_AIPERF_OPTIONS_H_
