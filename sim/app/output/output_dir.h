// The files of one run under --out=DIR, written all or nothing: each file is written to a
// hidden temporary name in DIR and renamed into place only by Commit(), after the whole run
// succeeded; an OutputDir destroyed without Commit() removes its temporaries (and DIR, if it
// created it and left it empty). A failed run therefore leaves no partial output behind.
#ifndef INFERGRID_SIM_APP_OUTPUT_OUTPUT_DIR_H_
#define INFERGRID_SIM_APP_OUTPUT_OUTPUT_DIR_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid {

class OutputDir {
 public:
  // Creates DIR if needed; an error names the path.
  static absl::StatusOr<OutputDir> Open(const std::string& dir);
  OutputDir(OutputDir&& other) noexcept;
  OutputDir& operator=(OutputDir&&) = delete;
  OutputDir(const OutputDir&) = delete;
  ~OutputDir();

  // The temporary path to write `name` (e.g. "summary.json") to.
  std::string TempPath(absl::string_view name);
  // Writes `contents` to the temporary of `name`.
  absl::Status WriteFile(absl::string_view name, absl::string_view contents);
  // Renames every temporary into place.
  absl::Status Commit();
  const std::string& dir() const { return dir_; }

 private:
  OutputDir(std::string dir, bool created) : dir_(std::move(dir)), created_(created) {}
  std::string dir_;
  bool created_ = false;
  bool committed_ = false;
  std::vector<std::string> names_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_OUTPUT_DIR_H_
