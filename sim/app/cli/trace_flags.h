// The flags every command that reads a request trace shares (`trace`, `simulate`): the file,
// its format, what to do with a bad row, and BurstGPT's model filter. Defined once here so that
// two commands linked into one binary never define the same Abseil flag twice.
#ifndef INFERGRID_SIM_APP_CLI_TRACE_FLAGS_H_
#define INFERGRID_SIM_APP_CLI_TRACE_FLAGS_H_

#include <string>
#include <vector>

#include "sim/app/cli/flag_group.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/app/cli/command_line.h"
#include "traces/trace_reader.h"

namespace infergrid::cli {

// The request-trace flags.
struct TraceFlags {
  std::string trace;
  std::string trace_format = "auto";
  std::string on_bad_row = "fail";
  std::string model_filter;
};
const FlagGroup<TraceFlags>& TraceFlagGroup();

// The reader options from the flags; a bad --trace-format or --on-bad-row is a usage error.
absl::StatusOr<TraceOptions> ResolveTraceOptions(const FlagValues& flags);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_TRACE_FLAGS_H_
