#include "sim/app/cli/trace_flags.h"

#include "absl/strings/str_cat.h"
#include "sim/app/cli/command_line.h"

namespace infergrid::cli {

const FlagGroup<TraceFlags>& TraceFlagGroup() {
  static const FlagGroup<TraceFlags>* group =
      &(*new FlagGroup<TraceFlags>())
           .Add("trace", &TraceFlags::trace, "request trace file (format detected from its header)")
           .Add("trace_format", &TraceFlags::trace_format,
                "trace format: auto, azure, burstgpt, mooncake, vidur, lengths or infergrid")
           .Add("on_bad_row", &TraceFlags::on_bad_row,
                "a malformed trace row: fail (stop with file:line:column) or skip (count it per reason)")
           .Add("model_filter", &TraceFlags::model_filter, "BurstGPT: keep only rows whose Model column is this");
  return *group;
}

absl::StatusOr<TraceOptions> ResolveTraceOptions(const FlagValues& flags) {
  const TraceFlags trace_flags = TraceFlagGroup().Read(flags);
  TraceOptions options;
  options.format = trace_flags.trace_format;
  static constexpr absl::string_view kFormats[] = {"auto",  "azure",   "burstgpt", "mooncake",
                                                   "vidur", "lengths", "infergrid"};
  bool known = false;
  for (absl::string_view f : kFormats) known = known || options.format == f;
  if (!known) {
    return UsageError(
        absl::StrCat("--trace-format: expected auto, azure, burstgpt, mooncake, "
                     "vidur, lengths or infergrid, got '",
                     options.format, "'"));
  }
  const std::string on_bad_row = trace_flags.on_bad_row;
  if (on_bad_row != "fail" && on_bad_row != "skip") {
    return UsageError(absl::StrCat("--on-bad-row: expected fail or skip, got '", on_bad_row, "'"));
  }
  options.skip_bad_rows = on_bad_row == "skip";
  options.model_filter = trace_flags.model_filter;
  return options;
}

}  // namespace infergrid::cli
