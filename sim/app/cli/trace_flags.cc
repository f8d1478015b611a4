#include "sim/app/cli/trace_flags.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "sim/app/cli/command_line.h"

ABSL_FLAG(std::string, trace, "", "request trace file (format detected from its header)");
ABSL_FLAG(std::string, trace_format, "auto",
          "trace format: auto, azure, burstgpt, mooncake, vidur, lengths or infergrid");
ABSL_FLAG(std::string, on_bad_row, "fail",
          "a malformed trace row: fail (stop with file:line:column) or skip (count it per reason)");
ABSL_FLAG(std::string, model_filter, "", "BurstGPT: keep only rows whose Model column is this");

namespace infergrid::cli {

const std::vector<absl::string_view>& TraceFlagNames() {
  static const std::vector<absl::string_view> names = {"trace", "trace_format", "on_bad_row",
                                                       "model_filter"};
  return names;
}

absl::StatusOr<TraceOptions> ResolveTraceOptions(const FlagValues& flags) {
  TraceOptions options;
  options.format = flags.Get(FLAGS_trace_format);
  static constexpr absl::string_view kFormats[] = {"auto",   "azure",   "burstgpt", "mooncake",
                                                   "vidur",  "lengths", "infergrid"};
  bool known = false;
  for (absl::string_view f : kFormats) known = known || options.format == f;
  if (!known) {
    return UsageError(absl::StrCat("--trace-format: expected auto, azure, burstgpt, mooncake, "
                                   "vidur, lengths or infergrid, got '", options.format, "'"));
  }
  const std::string on_bad_row = flags.Get(FLAGS_on_bad_row);
  if (on_bad_row != "fail" && on_bad_row != "skip") {
    return UsageError(absl::StrCat("--on-bad-row: expected fail or skip, got '", on_bad_row, "'"));
  }
  options.skip_bad_rows = on_bad_row == "skip";
  options.model_filter = flags.Get(FLAGS_model_filter);
  return options;
}

}  // namespace infergrid::cli
