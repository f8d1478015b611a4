// `infergrid simulate`: replays a workload (a trace or a synthetic preset) through the serving
// model on SimGrid and prints the latency table (or summary JSON with --format=json); with
// --out=DIR also writes summary.json, requests.csv, iterations.csv and timeline.pftrace there
// (or the ones --outputs names), all or nothing; with --report=FILE also an HTML report of the run
// (simulation_report.h), committed with them.
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/interrupt_cleanup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/commands/command.h"
#include "sim/app/cli/simulate_options.h"
#include "sim/app/run/resolved_simulation.h"
#include "sim/app/run/simulation_report.h"
#include "sim/app/run/simulation_run.h"
#include "sim/app/format/json_output.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/output/output_dir.h"
#include "sim/app/output/summary_table.h"

namespace infergrid {
namespace {

absl::Status RunSimulate(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const std::vector<std::string>& positional = command_line.positional;
  if (!positional.empty()) {
    return cli::UsageError(absl::StrCat("simulate takes no arguments, got '", positional[0], "'"));
  }
  absl::StatusOr<cli::SimulateOptions> options = cli::ReadSimulateOptions(command_line.flags);
  if (!options.ok()) return options.status();
  absl::StatusOr<ResolvedSimulation> resolved = ResolveSimulationOptions(*options);
  if (!resolved.ok()) return resolved.status();
  const cli::SimulateOptions& o = resolved->options;
  std::optional<OutputDir> dir;
  if (!o.out_dir.empty()) {
    absl::StatusOr<OutputDir> opened = OutputDir::Open(o.out_dir);
    if (!opened.ok()) return opened.status();
    dir.emplace(*std::move(opened));
  }
  const std::string& report_path = o.report_path;
  std::optional<report::StagedFile> report;  // committed after --out's files
  absl::StatusOr<SimulationSummary> summary =
      report_path.empty() ? ExecuteSimulation(*resolved, o.workload.synthetic.seed, dir ? &*dir : nullptr)
                          : ExecuteSimulationWithReport(*resolved, o.workload.synthetic.seed, dir ? &*dir : nullptr,
                                                        report_path, &report);
  if (!summary.ok()) return summary.status();
  {
    CommitSection committing;  // SIGINT/SIGTERM wait until --out's files and the report are in place
    if (dir) {
      if (absl::Status s = dir->Commit(); !s.ok()) return s;
    }
    if (report) {
      if (absl::Status s = report->Commit(); !s.ok()) return s;
    }
  }
  if (o.json) {
    out << format::ToJson(*summary);
  } else {
    out << RenderSummaryTable(*summary, resolved->setup.title);
    if (dir) {
      out << "wrote " << o.out_dir << "/{" << o.outputs.FileList() << "}\n";
    }
    if (report) out << "wrote " << report_path << "\n";
  }
  return absl::OkStatus();
}

}  // namespace

const Command& SimulateCommand() {
  static const Command* command = new Command{
      "simulate", "replay a trace or synthetic workload through the serving model (SimGrid)",
      cli::CommandFlags().TakeAll(cli::SimulationFlags()).Take(cli::SimulateFlagGroup(), {"report"}), &RunSimulate};
  return *command;
}

}  // namespace infergrid
