// The folder of a sweep (--out=DIR) and what makes it safe to kill at any moment:
//   DIR/sweep.json                  the manifest: every run of the spec (SweepManifest)
//   DIR/points/<hash>/summary.json  a run's result; its presence is what "done" means
//   DIR/points/<hash>/point.json    the run (SweepRun), written just before summary.json
//   DIR/points/<hash>/error.txt     a failed run's error (a later success removes it)
//   DIR/results.csv, results.jsonl  rebuilt from the above (sweep_results.h); removed when a
//                                   manifest is written, so they never describe another spec
// A summary.json that does not parse is a run to redo (kMissing), whoever cut it.
// Every file is written whole or not at all (WriteFileDurably: temporary, fsync, rename), so a
// run killed mid-write leaves at most an abandoned temporary, which the next run of that point
// removes, and a folder holds one summary.json whatever happened: each run exactly once.
#ifndef INFERGRID_SIM_APP_SWEEP_POINT_STORE_H_
#define INFERGRID_SIM_APP_SWEEP_POINT_STORE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/app/results/sweep.pb.h"

namespace infergrid::sweep {

enum class RunState { kMissing, kDone, kFailed };

class PointStore {
 public:
  // The store at `dir`; with `create`, makes the folders (errors name the path) and removes
  // the temporaries killed writers abandoned there.
  static absl::StatusOr<PointStore> Open(const std::string& dir, bool create);

  const std::string& dir() const { return dir_; }
  std::string RunFolder(const SweepRun& run) const;

  RunState StateOf(const SweepRun& run) const;
  // A done run's folder is this run's (point.json's command line is the run's): two
  // configurations with one hash would otherwise share a result.
  absl::Status CheckSameRun(const SweepRun& run) const;
  // Before running: the folder exists and holds no abandoned temporaries of a killed run.
  absl::Status PrepareRun(const SweepRun& run) const;
  // point.json, then summary.json (from here on the run is done), then error.txt goes.
  absl::Status RecordSuccess(const SweepRun& run, const std::string& summary_json) const;
  absl::Status RecordFailure(const SweepRun& run, const std::string& message) const;

  absl::StatusOr<std::string> ReadSummary(const SweepRun& run) const;
  absl::StatusOr<std::string> ReadError(const SweepRun& run) const;

  absl::Status WriteManifest(const SweepManifest& manifest) const;
  absl::StatusOr<SweepManifest> ReadManifest() const;
  // Writes DIR/<name> durably.
  absl::Status WriteFile(const std::string& name, const std::string& text) const;

 private:
  explicit PointStore(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

}  // namespace infergrid::sweep

#endif  // INFERGRID_SIM_APP_SWEEP_POINT_STORE_H_
