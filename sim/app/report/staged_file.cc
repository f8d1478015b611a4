#include "sim/app/report/staged_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"

namespace infergrid::report {

namespace fs = std::filesystem;

absl::StatusOr<StagedFile> StagedFile::Stage(const std::string& path, absl::string_view text, absl::string_view flag) {
  const fs::path target(path);
  std::error_code error;
  if (target.filename().empty() || fs::is_directory(target, error)) {
    return absl::InvalidArgumentError(absl::StrCat(flag, "=", path, ": names a folder; give the file to write"));
  }
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string created;
  if (!fs::exists(folder, error)) {
    if (!fs::create_directories(folder, error)) {
      return absl::FailedPreconditionError(
          absl::StrCat(flag, "=", path, ": cannot create ", folder.string(), ": ", error.message()));
    }
    created = folder.string();
  } else if (!fs::is_directory(folder, error)) {
    return absl::FailedPreconditionError(absl::StrCat(flag, "=", path, ": ", folder.string(), " is not a folder"));
  }
  absl::StatusOr<OutputPlacement> placement = PlaceOutput(path);
  if (!placement.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, "=", placement.status().message()));
  StagedFile staged(*std::move(placement), created);
  if (absl::Status s = WriteWholeFile(staged.placement_.temporary, text, path); !s.ok()) return s;
  return staged;
}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : placement_(std::move(other.placement_)), created_folder_(std::move(other.created_folder_)) {
  other.placement_.temporary.clear();
  other.created_folder_.clear();
}

StagedFile::~StagedFile() {
  std::error_code error;
  DiscardOutput(placement_);
  if (!created_folder_.empty() && fs::is_empty(created_folder_, error)) fs::remove(created_folder_, error);
}

absl::Status StagedFile::Commit() {
  absl::Status status = CommitOutput(placement_);
  placement_.temporary.clear();
  if (!status.ok()) return status;
  created_folder_.clear();
  return absl::OkStatus();
}

}  // namespace infergrid::report
