#include "traces/line_reader.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace infergrid {
namespace {

// Bytes asked of the OS per read: large enough that the per-line cost dominates.
constexpr size_t kChunkBytes = size_t{1} << 20;

}  // namespace

absl::StatusOr<std::unique_ptr<LineReader>> LineReader::Open(const std::string& path,
                                                             int64_t max_line_bytes) {
  if (max_line_bytes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("max line length must be >= 1, got ",
                                                   max_line_bytes));
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open file: ", std::strerror(errno)));
  }
  return std::unique_ptr<LineReader>(new LineReader(path, file, max_line_bytes));
}

LineReader::LineReader(std::string path, std::FILE* file, int64_t max_line_bytes)
    : path_(std::move(path)), file_(file), max_line_bytes_(max_line_bytes) {
  // Room for one whole line at the cap plus its terminator, plus a chunk to read into.
  buffer_.resize(static_cast<size_t>(max_line_bytes) + 2 + kChunkBytes);
}

LineReader::~LineReader() { std::fclose(file_); }

absl::StatusOr<bool> LineReader::Fill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  const size_t room = buffer_.size() - end_;
  if (room == 0) return true;  // the caller checks the cap before asking again
  const size_t got = std::fread(buffer_.data() + end_, 1, room, file_);
  if (got < room) {
    if (std::ferror(file_)) {
      return absl::DataLossError(absl::StrCat(path_, ": read failed after ", bytes_read_,
                                              " bytes: ", std::strerror(errno)));
    }
    eof_ = true;
  }
  end_ += got;
  bytes_read_ += static_cast<int64_t>(got);
  return got > 0;
}

absl::StatusOr<LineReader::Result> LineReader::Next(absl::string_view* line) {
  unterminated_ = false;
  if (line_number_ == 0 && !started_) {
    // First call: read, note the leading bytes, drop a UTF-8 BOM.
    while (!eof_ && end_ < 4) {
      absl::StatusOr<bool> more = Fill();
      if (!more.ok()) return more.status();
      if (!*more) break;
    }
    started_ = true;
    leading_.assign(buffer_.data(), std::min<size_t>(end_, 4));
    if (end_ >= 3 && std::memcmp(buffer_.data(), "\xEF\xBB\xBF", 3) == 0) {
      begin_ = 3;
      had_bom_ = true;
    }
  }
  const size_t cap = static_cast<size_t>(max_line_bytes_);
  size_t scan = begin_;
  while (true) {
    const char* newline = static_cast<const char*>(
        std::memchr(buffer_.data() + scan, '\n', end_ - scan));
    if (newline != nullptr) {
      const size_t at = static_cast<size_t>(newline - buffer_.data());
      if (skipping_) {
        // The rest of a too-long line ends here; continue with the next line.
        skipping_ = false;
        begin_ = at + 1;
        scan = begin_;
        continue;
      }
      size_t stop = at;
      if (stop > begin_ && buffer_[stop - 1] == '\r') --stop;
      ++line_number_;
      if (stop - begin_ > cap) {
        begin_ = at + 1;
        return Result::kTooLong;
      }
      *line = absl::string_view(buffer_.data() + begin_, stop - begin_);
      begin_ = at + 1;
      return Result::kLine;
    }
    if (skipping_) {
      begin_ = end_;  // discard what we have of the long line
    } else if (end_ - begin_ > cap + 1) {
      // No newline within the cap (+1 for a '\r'): report now, discard the rest later.
      ++line_number_;
      skipping_ = true;
      begin_ = end_;
      return Result::kTooLong;
    }
    scan = end_ - begin_;
    absl::StatusOr<bool> more = Fill();
    if (!more.ok()) return more.status();
    scan = begin_ + scan;
    if (!*more) break;
  }
  // End of file: whatever is left is an unterminated last line.
  if (skipping_ || begin_ == end_) {
    skipping_ = false;
    begin_ = end_;
    return Result::kEof;
  }
  size_t stop = end_;
  if (buffer_[stop - 1] == '\r') --stop;
  ++line_number_;
  unterminated_ = true;
  if (stop - begin_ > cap) {
    begin_ = end_;
    return Result::kTooLong;
  }
  *line = absl::string_view(buffer_.data() + begin_, stop - begin_);
  begin_ = end_;
  return Result::kLine;
}

}  // namespace infergrid
