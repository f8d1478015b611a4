// `infergrid sweep`: many simulations of one base experiment along the axes of a spec
// (docs/sweep.md).
//   infergrid sweep --spec=SWEEP.textproto --out=DIR [--jobs=N] [--shard=I/N]
// checks the whole spec (every point as `simulate` would) before anything runs, then runs this
// shard's runs not done yet, each in its own process, and rebuilds DIR/results.csv and
// DIR/results.jsonl from the run folders. Exit 1 if a run failed.
//   infergrid sweep merge [--out=DIR] DIR...
// rebuilds the results of the shards' folders of one sweep together (into --out, else the
// first DIR). Exit 1 if a run failed or is missing.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/commands/command.h"
#include "sim/app/run/child_process.h"
#include "sim/app/run/sweep_run.h"
#include "sim/app/sweep/point_store.h"
#include "sim/app/sweep/sweep_points.h"
#include "sim/app/sweep/sweep_results.h"
#include "sim/app/sweep/sweep_shard.h"
#include "sim/app/sweep/sweep_spec_reader.h"

namespace infergrid {
namespace {

// sweep's own flags.
struct SweepFlags {
  std::string spec;
  std::string shard;
  std::string out;
};

const cli::FlagGroup<SweepFlags>& SweepFlagGroup() {
  static const cli::FlagGroup<SweepFlags>* group =
      &(*new cli::FlagGroup<SweepFlags>())
           .Add("spec", &SweepFlags::spec, "the sweep spec, a SweepSpec textproto (docs/sweep.md)")
           .Add("shard", &SweepFlags::shard,
                "run shard I of N (\"I/N\"); default: SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT, else "
                "JOB_COMPLETION_INDEX of JOB_COMPLETIONS (Kubernetes), else the whole sweep")
           .Add(
               "out", &SweepFlags::out,
               "the sweep's folder: a folder per run and results.csv (sweep merge: where to write the merged results)");
  return *group;
}

absl::StatusOr<sweep::Shard> ShardOf(const cli::FlagValues& flags) {
  const SweepFlags sweep_flags = SweepFlagGroup().Read(flags);
  const std::string text = sweep_flags.shard;
  if (!text.empty()) return sweep::ParseShard(text);
  return sweep::ShardFromEnvironment([](const char* name) { return std::getenv(name); });
}

absl::Status Run(const cli::FlagValues& flags, std::ostream& out) {
  const SweepFlags sweep_flags = SweepFlagGroup().Read(flags);
  const cli::SimulateFlags simulate_flags = cli::SimulateFlagGroup().Read(flags);
  const std::string spec_path = sweep_flags.spec;
  const std::string dir = sweep_flags.out;
  if (spec_path.empty()) return cli::UsageError("--spec=FILE is required (the sweep spec, a textproto)");
  if (dir.empty()) return cli::UsageError("--out=DIR is required (the sweep's folder)");
  absl::StatusOr<int> jobs = JobsFromFlags(flags);
  if (!jobs.ok()) return jobs.status();
  absl::StatusOr<sweep::Shard> shard = ShardOf(flags);
  if (!shard.ok()) return shard.status();

  // Everything is checked before the folder is touched: a bad spec writes nothing.
  absl::StatusOr<sweep::SweepDesign> design = sweep::ReadSweepSpec(spec_path);
  if (!design.ok()) return design.status();
  absl::StatusOr<sweep::ExpandedSweep> expanded = sweep::ExpandSweep(*design);
  if (!expanded.ok()) return expanded.status();
  if (absl::Status s = CheckSweepPoints(*design, *expanded); !s.ok()) return s;

  absl::StatusOr<sweep::PointStore> store = sweep::PointStore::Open(dir, /*create=*/true);
  if (!store.ok()) return store.status();
  if (absl::Status s = store->WriteManifest(expanded->manifest); !s.ok()) return s;
  SweepRunOptions options;
  options.jobs = *jobs;
  options.shard = *shard;
  if (!simulate_flags.quiet) {
    options.progress = stderr;
    options.terminal = isatty(STDERR_FILENO) != 0;
  }
  absl::StatusOr<SweepRunStats> stats = RunSweepRuns(*expanded, *store, options);
  if (!stats.ok()) return stats.status();
  absl::StatusOr<sweep::SweepResults> results = sweep::CollectResults(expanded->manifest, {&*store});
  if (!results.ok()) return results.status();
  if (absl::Status s = sweep::WriteResults(*store, *results); !s.ok()) return s;

  const std::string which = shard->count > 1 ? absl::StrCat(" of shard ", shard->index, "/", shard->count) : "";
  if (stats->failed > 0) {
    return absl::AbortedError(absl::StrCat(stats->failed, " of ", stats->runs, " runs", which,
                                           " failed (each has its error in ", dir,
                                           "/points/<hash>/error.txt; results.csv marks them); rerun to retry them"));
  }
  out << "sweep: " << stats->runs << (stats->runs == 1 ? " run" : " runs") << which << ": " << stats->ran << " ran, "
      << stats->skipped << " done before, " << stats->failed << " failed (" << options.jobs << " jobs)\n"
      << "wrote " << dir << "/results.csv and results.jsonl: " << results->ok << " rows";
  if (results->missing > 0) out << " (" << results->missing << " runs of other shards not done yet)";
  out << "\n";
  return absl::OkStatus();
}

absl::Status Merge(const cli::FlagValues& flags, const std::vector<std::string>& dirs, std::ostream& out) {
  const SweepFlags sweep_flags = SweepFlagGroup().Read(flags);
  if (dirs.empty()) return cli::UsageError("sweep merge: expected the sweep folders to merge (DIR...)");
  std::vector<sweep::PointStore> stores;
  std::vector<const sweep::PointStore*> pointers;
  std::optional<SweepManifest> manifest;
  for (const std::string& dir : dirs) {
    absl::StatusOr<sweep::PointStore> store = sweep::PointStore::Open(dir, /*create=*/false);
    if (!store.ok()) return store.status();
    absl::StatusOr<SweepManifest> own = store->ReadManifest();
    if (!own.ok()) return own.status();
    if (!manifest) {
      manifest = *own;
    } else if (own->sweep_id() != manifest->sweep_id()) {
      return absl::InvalidArgumentError(absl::StrCat(dir, ": another sweep (", own->spec(), ", sweep_id ",
                                                     own->sweep_id(), ") than ", dirs[0], " (", manifest->spec(),
                                                     ", sweep_id ", manifest->sweep_id(), ")"));
    }
    stores.push_back(*std::move(store));
  }
  for (const sweep::PointStore& store : stores) pointers.push_back(&store);
  const std::string out_dir = sweep_flags.out.empty() ? dirs[0] : sweep_flags.out;
  absl::StatusOr<sweep::SweepResults> results = sweep::CollectResults(*manifest, pointers);
  if (!results.ok()) return results.status();
  absl::StatusOr<sweep::PointStore> target = sweep::PointStore::Open(out_dir, /*create=*/true);
  if (!target.ok()) return target.status();
  if (absl::Status s = target->WriteManifest(*manifest); !s.ok()) return s;
  if (absl::Status s = sweep::WriteResults(*target, *results); !s.ok()) return s;
  if (results->failed > 0 || results->missing > 0) {
    return absl::AbortedError(absl::StrCat("merged ", results->ok + results->failed, " of ", manifest->runs_size(),
                                           " rows into ", out_dir, "/results.csv: ", results->failed, " failed, ",
                                           results->missing, " missing"));
  }
  out << "merged " << results->ok << " rows from " << dirs.size() << " folder" << (dirs.size() == 1 ? "" : "s")
      << " into " << out_dir << "/results.csv and results.jsonl\n";
  return absl::OkStatus();
}

absl::Status RunSweep(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const std::vector<std::string>& positional = command_line.positional;
  if (!positional.empty() && positional[0] == "merge") {
    for (const char* flag : {"spec", "jobs", "shard"}) {
      if (command_line.flags.IsSet(flag)) return cli::UsageError(absl::StrCat("sweep merge takes no --", flag));
    }
    return Merge(command_line.flags, std::vector<std::string>(positional.begin() + 1, positional.end()), out);
  }
  if (!positional.empty()) {
    return cli::UsageError(absl::StrCat("sweep takes no arguments but `merge DIR...`, got '", positional[0], "'"));
  }
  return Run(command_line.flags, out);
}

}  // namespace

const Command& SweepCommand() {
  static const Command* command = new Command{
      "sweep", "run a sweep spec's simulations in parallel, resumable and sharded; `sweep merge` joins shards",
      cli::CommandFlags()
          .Take(SweepFlagGroup(), {"spec", "out"})
          .Take(JobsFlagGroup())
          .Take(SweepFlagGroup(), {"shard"})
          .Take(cli::SimulateFlagGroup(), {"quiet"}),
      &RunSweep};
  return *command;
}

}  // namespace infergrid
