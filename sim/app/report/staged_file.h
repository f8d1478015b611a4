// A file written all or nothing: Stage() writes the text to a hidden temporary beside the target
// (creating the target's folder if needed), Commit() renames it into place, and a StagedFile
// destroyed uncommitted removes its temporary (and the folder, if it created it and left it
// empty). So a report that fails, or a run whose other outputs fail, leaves no partial page.
#ifndef INFERGRID_SIM_APP_REPORT_STAGED_FILE_H_
#define INFERGRID_SIM_APP_REPORT_STAGED_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

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
  StagedFile(std::string path, std::string temp, std::string created_folder)
      : path_(std::move(path)), temp_(std::move(temp)), created_folder_(std::move(created_folder)) {}
  std::string path_;
  std::string temp_;            // empty once committed or moved from
  std::string created_folder_;  // the folder Stage() created, if any
};

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_STAGED_FILE_H_
