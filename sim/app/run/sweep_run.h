// Runs the runs of a sweep: those of this shard that are not done yet, at most `jobs` at once,
// each in a child process of its own (one SimGrid engine per process; ChildProcess), and
// records each result in the sweep's folder as it arrives (point_store.h). A run that fails is
// recorded with its error and the others go on. Killed at any moment, it leaves only whole
// results behind; the next call runs what is missing.
#ifndef INFERGRID_SIM_APP_RUN_SWEEP_RUN_H_
#define INFERGRID_SIM_APP_RUN_SWEEP_RUN_H_

#include <cstdio>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/sweep/point_store.h"
#include "sim/app/sweep/sweep_points.h"
#include "sim/app/sweep/sweep_shard.h"

namespace infergrid {

struct SweepRunOptions {
  int jobs = 1;
  sweep::Shard shard;
  std::FILE* progress = nullptr;  // nullptr: no progress
  bool terminal = false;  // progress as a bar redrawn in place
};

struct SweepRunStats {
  int runs = 0;  // distinct runs of this shard
  int skipped = 0;  // done by an earlier call
  int ran = 0;  // run by this call, failed ones included
  int failed = 0;  // of those, failed (recorded; the next call retries them)
};

// One run's simulation in this process: summary.json's text, or why not. Call it in a child.
absl::StatusOr<std::string> SimulateSweepRun(const cli::FlagValues& flags);

// Whether every distinct point of `expanded` would run: what `simulate` would resolve (memory
// plan, deployment, engine limits) for replication 0 of each. Errors name the spec line.
absl::Status CheckSweepPoints(const sweep::SweepDesign& design, const sweep::ExpandedSweep& expanded);

absl::StatusOr<SweepRunStats> RunSweepRuns(const sweep::ExpandedSweep& expanded, const sweep::PointStore& store,
                                           const SweepRunOptions& options);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_RUN_SWEEP_RUN_H_
