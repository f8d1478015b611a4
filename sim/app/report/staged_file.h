// A file written all or nothing: Stage() writes the text to a temporary unique to the run
// (creating the target's folder if needed), Commit() moves it into place (a rename; a device or a
// FIFO is written through and a symbolic link followed, base/output_file.h), and a StagedFile
// destroyed uncommitted removes its temporary (and the folder, if it created it and left it
// empty). So a report that fails, or a run whose other outputs fail, leaves no partial page.
#ifndef INFERGRID_SIM_APP_REPORT_STAGED_FILE_H_
#define INFERGRID_SIM_APP_REPORT_STAGED_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/output_file.h"

namespace infergrid::report {

class StagedFile {
 public:
  // `flag` names the option that gave `path`, for errors ("--out", "--report").
  static absl::StatusOr<StagedFile> Stage(const std::string& path, absl::string_view text, absl::string_view flag);
  StagedFile(StagedFile&& other) noexcept;
  StagedFile& operator=(StagedFile&&) = delete;
  StagedFile(const StagedFile&) = delete;
  ~StagedFile();

  absl::Status Commit();

 private:
  StagedFile(OutputPlacement placement, std::string created_folder)
      : placement_(std::move(placement)), created_folder_(std::move(created_folder)) {}
  OutputPlacement placement_;  // its temporary empty once committed or moved from
  std::string created_folder_;  // the folder Stage() created, if any
};

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_STAGED_FILE_H_
