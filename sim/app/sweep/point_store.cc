#include "sim/app/sweep/point_store.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "base/atomic_file.h"
#include "base/textproto.h"
#include "base/json_text.h"
#include "sim/app/format/json_output.h"
#include "sim/app/results/simulation.pb.h"

namespace infergrid::sweep {
namespace {

namespace fs = std::filesystem;

constexpr char kManifest[] = "sweep.json";
constexpr char kSummary[] = "summary.json";
constexpr char kPoint[] = "point.json";
constexpr char kError[] = "error.txt";

bool Exists(const std::string& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

template <typename Message>
absl::StatusOr<Message> ReadJson(const std::string& path) {
  std::string text;
  if (absl::Status s = ReadFileToString(path, &text); !s.ok()) return s;
  Message message;
  const std::string what = absl::StrCat(message.GetTypeName(), " JSON file");
  if (absl::Status s = ParseJsonMessage(text, JsonSource{path}, what, &message); !s.ok()) return s;
  return message;
}

}  // namespace

absl::StatusOr<PointStore> PointStore::Open(const std::string& dir, bool create) {
  std::error_code error;
  if (create) {
    fs::create_directories(fs::path(dir) / "points", error);
    if (error) return absl::InvalidArgumentError(absl::StrCat(dir, ": cannot create the folder: ", error.message()));
    // A killed writer of sweep.json or the results left its temporary behind.
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
      if (IsAbandonedTemporary(entry.path().filename().string())) fs::remove(entry.path(), error);
    }
  } else if (!fs::is_directory(dir, error)) {
    return absl::NotFoundError(absl::StrCat(dir, ": not a sweep folder (no such folder)"));
  }
  return PointStore(dir);
}

std::string PointStore::RunFolder(const SweepRun& run) const {
  return (fs::path(dir_) / "points" / run.hash()).string();
}

RunState PointStore::StateOf(const SweepRun& run) const {
  const std::string folder = RunFolder(run);
  // A summary.json that does not read as one (cut or edited by hand: the store itself writes
  // whole files) is a run to redo, not one that blocks every rerun when results are collected.
  if (Exists(absl::StrCat(folder, "/", kSummary))) {
    return ReadJson<SimulationSummary>(absl::StrCat(folder, "/", kSummary)).ok() ? RunState::kDone : RunState::kMissing;
  }
  if (Exists(absl::StrCat(folder, "/", kError))) return RunState::kFailed;
  return RunState::kMissing;
}

absl::Status PointStore::CheckSameRun(const SweepRun& run) const {
  const std::string path = absl::StrCat(RunFolder(run), "/", kPoint);
  absl::StatusOr<SweepRun> recorded = ReadJson<SweepRun>(path);
  if (!recorded.ok()) return recorded.status();
  if (recorded->command_line() != run.command_line()) {
    return absl::InternalError(absl::StrCat(path, ": holds another configuration with the same hash ('",
                                            recorded->command_line(), "', not '", run.command_line(),
                                            "'); move the folder away"));
  }
  return absl::OkStatus();
}

absl::Status PointStore::PrepareRun(const SweepRun& run) const {
  const std::string folder = RunFolder(run);
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) return absl::InvalidArgumentError(absl::StrCat(folder, ": cannot create the folder: ", error.message()));
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    if (IsAbandonedTemporary(entry.path().filename().string())) fs::remove(entry.path(), error);
  }
  return absl::OkStatus();
}

absl::Status PointStore::RecordSuccess(const SweepRun& run, const std::string& summary_json) const {
  const std::string folder = RunFolder(run);
  if (absl::Status s = WriteFileDurably(absl::StrCat(folder, "/", kPoint), format::ToJson(run)); !s.ok()) return s;
  if (absl::Status s = WriteFileDurably(absl::StrCat(folder, "/", kSummary), summary_json); !s.ok()) return s;
  std::error_code error;
  fs::remove(absl::StrCat(folder, "/", kError), error);
  return absl::OkStatus();
}

absl::Status PointStore::RecordFailure(const SweepRun& run, const std::string& message) const {
  const std::string folder = RunFolder(run);
  if (absl::Status s = WriteFileDurably(absl::StrCat(folder, "/", kPoint), format::ToJson(run)); !s.ok()) return s;
  return WriteFileDurably(absl::StrCat(folder, "/", kError), absl::StrCat(message, "\n"));
}

absl::StatusOr<std::string> PointStore::ReadSummary(const SweepRun& run) const {
  std::string text;
  if (absl::Status s = ReadFileToString(absl::StrCat(RunFolder(run), "/", kSummary), &text); !s.ok()) return s;
  return text;
}

absl::StatusOr<std::string> PointStore::ReadError(const SweepRun& run) const {
  std::string text;
  if (absl::Status s = ReadFileToString(absl::StrCat(RunFolder(run), "/", kError), &text); !s.ok()) return s;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

absl::Status PointStore::WriteManifest(const SweepManifest& manifest) const {
  // The results files describe the manifest they were built from: those of an earlier spec go
  // before its manifest is replaced, so the folder never pairs one spec's sweep.json with
  // another's results (they are rebuilt when the runs end).
  for (const char* name : {"results.csv", "results.jsonl"}) {
    std::error_code error;
    fs::remove(fs::path(dir_) / name, error);
    if (error) return absl::InternalError(absl::StrCat(dir_, "/", name, ": cannot remove: ", error.message()));
  }
  return WriteFile(kManifest, format::ToJson(manifest));
}

absl::StatusOr<SweepManifest> PointStore::ReadManifest() const {
  const std::string path = (fs::path(dir_) / kManifest).string();
  if (!Exists(path)) return absl::NotFoundError(absl::StrCat(dir_, ": not a sweep folder (no ", kManifest, ")"));
  return ReadJson<SweepManifest>(path);
}

absl::Status PointStore::WriteFile(const std::string& name, const std::string& text) const {
  return WriteFileDurably((fs::path(dir_) / name).string(), text);
}

}  // namespace infergrid::sweep
