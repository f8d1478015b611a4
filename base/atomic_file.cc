#include "base/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/output_file.h"

namespace infergrid {
namespace {

absl::Status ErrnoError(const std::string& path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what, ": ", std::strerror(errno)));
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, absl::string_view text) {
  absl::StatusOr<OutputPlacement> placement = PlaceOutput(path);
  if (!placement.ok()) return placement.status();
  if (absl::Status s = WriteWholeFile(placement->temporary, text, path); !s.ok()) {
    DiscardOutput(*placement);
    return s;
  }
  return CommitOutput(*placement);
}

absl::Status WriteFileDurably(const std::string& path, absl::string_view text) {
  const std::string temporary = absl::StrCat(path, ".tmp.", TemporaryHostName(), ".", getpid());
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError(path, "cannot write");
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      absl::Status status = ErrnoError(path, "write failed");
      close(fd);
      unlink(temporary.c_str());
      return status;
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    absl::Status status = ErrnoError(path, "cannot flush the written file");
    unlink(temporary.c_str());
    return status;
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    absl::Status status = ErrnoError(path, "cannot rename the written file");
    unlink(temporary.c_str());
    return status;
  }
  // The rename is an entry of the folder: flush the folder too (best effort: some file
  // systems refuse fsync on a directory, and the file itself is already whole).
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string folder = parent.empty() ? std::string(".") : parent.string();
  const int dir_fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    (void)fsync(dir_fd);
    close(dir_fd);
  }
  return absl::OkStatus();
}

bool IsAbandonedTemporary(absl::string_view filename) {
  // NAME.tmp.HOST.PID: the last three dot-separated parts.
  const std::vector<absl::string_view> parts = absl::StrSplit(filename, '.');
  if (parts.size() < 4 || parts[parts.size() - 3] != "tmp") return false;
  if (parts[parts.size() - 2] != TemporaryHostName()) return false;
  int pid = 0;
  if (!absl::SimpleAtoi(parts.back(), &pid) || pid <= 0) return false;
  if (pid == getpid()) return false;
  return kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace infergrid
