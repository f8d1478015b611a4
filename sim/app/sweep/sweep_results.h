// results.csv and results.jsonl of a sweep, rebuilt from the run folders (never appended to),
// so they are complete and free of duplicates however often the sweep was killed, rerun or
// sharded. One row per run of the manifest in its order (point-major, replication-minor):
// results.csv has the run's identity, the varied flags as columns, its status and the main
// metrics of its summary.json (docs/sweep.md#outputs); results.jsonl has the run, its status,
// a failed run's error and its whole summary. Runs not done yet have no row.
#ifndef INFERGRID_SIM_APP_SWEEP_SWEEP_RESULTS_H_
#define INFERGRID_SIM_APP_SWEEP_SWEEP_RESULTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/app/results/sweep.pb.h"
#include "sim/app/sweep/point_store.h"

namespace infergrid::sweep {

struct SweepResults {
  std::string csv;
  std::string jsonl;
  int ok = 0;  // rows with a result
  int failed = 0;  // rows of failed runs
  int missing = 0;  // runs with no row yet
};

// The metric columns of results.csv, after the axes and the status.
const std::vector<std::string>& MetricColumns();

// Each run's result from the first store that has it done, else the first where it failed.
absl::StatusOr<SweepResults> CollectResults(const SweepManifest& manifest,
                                            const std::vector<const PointStore*>& stores);

// Writes results.csv and results.jsonl into `store`'s folder, each durably.
absl::Status WriteResults(const PointStore& store, const SweepResults& results);

}  // namespace infergrid::sweep

#endif  // INFERGRID_SIM_APP_SWEEP_SWEEP_RESULTS_H_
