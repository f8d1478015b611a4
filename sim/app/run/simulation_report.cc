#include "sim/app/run/simulation_report.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sim/app/run/simulation_run.h"
#include "sim/app/output/buffered_file.h"
#include "sim/app/report/report_builder.h"
#include "sim/app/report/report_inputs.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;

// A folder of its own under the system's temporary folder.
std::string ScratchFolder() {
  static std::atomic<int> count{0};
  return (fs::temp_directory_path() / absl::StrCat("infergrid-report-", getpid(), "-", ++count)).string();
}

// Moves `name`'s temporary from `from` to `to` (a rename, or a copy across file systems).
absl::Status MoveTemporary(OutputDir& from, OutputDir& to, absl::string_view name) {
  const std::string source = from.TempPath(name);
  const std::string target = to.TempPath(name);
  std::error_code error;
  fs::rename(source, target, error);
  if (!error) return absl::OkStatus();
  error.clear();
  fs::copy_file(source, target, fs::copy_options::overwrite_existing, error);
  if (error) return absl::UnavailableError(absl::StrCat(target, ": cannot write: ", error.message()));
  fs::remove(source, error);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SimulationSummary> ExecuteSimulationWithReport(const ResolvedSimulation& resolved, uint64_t seed,
                                                              OutputDir* out, const std::string& report_path,
                                                              std::optional<report::StagedFile>* report) {
  absl::StatusOr<OutputDir> scratch = OutputDir::Open(ScratchFolder());
  if (!scratch.ok()) return scratch.status();
  ResolvedSimulation scratch_run = resolved;
  cli::OutputSelection& files = scratch_run.options.outputs;
  if (out == nullptr) files = {false, false, false, false};
  files.requests = files.iterations = true;
  files.zstd = false;  // the report reads the plain tables; they are compressed as they move
  absl::StatusOr<SimulationSummary> summary = ExecuteSimulation(scratch_run, seed, &*scratch);
  if (!summary.ok()) return summary.status();

  fs::path named = out != nullptr ? fs::path(out->dir()).lexically_normal() : fs::path(report_path);
  if (named.filename().empty()) named = named.parent_path();  // "runs/a/"
  const std::string label = out != nullptr ? named.filename().string() : named.stem().string();
  absl::StatusOr<report::RunInput> run =
      report::ReadRun(out != nullptr ? out->dir() : "this simulate run", label.empty() ? "run" : label, *summary,
                      scratch->TempPath("requests.csv"), scratch->TempPath("iterations.csv"));
  if (!run.ok()) return run.status();
  report::ReportInputs inputs;
  inputs.runs.push_back(*std::move(run));
  absl::StatusOr<report::StagedFile> staged =
      report::StagedFile::Stage(report_path, report::BuildReportPage(inputs), "--report");
  if (!staged.ok()) return staged.status();
  report->emplace(*std::move(staged));

  if (out != nullptr) {
    const cli::OutputSelection& wanted = resolved.options.outputs;
    for (const auto& [selected, name] :
         {std::pair{wanted.summary, std::string("summary.json")}, std::pair{wanted.timeline, wanted.TimelineFile()}}) {
      if (!selected) continue;
      if (absl::Status s = MoveTemporary(*scratch, *out, name); !s.ok()) return s;
    }
    for (const auto& [selected, name, file] :
         {std::tuple{wanted.requests, "requests.csv", wanted.RequestsFile()},
          std::tuple{wanted.iterations, "iterations.csv", wanted.IterationsFile()}}) {
      if (!selected) continue;
      absl::Status s = wanted.zstd ? CompressFile(scratch->TempPath(name), out->TempPath(file))
                                   : MoveTemporary(*scratch, *out, name);
      if (!s.ok()) return s;
    }
  }
  return summary;
}

}  // namespace infergrid
