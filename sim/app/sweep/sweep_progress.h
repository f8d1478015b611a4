// The progress of a sweep on stderr: on a terminal a bar redrawn in place (runs done of the
// total, failures, elapsed time and an ETA from the pace of the runs done by this process);
// elsewhere (a log, a Slurm output file) a plain line, at most one every few seconds and one
// at the end, so logs stay short.
#ifndef INFERGRID_SIM_APP_SWEEP_SWEEP_PROGRESS_H_
#define INFERGRID_SIM_APP_SWEEP_SWEEP_PROGRESS_H_

#include <cstdio>
#include <string>

#include "absl/time/time.h"

namespace infergrid::sweep {

class SweepProgress {
 public:
  // `total` runs, of which `already_done` were finished by an earlier process.
  SweepProgress(std::FILE* out, bool terminal, int total, int already_done);

  // After a run finished (failed or not): `done` counts all finished runs, skipped included.
  void Update(int done, int failed);
  // The final state, always shown; a terminal's bar is ended with a newline.
  void Finish(int done, int failed);

  // The text of one update (no "\r" or newline), for tests.
  std::string Line(int done, int failed, absl::Duration elapsed) const;

 private:
  void Show(int done, int failed, bool final);

  std::FILE* out_;
  bool terminal_;
  int total_;
  int already_done_;
  absl::Time start_;
  absl::Time last_line_ = absl::InfinitePast();
};

}  // namespace infergrid::sweep

#endif  // INFERGRID_SIM_APP_SWEEP_SWEEP_PROGRESS_H_
