#include "sim/app/output/output_dir.h"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace infergrid {

namespace fs = std::filesystem;

absl::StatusOr<OutputDir> OutputDir::Open(const std::string& dir) {
  std::error_code error;
  const bool existed = fs::exists(dir, error);
  if (existed && !fs::is_directory(dir, error)) {
    return absl::FailedPreconditionError(absl::StrCat("--out=", dir, ": exists and is not a directory"));
  }
  if (!existed && !fs::create_directories(dir, error)) {
    return absl::FailedPreconditionError(absl::StrCat("--out=", dir, ": cannot create: ", error.message()));
  }
  return OutputDir(dir, !existed);
}

OutputDir::OutputDir(OutputDir&& other) noexcept
    : dir_(std::move(other.dir_)),
      created_(other.created_),
      committed_(other.committed_),
      names_(std::move(other.names_)) {
  other.committed_ = true;  // the moved-from object cleans nothing up
}

OutputDir::~OutputDir() {
  if (committed_) return;
  std::error_code error;
  for (const std::string& name : names_) fs::remove(fs::path(dir_) / ("." + name + ".tmp"), error);
  if (created_ && fs::is_empty(dir_, error)) fs::remove(dir_, error);
}

std::string OutputDir::TempPath(absl::string_view name) {
  const std::string n(name);
  if (std::find(names_.begin(), names_.end(), n) == names_.end()) names_.push_back(n);
  return (fs::path(dir_) / ("." + n + ".tmp")).string();
}

absl::Status OutputDir::WriteFile(absl::string_view name, absl::string_view contents) {
  const std::string path = TempPath(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat(path, ": cannot write: ", std::strerror(errno)));
  return absl::OkStatus();
}

absl::Status OutputDir::Commit() {
  for (const std::string& name : names_) {
    std::error_code error;
    fs::rename(fs::path(dir_) / ("." + name + ".tmp"), fs::path(dir_) / name, error);
    if (error) {
      return absl::UnavailableError(absl::StrCat(dir_, "/", name, ": cannot rename into place: ", error.message()));
    }
  }
  committed_ = true;
  return absl::OkStatus();
}

}  // namespace infergrid
