// A file written through an in-memory buffer, for outputs streamed while the run goes (one
// fwrite per megabyte, not per row), optionally as a zstd frame (Compression::kZstd, level
// kZstdLevel: `zstd -d` and pandas.read_csv read it back to the exact bytes written). Write
// errors are remembered rather than returned at each write: Close() reports them, naming the
// path, so a writer checks once, at the end.
#ifndef INFERGRID_SIM_APP_OUTPUT_BUFFERED_FILE_H_
#define INFERGRID_SIM_APP_OUTPUT_BUFFERED_FILE_H_

#include <cstdio>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct ZSTD_CCtx_s;

namespace infergrid {

enum class Compression { kNone, kZstd };

class BufferedFile {
 public:
  // zstd's own default level: about 8x smaller on the CSV tables at a few hundred MB/s.
  static constexpr int kZstdLevel = 3;

  // Creates or truncates `path`; an error names the path.
  static absl::StatusOr<BufferedFile> Open(const std::string& path, Compression compression = Compression::kNone);
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
  // Room past kFlushBytes for the row that crosses it (a row is well under this).
  static constexpr size_t kRowSlackBytes = size_t{64} << 10;

  BufferedFile(std::FILE* file, std::string path, ZSTD_CCtx_s* zstd)
      : file_(file), path_(std::move(path)), zstd_(zstd) {}
  void ReserveBuffer();
  // Compresses the buffer into the file; `end` closes the frame.
  void WriteCompressed(bool end);

  std::FILE* file_;
  std::string path_;
  ZSTD_CCtx_s* zstd_;  // null: plain text
  std::string compressed_;
  std::string buffer_;
  bool ok_ = true;
};

// Writes `from`'s bytes to `to` as one zstd frame; an error names the file.
absl::Status CompressFile(const std::string& from, const std::string& to);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_BUFFERED_FILE_H_
