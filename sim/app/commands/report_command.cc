// `infergrid report RUN_DIR... --out=report.html`: one self-contained HTML page (charts, tables,
// the charting library inlined; no network when viewed) from folders that `simulate --out`,
// `compare --out`, `sweep --out` and `plan --out` wrote (or a plan.json). One run folder: its latency distributions, its
// behaviour over time, its resources and memory plan; several: overlaid and differenced; a
// compare folder: its A/B table with the confidence intervals compare computed; a sweep folder:
// metrics against the swept axis and cost against latency, priced from the GPU catalog here
// (sim/app/report cannot see it); a plan: capacity and cost per candidate and the SLO frontier,
// extrapolated GPU profiles marked. Bad input writes nothing (sim/app/report/).
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "hardware/gpu_catalog.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/commands/command.h"
#include "sim/app/format/units.h"
#include "sim/app/report/report_builder.h"
#include "sim/app/report/report_inputs.h"
#include "sim/app/report/staged_file.h"

namespace infergrid {
namespace {

struct ReportFlags {
  std::string out;
};

const cli::FlagGroup<ReportFlags>& ReportFlagGroup() {
  static const cli::FlagGroup<ReportFlags>* group =
      &(*new cli::FlagGroup<ReportFlags>()).Add("out", &ReportFlags::out, "the HTML file to write");
  return *group;
}

absl::Status RunReport(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const ReportFlags report_flags = ReportFlagGroup().Read(command_line.flags);
  if (command_line.positional.empty()) {
    return cli::UsageError(
        "report takes one or more folders written by simulate --out, compare --out, sweep --out or "
        "plan --out (or a plan.json)");
  }
  const std::string path = report_flags.out;
  if (path.empty()) return cli::UsageError("report needs --out=FILE.html, the page to write");
  std::error_code error;
  if (std::filesystem::is_directory(path, error) || path.back() == '/') {
    return cli::UsageError(absl::StrCat("--out=", path, ": names a folder; give the HTML file to write"));
  }
  absl::StatusOr<report::ReportInputs> inputs = report::ReadReportInputs(command_line.positional);
  if (!inputs.ok()) return inputs.status();
  // Each sweep GPU's price, resolved as --gpu is; one that no longer resolves (a spec file moved)
  // has no price, and the page says its points have no cost.
  for (const std::string& gpu : report::SweepGpus(*inputs)) {
    if (absl::StatusOr<GpuSpec> spec = ResolveGpu(gpu); spec.ok())
      inputs->gpu_prices[gpu] = spec->price_usd_per_gpu_hour();
  }
  const std::string page = report::BuildReportPage(*inputs);
  absl::StatusOr<report::StagedFile> staged = report::StagedFile::Stage(path, page, "--out");
  if (!staged.ok()) return staged.status();
  if (absl::Status s = staged->Commit(); !s.ok()) return s;
  out << "wrote " << path << " (" << format::Grouped(static_cast<double>(page.size())) << " bytes)\n";
  return absl::OkStatus();
}

}  // namespace

const Command& ReportCommand() {
  static const Command* command = new Command{
      "report", "an HTML page of charts from simulate, compare, sweep and plan --out folders (self-contained)",
      cli::CommandFlags().Take(ReportFlagGroup()), &RunReport};
  return *command;
}

}  // namespace infergrid
