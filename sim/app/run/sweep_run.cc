#include "sim/app/run/sweep_run.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/app/cli/simulate_options.h"
#include "sim/app/run/child_process.h"
#include "sim/app/run/resolved_simulation.h"
#include "sim/app/run/simulation_run.h"
#include "sim/app/format/json_output.h"
#include "sim/app/sweep/sweep_progress.h"

namespace infergrid {
namespace {

// A run resolved as `simulate` resolves it; no progress line (the sweep shows its own).
absl::StatusOr<ResolvedSimulation> ResolveRunFlags(const cli::FlagValues& flags) {
  absl::StatusOr<cli::SimulateOptions> options = cli::ReadSimulateOptions(flags);
  if (!options.ok()) return options.status();
  options->progress = false;
  return ResolveSimulationOptions(*options);
}

}  // namespace

absl::StatusOr<std::string> SimulateSweepRun(const cli::FlagValues& flags) {
  absl::StatusOr<ResolvedSimulation> resolved = ResolveRunFlags(flags);
  if (!resolved.ok()) return resolved.status();
  absl::StatusOr<SimulationSummary> summary =
      ExecuteSimulation(*resolved, resolved->options.workload.synthetic.seed, /*out=*/nullptr);
  if (!summary.ok()) return summary.status();
  return format::ToJson(*summary);
}

absl::Status CheckSweepPoints(const sweep::SweepDesign& design, const sweep::ExpandedSweep& expanded) {
  // The expansion does not depend on the seed: one check per point.
  for (const int index : expanded.unique_runs) {
    const sweep::ExpandedRun& run = expanded.runs[index];
    if (run.run.replication() != 0) continue;
    absl::StatusOr<ResolvedSimulation> resolved = ResolveRunFlags(run.flags);
    if (!resolved.ok()) return sweep::PointError(design, run, resolved.status());
  }
  return absl::OkStatus();
}

absl::StatusOr<SweepRunStats> RunSweepRuns(const sweep::ExpandedSweep& expanded, const sweep::PointStore& store,
                                           const SweepRunOptions& options) {
  SweepRunStats stats;
  std::vector<int> todo;
  for (size_t k = 0; k < expanded.unique_runs.size(); ++k) {
    if (!options.shard.Owns(static_cast<int64_t>(k))) continue;
    const sweep::ExpandedRun& run = expanded.runs[expanded.unique_runs[k]];
    ++stats.runs;
    if (store.StateOf(run.run) == sweep::RunState::kDone) {
      if (absl::Status s = store.CheckSameRun(run.run); !s.ok()) return s;
      ++stats.skipped;
    } else {
      todo.push_back(expanded.unique_runs[k]);
    }
  }
  std::optional<sweep::SweepProgress> progress;
  if (options.progress != nullptr) progress.emplace(options.progress, options.terminal, stats.runs, stats.skipped);
  auto done = [&] { return stats.skipped + stats.ran; };

  ConcurrentRuns runs;
  runs.count = todo.size();
  runs.jobs = options.jobs;
  runs.prepare = [&](size_t i) { return store.PrepareRun(expanded.runs[todo[i]].run); };
  runs.body = [&](size_t i) { return SimulateSweepRun(expanded.runs[todo[i]].flags); };
  runs.finished = [&](size_t i, absl::StatusOr<std::string> summary) {
    const SweepRun& run = expanded.runs[todo[i]].run;
    ++stats.ran;
    if (summary.ok()) return store.RecordSuccess(run, *summary);
    ++stats.failed;
    return store.RecordFailure(run, std::string(summary.status().message()));
  };
  // Every second at least, so that a terminal's elapsed time keeps ticking.
  runs.tick = [&] {
    if (progress) progress->Update(done(), stats.failed);
  };
  if (absl::Status s = RunConcurrently(runs); !s.ok()) return s;
  if (progress) progress->Finish(done(), stats.failed);
  return stats;
}

}  // namespace infergrid
