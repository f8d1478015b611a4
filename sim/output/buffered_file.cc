#include "sim/output/buffered_file.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace infergrid {

absl::StatusOr<BufferedFile> BufferedFile::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return absl::UnavailableError(absl::StrCat(path, ": cannot open for writing"));
  return BufferedFile(file, path);
}

BufferedFile::BufferedFile(BufferedFile&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      path_(std::move(other.path_)),
      buffer_(std::move(other.buffer_)),
      ok_(other.ok_) {}

BufferedFile::~BufferedFile() {
  if (file_ != nullptr) std::fclose(file_);
}

void BufferedFile::Flush() {
  if (file_ == nullptr) return;
  ok_ = ok_ && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
  buffer_.clear();
}

absl::Status BufferedFile::Close() {
  Flush();
  if (file_ != nullptr) {
    ok_ = (std::fclose(file_) == 0) && ok_;
    file_ = nullptr;
  }
  if (!ok_) return absl::UnavailableError(absl::StrCat(path_, ": write failed"));
  return absl::OkStatus();
}

}  // namespace infergrid
