#include "base/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/interrupt_cleanup.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxLinks = 40;  // the kernel's own limit on a chain of symbolic links

absl::Status PathErrno(const std::string& path, absl::string_view what) {
  return absl::UnavailableError(absl::StrCat(path, ": ", what, ": ", std::strerror(errno)));
}

// The last path of PATH's chain of symbolic links (PATH itself when it is no link), and lstat of it
// (st_mode 0 when nothing is there).
absl::StatusOr<std::string> FollowLinks(const std::string& path, struct stat* info) {
  std::string current = path;
  for (int i = 0; i <= kMaxLinks; ++i) {
    if (lstat(current.c_str(), info) != 0) {
      if (errno != ENOENT) return PathErrno(path, "cannot inspect");
      info->st_mode = 0;
      return current;
    }
    if (!S_ISLNK(info->st_mode)) return current;
    std::error_code error;
    const fs::path link = fs::read_symlink(current, error);
    if (error) return absl::UnavailableError(absl::StrCat(path, ": cannot read the link: ", error.message()));
    current = link.is_absolute() ? link.string() : (fs::path(current).parent_path() / link).string();
  }
  return absl::InvalidArgumentError(absl::StrCat(path, ": too many levels of symbolic links"));
}

std::string Beside(const std::string& target, const std::string& name) {
  const fs::path parent = fs::path(target).parent_path();
  return parent.empty() ? name : (parent / name).string();
}

}  // namespace

std::string TemporaryHostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  std::string host(name);
  for (char& c : host) {
    if (c == '.' || c == '/') c = '_';
  }
  return host;
}

std::string RunUniqueName(absl::string_view name, absl::string_view kind) {
  std::random_device device;
  const uint32_t random = device();
  return absl::StrCat(".", name, ".", kind, ".", TemporaryHostName(), ".", getpid(), ".",
                      absl::StrFormat("%08x", random));
}

absl::StatusOr<OutputPlacement> PlaceOutput(const std::string& path) {
  OutputPlacement placement;
  placement.path = path;
  struct stat info = {};
  absl::StatusOr<std::string> target = FollowLinks(path, &info);
  if (!target.ok()) return target.status();
  placement.target = *target;
  const std::string name = fs::path(placement.target).filename().string();
  if (name.empty() || S_ISDIR(info.st_mode)) return absl::InvalidArgumentError(absl::StrCat(path, ": is a folder"));
  if (S_ISBLK(info.st_mode) || S_ISSOCK(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is a ", S_ISBLK(info.st_mode) ? "block device" : "socket", "; give a file to write"));
  }
  placement.write_through = S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode);
  const std::string temporary_name = RunUniqueName(name, "tmp");
  placement.temporary = placement.write_through ? (fs::temp_directory_path() / temporary_name).string()
                                                : Beside(placement.target, temporary_name);
  RegisterTemporary(placement.temporary);
  return placement;
}

absl::Status WriteWholeFile(const std::string& file, absl::string_view text, const std::string& shown) {
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0) return PathErrno(shown, "cannot write");
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      absl::Status status = PathErrno(shown, "write failed");
      close(fd);
      return status;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return PathErrno(shown, "write failed");
  return absl::OkStatus();
}

// Copies the temporary into the device or FIFO with write(2), in pieces.
absl::Status WriteThrough(const OutputPlacement& placement) {
  const int in = open(placement.temporary.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return PathErrno(placement.path, "cannot read the written temporary");
  const int out = open(placement.target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (out < 0) {
    absl::Status status = PathErrno(placement.path, "cannot write");
    close(in);
    return status;
  }
  absl::Status status;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(in, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    ssize_t done = 0;
    while (done < n && status.ok()) {
      const ssize_t w = write(out, buffer + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) status = PathErrno(placement.path, "write failed");
      done += w > 0 ? w : 0;
    }
    if (!status.ok()) break;
  }
  if (close(out) != 0 && status.ok()) status = PathErrno(placement.path, "write failed");
  close(in);
  return status;
}

absl::Status CommitOutput(const OutputPlacement& placement) {
  absl::Status status;
  if (placement.write_through) {
    status = WriteThrough(placement);
  } else if (rename(placement.temporary.c_str(), placement.target.c_str()) != 0) {
    status = PathErrno(placement.path, "cannot rename the written file into place");
  }
  DiscardOutput(placement);
  return status;
}

void DiscardOutput(const OutputPlacement& placement) {
  if (placement.temporary.empty()) return;
  unlink(placement.temporary.c_str());
  UnregisterTemporary(placement.temporary);
}

}  // namespace infergrid
