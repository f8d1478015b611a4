// The runs of a sweep design: every point of the product of its dimensions (the first
// dimension varying slowest), at every replication, each read by simulate's own option reader
// (so a point `simulate` would reject is an error before anything runs) and named by the hash
// of its resolved configuration (point_hash.h). Two points that resolve to the same
// configuration (random choices drawn twice, "4" and "4.0") are one run: they share a folder
// and run once.
#ifndef INFERGRID_SIM_APP_SWEEP_SWEEP_POINTS_H_
#define INFERGRID_SIM_APP_SWEEP_SWEEP_POINTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/results/sweep.pb.h"
#include "sim/app/sweep/sweep_spec_reader.h"

namespace infergrid::sweep {

// One run: a point at one replication, with the simulate flags that run it.
struct ExpandedRun {
  SweepRun run;  // also in the manifest
  cli::FlagValues flags;  // base, then the point's settings, then --seed
  std::vector<int> setting_lines;  // the spec line of each of run.settings
};

struct ExpandedSweep {
  SweepManifest manifest;  // runs in order: point-major, replication-minor
  std::vector<ExpandedRun> runs;  // the same order
  std::vector<int> unique_runs;  // indexes into runs: the first run of each hash, in order
};

// Expands and checks `design`. Errors name the spec file and line (point_error below).
absl::StatusOr<ExpandedSweep> ExpandSweep(const SweepDesign& design);

// `error` of `run` as one line: "SPEC:LINE: point 3 (rate=4, max_num_seqs=8): MESSAGE", the
// line of the setting or base flag the message names first, else of the point's first setting.
// Keeps the error's code.
absl::Status PointError(const SweepDesign& design, const ExpandedRun& run, const absl::Status& error);

}  // namespace infergrid::sweep

#endif  // INFERGRID_SIM_APP_SWEEP_SWEEP_POINTS_H_
