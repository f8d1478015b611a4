// `infergrid trace stats|convert|sample|fit`: what a trace holds, conversion to InferGrid's own
// format (optionally sorted), cutting a time window or a request count, and fitting a workload
// preset. One Command; the first positional argument names the subcommand.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/atomic_file.h"
#include "google/protobuf/text_format.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/trace_flags.h"
#include "sim/app/commands/command.h"
#include "sim/app/format/json_output.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"
#include "traces/preset_fit.h"
#include "traces/trace_stats.pb.h"
#include "traces/trace_statistics.h"
#include "traces/trace_writer.h"

namespace infergrid {
namespace {

// trace's own flags.
struct TraceCommandFlags {
  std::string output;
  bool sort = false;
  double start_s = 0;
  double end_s = 0;
  int64_t requests = 0;
  std::string preset_name;
};

const cli::FlagGroup<TraceCommandFlags>& TraceCommandFlagGroup() {
  static const cli::FlagGroup<TraceCommandFlags>* group =
      &(*new cli::FlagGroup<TraceCommandFlags>())
           .Add("output", &TraceCommandFlags::output,
                "trace convert/sample: the InferGrid-format file to write; "
                "trace fit: the .textproto to write (default: stdout)")
           .Add("sort", &TraceCommandFlags::sort,
                "trace convert: sort rows by arrival (in memory) instead of "
                "rejecting out-of-order rows")
           .Add("start_s", &TraceCommandFlags::start_s,
                "trace sample: keep arrivals at or after this time (s from the first)")
           .Add("end_s", &TraceCommandFlags::end_s, "trace sample: keep arrivals before this time (0: no end)")
           .Add("requests", &TraceCommandFlags::requests, "trace sample: keep at most this many requests (0: no limit)")
           .Add("preset_name", &TraceCommandFlags::preset_name,
                "trace fit: the preset's name (default: the file's stem)");
  return *group;
}

using format::Fixed;
using format::Grouped;
using format::Percent;

void AppendSkipsAndWarnings(const TraceStats& s, std::string* out) {
  if (s.skipped() > 0) {
    std::vector<std::pair<std::string, int64_t>> reasons(s.skipped_by_reason().begin(), s.skipped_by_reason().end());
    std::sort(reasons.begin(), reasons.end());
    absl::StrAppend(out, "skipped rows     ", Grouped(static_cast<double>(s.skipped())), " (",
                    absl::StrJoin(reasons, ", ", absl::PairFormatter("=")), ")\n");
  }
  for (const std::string& w : s.warnings()) absl::StrAppend(out, "warning: ", w, "\n");
}

// The stats as a terminal table.
std::string RenderTraceStatsTable(const TraceStats& s) {
  std::string out = absl::StrCat("InferGrid trace stats: ", s.path(), " (", s.format(), ")\n");
  absl::StrAppend(&out, "  requests       ", Grouped(static_cast<double>(s.rows())), "\n");
  if (s.has_timestamps()) {
    absl::StrAppend(&out, "  span           ", Fixed(s.span_s(), 3), " s (", Fixed(s.span_s() / 3600, 2), " h)\n");
    absl::StrAppend(&out, "  mean rate      ", Fixed(s.mean_rate_per_s(), 3), " req/s (",
                    Fixed(60 * s.mean_rate_per_s(), 1), " req/min)\n");
    absl::StrAppend(&out, "  peak rate      ", s.peak_requests_1s(), " req in 1 s (from ",
                    Fixed(s.peak_1s_start_s(), 3), " s); ", s.peak_requests_60s(),
                    " req in 60 s = ", Fixed(s.peak_requests_60s() / 60.0, 3), " req/s (from ",
                    Fixed(s.peak_60s_start_s(), 3), " s)\n");
    absl::StrAppend(&out, "  inter-arrival  CV ", Fixed(s.interarrival_cv(), 3), " (1: Poisson; > 1: burstier)\n");
  } else {
    absl::StrAppend(&out, "  arrivals       none in the file (lengths only)\n");
  }
  absl::StrAppend(&out, "\n");
  format::TextTable table({"tokens", "mean", "min", "p50", "p90", "p99", "max", "total"});
  for (const auto& [name, t] :
       {std::pair<const char*, const TokenStats*>{"input", &s.input()}, {"output", &s.output()}}) {
    table.AddRow({name, Fixed(t->mean(), 1), Grouped(static_cast<double>(t->min())),
                  Grouped(static_cast<double>(t->p50())), Grouped(static_cast<double>(t->p90())),
                  Grouped(static_cast<double>(t->p99())), Grouped(static_cast<double>(t->max())),
                  Grouped(static_cast<double>(t->total()))});
  }
  absl::StrAppend(&out, table.Render());
  if (s.has_prefix()) {
    const PrefixStats& p = s.prefix();
    absl::StrAppend(&out, "\nprefix blocks    ", Grouped(static_cast<double>(p.blocks())),
                    " block ids (512-token blocks) in ", Grouped(static_cast<double>(p.requests_with_blocks())),
                    " requests, ", Grouped(static_cast<double>(p.unique_blocks())), " distinct: reuse ",
                    Percent(p.reuse_fraction()), " (hit ratio of an unbounded prefix cache)\n");
  }
  absl::StrAppend(&out, "\n");
  AppendSkipsAndWarnings(s, &out);
  return out;
}

absl::StatusOr<std::string> TracePath(const cli::FlagValues& flags) {
  const cli::TraceFlags trace_flags = cli::TraceFlagGroup().Read(flags);
  const std::string path = trace_flags.trace;
  if (path.empty()) return cli::UsageError("--trace=FILE is required");
  return path;
}

absl::StatusOr<std::string> OutputPath(const cli::FlagValues& flags) {
  const TraceCommandFlags trace_command_flags = TraceCommandFlagGroup().Read(flags);
  const cli::TraceFlags trace_flags = cli::TraceFlagGroup().Read(flags);
  const std::string path = trace_command_flags.output;
  if (path.empty()) return cli::UsageError("--output=FILE is required (the InferGrid trace to write)");
  if (path == trace_flags.trace) {
    return cli::UsageError("--output must differ from --trace");
  }
  return path;
}

// A trace read from --trace and written to --output in InferGrid's format (convert, sample).
// The reader keeps a pointer to `read`: a TraceCopy stays where it was opened.
struct TraceCopy {
  std::string output;
  TraceReadStats read;
  std::unique_ptr<RequestSource> source;
  std::unique_ptr<TraceWriter> writer;
};

absl::Status OpenTraceCopy(const cli::FlagValues& flags, bool allow_out_of_order, TraceCopy* copy) {
  absl::StatusOr<std::string> path = TracePath(flags);
  if (!path.ok()) return path.status();
  absl::StatusOr<std::string> output = OutputPath(flags);
  if (!output.ok()) return output.status();
  absl::StatusOr<TraceOptions> options = cli::ResolveTraceOptions(flags);
  if (!options.ok()) return options.status();
  options->allow_out_of_order = allow_out_of_order;
  copy->output = *output;
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenTrace(*path, *options, &copy->read);
  if (!source.ok()) return source.status();
  copy->source = *std::move(source);
  absl::StatusOr<std::unique_ptr<TraceWriter>> writer = TraceWriter::Create(copy->output);
  if (!writer.ok()) return writer.status();
  copy->writer = *std::move(writer);
  return absl::OkStatus();
}

std::string Summary(const std::string& verb, int64_t written, const std::string& path, const TraceReadStats& read) {
  TraceStats s;
  s.set_skipped(read.skipped);
  for (const auto& [reason, count] : read.skipped_by_reason) (*s.mutable_skipped_by_reason())[reason] = count;
  for (const std::string& w : read.warnings) s.add_warnings(w);
  std::string out =
      absl::StrCat(verb, " ", Grouped(static_cast<double>(written)), " requests (", read.format, ") to ", path, "\n");
  AppendSkipsAndWarnings(s, &out);
  return out;
}

absl::Status RunStats(const cli::FlagValues& flags, std::ostream& out) {
  absl::StatusOr<bool> json = cli::WantJson(flags);
  if (!json.ok()) return json.status();
  absl::StatusOr<std::string> path = TracePath(flags);
  if (!path.ok()) return path.status();
  absl::StatusOr<TraceOptions> options = cli::ResolveTraceOptions(flags);
  if (!options.ok()) return options.status();
  absl::StatusOr<TraceStats> stats = ComputeTraceStats(*path, *options);
  if (!stats.ok()) return stats.status();
  out << (*json ? format::ToJson(*stats) : RenderTraceStatsTable(*stats));
  return absl::OkStatus();
}

absl::Status RunConvert(const cli::FlagValues& flags, std::ostream& out) {
  const TraceCommandFlags trace_command_flags = TraceCommandFlagGroup().Read(flags);
  const bool sort = trace_command_flags.sort;
  TraceCopy copy;
  if (absl::Status s = OpenTraceCopy(flags, /*allow_out_of_order=*/sort, &copy); !s.ok()) return s;
  TraceWriter& writer = *copy.writer;
  Request request;
  std::vector<Request> all;  // only with --sort
  while (true) {
    absl::StatusOr<bool> more = copy.source->Next(&request);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (sort) {
      all.push_back(request);
    } else if (absl::Status s = writer.Write(request); !s.ok()) {
      return s;
    }
  }
  if (sort && !all.empty()) {
    std::stable_sort(all.begin(), all.end(),
                     [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
    int64_t moved = 0;
    const double origin = all.front().arrival_s;
    for (size_t i = 0; i < all.size(); ++i) {
      moved += all[i].id != static_cast<int64_t>(i);
      all[i].id = static_cast<int64_t>(i);
      all[i].arrival_s -= origin;
      if (absl::Status s = writer.Write(all[i]); !s.ok()) return s;
    }
    copy.read.warnings.push_back(absl::StrCat("sorted by arrival: ", moved, " requests moved"));
  }
  if (absl::Status s = writer.Close(); !s.ok()) return s;
  out << Summary("wrote", writer.rows(), copy.output, copy.read);
  return absl::OkStatus();
}

absl::Status RunSample(const cli::FlagValues& flags, std::ostream& out) {
  const TraceCommandFlags trace_command_flags = TraceCommandFlagGroup().Read(flags);
  const cli::TraceFlags trace_flags = cli::TraceFlagGroup().Read(flags);
  const double start = trace_command_flags.start_s;
  const double end = trace_command_flags.end_s;
  const int64_t limit = trace_command_flags.requests;
  if (!(start >= 0) || !std::isfinite(start)) {
    return cli::UsageError(absl::StrCat("--start-s must be >= 0, got ", start));
  }
  if (!(end >= 0) || !std::isfinite(end) || (end > 0 && end <= start)) {
    return cli::UsageError(absl::StrCat("--end-s must be 0 (no end) or above --start-s, got ", end));
  }
  if (limit < 0) return cli::UsageError(absl::StrCat("--requests must be >= 0, got ", limit));
  TraceCopy copy;
  if (absl::Status s = OpenTraceCopy(flags, /*allow_out_of_order=*/false, &copy); !s.ok()) return s;
  TraceWriter& writer = *copy.writer;
  Request request;
  double origin = -1;
  while (limit == 0 || writer.rows() < limit) {
    absl::StatusOr<bool> more = copy.source->Next(&request);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (request.arrival_s < start) continue;
    if (end > 0 && request.arrival_s >= end) break;  // sorted: nothing later qualifies
    if (origin < 0) origin = request.arrival_s;
    request.arrival_s -= origin;
    request.id = writer.rows();
    if (absl::Status s = writer.Write(request); !s.ok()) return s;
  }
  if (writer.rows() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(trace_flags.trace, ": no request falls in the window [", start, ", ",
                                                   end > 0 ? absl::StrCat(end) : "end", ") s"));
  }
  if (absl::Status s = writer.Close(); !s.ok()) return s;
  out << Summary("wrote", writer.rows(), copy.output, copy.read);
  return absl::OkStatus();
}

absl::Status RunFit(const cli::FlagValues& flags, std::ostream& out) {
  const TraceCommandFlags trace_command_flags = TraceCommandFlagGroup().Read(flags);
  absl::StatusOr<std::string> path = TracePath(flags);
  if (!path.ok()) return path.status();
  absl::StatusOr<TraceOptions> options = cli::ResolveTraceOptions(flags);
  if (!options.ok()) return options.status();
  std::string name = trace_command_flags.preset_name;
  if (name.empty()) {
    name = *path;
    name = name.substr(name.find_last_of('/') + 1);
    name = name.substr(0, name.find('.'));
  }
  absl::StatusOr<WorkloadPreset> preset = FitPreset(*path, *options, name);
  if (!preset.ok()) return preset.status();
  google::protobuf::TextFormat::Printer printer;
  printer.SetUseShortRepeatedPrimitives(true);
  std::string text;
  printer.PrintToString(*preset, &text);
  text = absl::StrCat("# proto-message: infergrid.WorkloadPreset\n# Fitted by `infergrid trace fit --trace=",
                      preset->source(), " --preset-name=", name, "`.\n", text);
  const std::string output = trace_command_flags.output;
  if (output.empty()) {
    out << text;
    return absl::OkStatus();
  }
  // Whole or not at all: a temporary renamed over the path (which also replaces a FIFO there
  // rather than waiting for a reader).
  if (absl::Status s = WriteFileAtomically(output, text); !s.ok()) return s;
  out << "wrote preset " << name << " (" << preset->source_rows() << " requests) to " << output << "\n";
  return absl::OkStatus();
}

absl::Status RunTrace(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const cli::FlagValues& flags = command_line.flags;
  const std::vector<std::string>& positional = command_line.positional;
  if (positional.size() != 1) {
    return cli::UsageError(positional.empty()
                               ? "trace needs a subcommand: stats, convert, sample or fit"
                               : absl::StrCat("trace takes one subcommand, got ", positional.size(), " arguments"));
  }
  const std::string& sub = positional[0];
  if (sub == "stats") return RunStats(flags, out);
  if (sub == "convert") return RunConvert(flags, out);
  if (sub == "sample") return RunSample(flags, out);
  if (sub == "fit") return RunFit(flags, out);
  return cli::UsageError(absl::StrCat("unknown trace subcommand '", sub, "': expected stats, convert, sample or fit"));
}

}  // namespace

const Command& TraceCommand() {
  static const Command* command =
      new Command{"trace", "stats | convert | sample | fit: inspect, convert, cut or fit request traces",
                  cli::CommandFlags()
                      .Take(cli::TraceFlagGroup())
                      .Take(cli::AccountingFlagGroup(), {"format"})
                      .Take(TraceCommandFlagGroup()),
                  &RunTrace};
  return *command;
}

}  // namespace infergrid
