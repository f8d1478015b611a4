#include "sim/commands/sweep_run.h"

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/cli/simulate_options.h"
#include "sim/commands/child_process.h"
#include "sim/commands/simulation_plan.h"
#include "sim/commands/simulation_run.h"
#include "sim/format/json_output.h"
#include "sim/sweep/sweep_progress.h"

namespace infergrid {
namespace {

// The plan of a run, as `simulate` resolves it; no progress line (the sweep shows its own).
absl::StatusOr<SimulationPlan> PlanOf(const cli::FlagValues& flags) {
  absl::StatusOr<cli::SimulateOptions> options = cli::ReadSimulateOptions(flags);
  if (!options.ok()) return options.status();
  options->progress = false;
  return ResolveSimulationPlan(*options);
}

struct Active {
  int run;  // index into plan.runs
  ChildProcess child;
};

}  // namespace

absl::StatusOr<std::string> SimulateSweepRun(const cli::FlagValues& flags) {
  absl::StatusOr<SimulationPlan> plan = PlanOf(flags);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<SimulationSummary> summary =
      ExecuteSimulation(*plan, plan->options.workload.synthetic.seed, /*out=*/nullptr);
  if (!summary.ok()) return summary.status();
  return format::ToJson(*summary);
}

absl::Status CheckSweepPoints(const sweep::SweepDesign& design, const sweep::SweepPlan& plan) {
  // The plan does not depend on the seed: one check per point.
  for (const int index : plan.unique_runs) {
    const sweep::PlannedRun& run = plan.runs[index];
    if (run.run.replication() != 0) continue;
    absl::StatusOr<SimulationPlan> resolved = PlanOf(run.flags);
    if (!resolved.ok()) return sweep::PointError(design, run, resolved.status());
  }
  return absl::OkStatus();
}

absl::StatusOr<SweepRunStats> RunSweepRuns(const sweep::SweepPlan& plan, const sweep::PointStore& store,
                                           const SweepRunOptions& options) {
  SweepRunStats stats;
  std::vector<int> todo;
  for (size_t k = 0; k < plan.unique_runs.size(); ++k) {
    if (!options.shard.Owns(static_cast<int64_t>(k))) continue;
    const sweep::PlannedRun& run = plan.runs[plan.unique_runs[k]];
    ++stats.runs;
    if (store.StateOf(run.run) == sweep::RunState::kDone) {
      if (absl::Status s = store.CheckSameRun(run.run); !s.ok()) return s;
      ++stats.skipped;
    } else {
      todo.push_back(plan.unique_runs[k]);
    }
  }
  std::optional<sweep::SweepProgress> progress;
  if (options.progress != nullptr) progress.emplace(options.progress, options.terminal, stats.runs, stats.skipped);
  auto done = [&] { return stats.skipped + stats.ran; };

  std::vector<Active> active;
  size_t next = 0;
  while (next < todo.size() || !active.empty()) {
    while (static_cast<int>(active.size()) < options.jobs && next < todo.size()) {
      const int index = todo[next++];
      const sweep::PlannedRun& run = plan.runs[index];
      if (absl::Status s = store.PrepareRun(run.run); !s.ok()) return s;
      absl::StatusOr<ChildProcess> child =
          ChildProcess::Start([&run]() { return SimulateSweepRun(run.flags); });
      if (!child.ok()) return child.status();  // the machine, not the run: stop
      active.push_back({index, *std::move(child)});
    }
    std::vector<pollfd> fds;
    for (const Active& a : active) fds.push_back({a.child.fd(), POLLIN, 0});
    // A second's timeout keeps a terminal's elapsed time ticking.
    const int ready = poll(fds.data(), fds.size(), 1000);
    if (ready < 0 && errno != EINTR) return absl::InternalError(absl::StrCat("poll: ", std::strerror(errno)));
    std::set<int> finished;  // positions in `active`
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents != 0 && active[i].child.ReadAvailable()) finished.insert(static_cast<int>(i));
    }
    for (auto it = finished.rbegin(); it != finished.rend(); ++it) {
      Active& a = active[static_cast<size_t>(*it)];
      const SweepRun& run = plan.runs[a.run].run;
      absl::StatusOr<std::string> summary = a.child.Finish();
      ++stats.ran;
      absl::Status recorded;
      if (summary.ok()) {
        recorded = store.RecordSuccess(run, *summary);
      } else {
        ++stats.failed;
        recorded = store.RecordFailure(run, std::string(summary.status().message()));
      }
      if (!recorded.ok()) return recorded;
      active.erase(active.begin() + *it);
    }
    if (progress) progress->Update(done(), stats.failed);
  }
  if (progress) progress->Finish(done(), stats.failed);
  return stats;
}

}  // namespace infergrid
