// The flags every command that reads a request trace shares (`trace`, `simulate`): the file,
// its format, what to do with a bad row, and BurstGPT's model filter. Defined once here so that
// two commands linked into one binary never define the same Abseil flag twice.
#ifndef INFERGRID_SIM_APP_CLI_TRACE_FLAGS_H_
#define INFERGRID_SIM_APP_CLI_TRACE_FLAGS_H_

#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/app/cli/command_line.h"
#include "traces/trace_reader.h"

ABSL_DECLARE_FLAG(std::string, trace);         // --trace=FILE
ABSL_DECLARE_FLAG(std::string, trace_format);  // --trace-format=auto|azure|burstgpt|...
ABSL_DECLARE_FLAG(std::string, on_bad_row);    // --on-bad-row=fail|skip
ABSL_DECLARE_FLAG(std::string, model_filter);  // --model-filter=NAME (BurstGPT)

namespace infergrid::cli {

// "trace", "trace_format", "on_bad_row", "model_filter".
const std::vector<absl::string_view>& TraceFlagNames();

// The reader options from the flags; a bad --trace-format or --on-bad-row is a usage error.
absl::StatusOr<TraceOptions> ResolveTraceOptions(const FlagValues& flags);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_TRACE_FLAGS_H_
