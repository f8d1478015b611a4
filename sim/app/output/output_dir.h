// The files of one run under --out=DIR, written all or nothing, one run per folder at a time:
//   - Open() creates DIR if needed and takes an advisory lock on it (flock on DIR/.infergrid.lock,
//     held, and the file removed, when the OutputDir is destroyed): a second run into a folder that
//     another run holds is refused with an error naming the folder;
//   - each file goes to a temporary unique to the run (base/output_file.h: host, pid, random),
//     registered for removal on SIGINT/SIGTERM;
//   - Commit() moves every file into place or none: a file it replaces is kept aside until all
//     renames have succeeded and put back if one fails. In the same commit it removes the files
//     a previous run left that this run does not write (any of RunFileNames()), so the folder
//     always holds the files of one run;
//   - an OutputDir destroyed without Commit() removes its temporaries (and DIR, if it created it
//     and left it empty). A failed or interrupted run therefore leaves no partial output behind.
// A name in DIR that is a device or a symbolic link is written as output_file.h says.
#ifndef INFERGRID_SIM_APP_OUTPUT_OUTPUT_DIR_H_
#define INFERGRID_SIM_APP_OUTPUT_OUTPUT_DIR_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/output_file.h"

namespace infergrid {

class OutputDir {
 public:
  // Creates DIR if needed and locks it; an error names the flag and the path.
  static absl::StatusOr<OutputDir> Open(const std::string& dir);
  OutputDir(OutputDir&& other) noexcept;
  OutputDir& operator=(OutputDir&&) = delete;
  OutputDir(const OutputDir&) = delete;
  ~OutputDir();

  // The temporary path to write `name` (e.g. "summary.json") to; the same path on every call.
  std::string TempPath(absl::string_view name);
  // Writes `contents` to the temporary of `name`.
  absl::Status WriteFile(absl::string_view name, absl::string_view contents);
  // Moves every temporary into place and removes the previous run's other files, all or nothing.
  absl::Status Commit();
  const std::string& dir() const { return dir_; }

  // Every file name a run of any command writes under --out (summary.json, requests.csv, ...).
  static const std::vector<std::string>& RunFileNames();
  // The lock file's name in DIR.
  static constexpr const char* kLockFile = ".infergrid.lock";

 private:
  // A file replaced or removed by Commit(), and where its previous version waits (empty: none).
  struct Undo {
    std::string target;
    std::string backup;
    bool installed = false;  // Commit() put a new file at `target`
  };
  OutputDir(std::string dir, bool created, int lock_fd) : dir_(std::move(dir)), created_(created), lock_fd_(lock_fd) {}
  absl::Status SetAsideStale(std::vector<Undo>* undo) const;
  absl::Status Install(const OutputPlacement& placement, std::vector<Undo>* undo) const;
  static void Restore(const std::vector<Undo>& undo);

  std::string dir_;
  bool created_ = false;
  int lock_fd_ = -1;
  bool committed_ = false;
  std::map<std::string, OutputPlacement> files_;
  absl::Status placement_error_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_OUTPUT_DIR_H_
