#include "sim/app/output/output_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "base/interrupt_cleanup.h"

namespace infergrid {

namespace fs = std::filesystem;

namespace {

std::string LockPath(const std::string& dir) { return (fs::path(dir) / OutputDir::kLockFile).string(); }

// Opens and locks DIR's lock file; an error when another run holds it. The file is removed by
// the run that holds it when it ends, so a run that locked a file another run has just removed
// (the name now free, or another file's) starts again on the file the name holds now.
absl::StatusOr<int> LockFolder(const std::string& dir) {
  const std::string path = LockPath(dir);
  for (;;) {
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("--out=", dir, ": cannot create ", path, ": ", std::strerror(errno)));
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      close(fd);
      if (error == EWOULDBLOCK) {
        return absl::FailedPreconditionError(absl::StrCat("--out=", dir,
                                                          ": another infergrid run is writing this folder (it holds ",
                                                          path, "); wait for it to finish or choose another folder"));
      }
      return absl::FailedPreconditionError(
          absl::StrCat("--out=", dir, ": cannot lock ", path, ": ", std::strerror(error)));
    }
    struct stat held = {};
    struct stat named = {};
    if (fstat(fd, &held) == 0 && stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino) {
      return fd;
    }
    close(fd);
  }
}

}  // namespace

const std::vector<std::string>& OutputDir::RunFileNames() {
  static const std::vector<std::string> names = {
      "summary.json",     "requests.csv",  "requests.csv.zst", "iterations.csv",  "iterations.csv.zst",
      "timeline.pftrace", "timeline.json", "fleet.csv",        "comparison.json", "plan.json"};
  return names;
}

absl::StatusOr<OutputDir> OutputDir::Open(const std::string& dir) {
  std::error_code error;
  const bool existed = fs::exists(dir, error);
  if (existed && !fs::is_directory(dir, error)) {
    return absl::FailedPreconditionError(absl::StrCat("--out=", dir, ": exists and is not a directory"));
  }
  if (!existed && !fs::create_directories(dir, error)) {
    return absl::FailedPreconditionError(absl::StrCat("--out=", dir, ": cannot create: ", error.message()));
  }
  if (!existed) RegisterTemporary(dir);  // an interrupted run removes the folder it created, once empty
  absl::StatusOr<int> lock = LockFolder(dir);
  if (!lock.ok()) {
    if (!existed) fs::remove(dir, error);
    return lock.status();
  }
  RegisterTemporary(LockPath(dir));
  return OutputDir(dir, !existed, *lock);
}

OutputDir::OutputDir(OutputDir&& other) noexcept
    : dir_(std::move(other.dir_)),
      created_(other.created_),
      lock_fd_(other.lock_fd_),
      committed_(other.committed_),
      files_(std::move(other.files_)),
      placement_error_(std::move(other.placement_error_)) {
  other.files_.clear();
  other.lock_fd_ = -1;
  other.created_ = false;
}

OutputDir::~OutputDir() {
  if (!committed_) {
    for (const auto& [name, placement] : files_) DiscardOutput(placement);
  }
  if (lock_fd_ < 0) return;
  // The lock file goes while the lock is still held (LockFolder checks which file it locked).
  const std::string lock = LockPath(dir_);
  unlink(lock.c_str());
  std::error_code error;
  if (created_ && fs::is_empty(dir_, error)) fs::remove(dir_, error);
  UnregisterTemporary(lock);
  UnregisterTemporary(dir_);
  close(lock_fd_);
}

std::string OutputDir::TempPath(absl::string_view name) {
  const std::string n(name);
  auto found = files_.find(n);
  if (found != files_.end()) return found->second.temporary;
  absl::StatusOr<OutputPlacement> placement = PlaceOutput((fs::path(dir_) / n).string());
  if (!placement.ok()) {
    if (placement_error_.ok()) placement_error_ = placement.status();
    // Somewhere harmless for the writer; Commit() reports the error.
    OutputPlacement unusable;
    unusable.path = (fs::path(dir_) / n).string();
    unusable.temporary = (fs::path(dir_) / RunUniqueName(n, "tmp")).string();
    RegisterTemporary(unusable.temporary);
    placement = unusable;
  }
  return files_.emplace(n, *std::move(placement)).first->second.temporary;
}

absl::Status OutputDir::WriteFile(absl::string_view name, absl::string_view contents) {
  const std::string path = TempPath(name);
  return WriteWholeFile(path, contents, (fs::path(dir_) / std::string(name)).string());
}

absl::Status OutputDir::SetAsideStale(std::vector<Undo>* undo) const {
  for (const std::string& name : RunFileNames()) {
    if (files_.count(name) > 0) continue;
    const std::string path = (fs::path(dir_) / name).string();
    struct stat info = {};
    if (lstat(path.c_str(), &info) != 0 || !(S_ISREG(info.st_mode) || S_ISLNK(info.st_mode))) continue;
    const std::string backup = (fs::path(dir_) / RunUniqueName(name, "old")).string();
    if (rename(path.c_str(), backup.c_str()) != 0) {
      return absl::UnavailableError(
          absl::StrCat(path, ": cannot remove the previous run's file: ", std::strerror(errno)));
    }
    undo->push_back({path, backup, false});
  }
  return absl::OkStatus();
}

absl::Status OutputDir::Install(const OutputPlacement& placement, std::vector<Undo>* undo) const {
  Undo entry{placement.target, "", true};
  struct stat info = {};
  if (lstat(placement.target.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
    entry.backup = (fs::path(placement.target).parent_path() /
                    RunUniqueName(fs::path(placement.target).filename().string(), "old"))
                       .string();
    // A second name for the previous version: the rename below replaces the target atomically.
    if (link(placement.target.c_str(), entry.backup.c_str()) != 0) {
      std::error_code error;
      fs::copy_file(placement.target, entry.backup, error);
      if (error) {
        return absl::UnavailableError(
            absl::StrCat(placement.path, ": cannot keep the previous version aside: ", error.message()));
      }
    }
  }
  undo->push_back(entry);
  if (rename(placement.temporary.c_str(), placement.target.c_str()) != 0) {
    undo->back().installed = false;
    return absl::UnavailableError(absl::StrCat(placement.path, ": cannot rename into place: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

void OutputDir::Restore(const std::vector<Undo>& undo) {
  for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
    if (!it->backup.empty()) {
      rename(it->backup.c_str(), it->target.c_str());
    } else if (it->installed) {
      unlink(it->target.c_str());
    }
  }
}

absl::Status OutputDir::Commit() {
  CommitSection section;  // SIGINT/SIGTERM wait until the commit is whole or undone
  if (!placement_error_.ok()) return absl::InvalidArgumentError(absl::StrCat("--out: ", placement_error_.message()));
  std::vector<Undo> undo;
  absl::Status status = SetAsideStale(&undo);
  for (const auto& [name, placement] : files_) {
    if (!status.ok()) break;
    if (!placement.write_through) status = Install(placement, &undo);
  }
  // Devices and FIFOs last: what is written into them cannot be taken back.
  for (const auto& [name, placement] : files_) {
    if (status.ok() && placement.write_through) status = CommitOutput(placement);
  }
  if (!status.ok()) {
    Restore(undo);
    return status;
  }
  for (const Undo& entry : undo) {
    if (!entry.backup.empty()) unlink(entry.backup.c_str());
  }
  for (const auto& [name, placement] : files_) DiscardOutput(placement);
  committed_ = true;
  return absl::OkStatus();
}

}  // namespace infergrid
