// Reads a text file line by line through one fixed buffer, so memory stays bounded whatever the
// file holds: a line longer than the cap is reported (kTooLong) and then skipped by streaming
// past it, never held whole. A UTF-8 byte-order mark at the start is dropped, and "\n" or
// "\r\n" ends a line; a last line without a newline is still returned (and flagged).
#ifndef INFERGRID_TRACES_LINE_READER_H_
#define INFERGRID_TRACES_LINE_READER_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid {

class LineReader {
 public:
  enum class Result { kLine, kEof, kTooLong };

  // Opens `path`; lines of more than `max_line_bytes` (excluding the terminator) are kTooLong.
  static absl::StatusOr<std::unique_ptr<LineReader>> Open(const std::string& path, int64_t max_line_bytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its terminator, valid until the next call. After kTooLong the rest of
  // that line is discarded by the following call, which then returns the line after it.
  absl::StatusOr<Result> Next(absl::string_view* line);

  // 1-based number of the line last returned (or reported too long).
  int64_t line_number() const { return line_number_; }
  // True when the line last returned ended at end of file without a newline.
  bool last_line_unterminated() const { return unterminated_; }
  bool had_bom() const { return had_bom_; }
  // The first bytes of the file (up to 4), for diagnosing UTF-16/32 and binary files.
  absl::string_view leading_bytes() const { return leading_; }
  int64_t bytes_read() const { return bytes_read_; }
  const std::string& path() const { return path_; }

 private:
  LineReader(std::string path, std::FILE* file, int64_t max_line_bytes);
  // Reads more bytes after end_, compacting first; false at end of file.
  absl::StatusOr<bool> Fill();

  std::string path_;
  std::FILE* file_;
  int64_t max_line_bytes_;
  std::unique_ptr<char[]> buffer_;  // not zero-filled: only bytes read are ever looked at
  size_t capacity_ = 0;  // grows on demand up to max_buffer_
  size_t max_buffer_ = 0;
  size_t begin_ = 0;  // start of unread data
  size_t end_ = 0;  // end of valid data
  bool eof_ = false;
  bool started_ = false;
  bool skipping_ = false;  // discarding the rest of a too-long line
  bool unterminated_ = false;
  bool had_bom_ = false;
  std::string leading_;
  int64_t line_number_ = 0;
  int64_t bytes_read_ = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_TRACES_LINE_READER_H_
