#include "traces/line_reader.h"

#include <cerrno>
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/textproto.h"

namespace infergrid {
namespace {

// The buffer starts small (a small file costs little) and doubles while a line does not fit,
// up to one line at the cap plus a chunk. 64 KiB reads already make the per-line cost dominate.
constexpr size_t kInitialBytes = size_t{64} << 10;
constexpr size_t kChunkBytes = size_t{1} << 20;

}  // namespace

absl::StatusOr<std::unique_ptr<LineReader>> LineReader::Open(const std::string& path, int64_t max_line_bytes) {
  if (max_line_bytes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("max line length must be >= 1, got ", max_line_bytes));
  }
  // A FIFO or device may block or never end (/dev/zero is one endless line): files only.
  if (absl::Status s = CheckRegularFile(path); !s.ok()) return s;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open file: ", std::strerror(errno)));
  }
  return std::unique_ptr<LineReader>(new LineReader(path, file, max_line_bytes));
}

LineReader::LineReader(std::string path, std::FILE* file, int64_t max_line_bytes)
    : path_(std::move(path)), file_(file), max_line_bytes_(max_line_bytes) {
  // At most: room for one whole line at the cap plus its terminator, plus a chunk to read into.
  max_buffer_ = static_cast<size_t>(max_line_bytes) + 2 + kChunkBytes;
  capacity_ = std::min(kInitialBytes, max_buffer_);
  buffer_.reset(new char[capacity_]);
}

LineReader::~LineReader() { std::fclose(file_); }

absl::StatusOr<bool> LineReader::Fill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == capacity_) {
    if (capacity_ == max_buffer_) return true;  // the caller checks the cap before asking again
    const size_t grown = std::min(max_buffer_, 2 * capacity_);
    std::unique_ptr<char[]> bigger(new char[grown]);
    std::memcpy(bigger.get(), buffer_.get(), end_);
    buffer_ = std::move(bigger);
    capacity_ = grown;
  }
  const size_t room = capacity_ - end_;
  const size_t got = std::fread(buffer_.get() + end_, 1, room, file_);
  if (got < room) {
    if (std::ferror(file_)) {
      return absl::DataLossError(
          absl::StrCat(path_, ": read failed after ", bytes_read_, " bytes: ", std::strerror(errno)));
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
    leading_.assign(buffer_.get(), std::min<size_t>(end_, 4));
    if (end_ >= 3 && std::memcmp(buffer_.get(), "\xEF\xBB\xBF", 3) == 0) {
      begin_ = 3;
      had_bom_ = true;
    }
  }
  const size_t cap = static_cast<size_t>(max_line_bytes_);
  size_t scan = begin_;
  while (true) {
    const char* newline = static_cast<const char*>(std::memchr(buffer_.get() + scan, '\n', end_ - scan));
    if (newline != nullptr) {
      const size_t at = static_cast<size_t>(newline - buffer_.get());
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
      *line = absl::string_view(buffer_.get() + begin_, stop - begin_);
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
  *line = absl::string_view(buffer_.get() + begin_, stop - begin_);
  begin_ = end_;
  return Result::kLine;
}

}  // namespace infergrid
