// A file written through an in-memory buffer, for outputs streamed while the run goes (one
// fwrite per megabyte, not per row). Write errors are remembered rather than returned at each
// write: Close() reports them, naming the path, so a writer checks once, at the end.
#ifndef INFERGRID_SIM_OUTPUT_BUFFERED_FILE_H_
#define INFERGRID_SIM_OUTPUT_BUFFERED_FILE_H_

#include <cstdio>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid {

class BufferedFile {
 public:
  // Creates or truncates `path`; an error names the path.
  static absl::StatusOr<BufferedFile> Open(const std::string& path);
  BufferedFile(BufferedFile&& other) noexcept;
  BufferedFile& operator=(BufferedFile&&) = delete;
  BufferedFile(const BufferedFile&) = delete;
  // Closes a file that Close() was not called on, without writing what is still buffered.
  ~BufferedFile();

  // The text not yet written; writers append rows to it directly (the CSV appenders take a
  // std::string*), then call FlushIfFull().
  std::string* buffer() { return &buffer_; }
  void Append(absl::string_view text) { buffer_.append(text.data(), text.size()); }
  // Writes the buffer out once it holds more than a megabyte, so memory stays bounded however
  // long the run.
  void FlushIfFull() {
    if (buffer_.size() > kFlushBytes) Flush();
  }
  // Writes out the buffer (nothing more is written after a failed write).
  void Flush();
  // Flushes and closes; reports any failed write or close as "PATH: write failed".
  absl::Status Close();

 private:
  static constexpr size_t kFlushBytes = size_t{1} << 20;

  BufferedFile(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) {}

  std::FILE* file_;
  std::string path_;
  std::string buffer_;
  bool ok_ = true;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_OUTPUT_BUFFERED_FILE_H_
