#include "sim/app/report/staged_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

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
      return absl::FailedPreconditionError(absl::StrCat(flag, "=", path, ": cannot create ", folder.string(), ": ",
                                                        error.message()));
    }
    created = folder.string();
  } else if (!fs::is_directory(folder, error)) {
    return absl::FailedPreconditionError(absl::StrCat(flag, "=", path, ": ", folder.string(), " is not a folder"));
  }
  const std::string temp = (folder / absl::StrCat(".", target.filename().string(), ".tmp")).string();
  StagedFile staged(path, temp, created);
  std::ofstream out(temp, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat(path, ": cannot write: ", std::strerror(errno)));
  return staged;
}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : path_(std::move(other.path_)), temp_(std::move(other.temp_)), created_folder_(std::move(other.created_folder_)) {
  other.temp_.clear();
  other.created_folder_.clear();
}

StagedFile::~StagedFile() {
  std::error_code error;
  if (!temp_.empty()) fs::remove(temp_, error);
  if (!created_folder_.empty() && fs::is_empty(created_folder_, error)) fs::remove(created_folder_, error);
}

absl::Status StagedFile::Commit() {
  std::error_code error;
  fs::rename(temp_, path_, error);
  if (error) return absl::UnavailableError(absl::StrCat(path_, ": cannot rename into place: ", error.message()));
  temp_.clear();
  created_folder_.clear();
  return absl::OkStatus();
}

}  // namespace infergrid::report
