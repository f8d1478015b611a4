#include "sim/app/output/buffered_file.h"

#include <zstd.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/prefault.h"

namespace infergrid {

absl::StatusOr<BufferedFile> BufferedFile::Open(const std::string& path, Compression compression) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return absl::UnavailableError(absl::StrCat(path, ": cannot open for writing"));
  ZSTD_CCtx* zstd = nullptr;
  if (compression == Compression::kZstd) {
    zstd = ZSTD_createCCtx();
    if (zstd == nullptr || ZSTD_isError(ZSTD_CCtx_setParameter(zstd, ZSTD_c_compressionLevel, kZstdLevel))) {
      ZSTD_freeCCtx(zstd);
      std::fclose(file);
      return absl::ResourceExhaustedError(absl::StrCat(path, ": cannot start a zstd stream"));
    }
  }
  BufferedFile opened(file, path, zstd);
  opened.ReserveBuffer();
  return opened;
}

// The buffer's whole capacity up front, its pages faulted in by one system call where the
// kernel has MADV_POPULATE_WRITE (Linux 5.14): growing it row by row re-allocated and copied it
// up to 2 MiB and faulted its pages one trap at a time, on the writer's thread (about 1,200
// faults in the first 30 ms of the Azure trace's two writers, while the simulation filled the
// ring). Advice only: elsewhere the pages fault as they are first written.
void BufferedFile::ReserveBuffer() {
  buffer_.reserve(kFlushBytes + kRowSlackBytes);
  PrefaultPages(buffer_.data(), buffer_.capacity());
}

BufferedFile::BufferedFile(BufferedFile&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      path_(std::move(other.path_)),
      zstd_(std::exchange(other.zstd_, nullptr)),
      compressed_(std::move(other.compressed_)),
      buffer_(std::move(other.buffer_)),
      ok_(other.ok_) {}

BufferedFile::~BufferedFile() {
  if (file_ != nullptr) std::fclose(file_);
  ZSTD_freeCCtx(zstd_);
}

void BufferedFile::WriteCompressed(bool end) {
  if (compressed_.empty()) compressed_.resize(ZSTD_CStreamOutSize());
  ZSTD_inBuffer in{buffer_.data(), buffer_.size(), 0};
  const ZSTD_EndDirective mode = end ? ZSTD_e_end : ZSTD_e_continue;
  for (;;) {
    ZSTD_outBuffer out{compressed_.data(), compressed_.size(), 0};
    const size_t left = ZSTD_compressStream2(zstd_, &out, &in, mode);
    if (ZSTD_isError(left)) {
      ok_ = false;
      return;
    }
    ok_ = ok_ && std::fwrite(compressed_.data(), 1, out.pos, file_) == out.pos;
    // Done when the input is consumed (continue) or the frame is flushed whole (end).
    if (end ? left == 0 : in.pos == in.size) return;
  }
}

void BufferedFile::Flush() {
  if (file_ == nullptr) return;
  if (zstd_ != nullptr) {
    WriteCompressed(false);
  } else {
    ok_ = ok_ && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
  }
  buffer_.clear();
}

absl::Status BufferedFile::Close() {
  if (file_ != nullptr && zstd_ != nullptr) {
    WriteCompressed(true);
    buffer_.clear();
  } else {
    Flush();
  }
  if (file_ != nullptr) {
    ok_ = (std::fclose(file_) == 0) && ok_;
    file_ = nullptr;
  }
  if (!ok_) return absl::UnavailableError(absl::StrCat(path_, ": write failed"));
  return absl::OkStatus();
}

absl::Status CompressFile(const std::string& from, const std::string& to) {
  std::FILE* in = std::fopen(from.c_str(), "rb");
  if (in == nullptr) return absl::UnavailableError(absl::StrCat(from, ": cannot open for reading"));
  absl::StatusOr<BufferedFile> out = BufferedFile::Open(to, Compression::kZstd);
  if (!out.ok()) {
    std::fclose(in);
    return out.status();
  }
  std::string& buffer = *out->buffer();
  char chunk[1 << 16];
  size_t read;
  while ((read = std::fread(chunk, 1, sizeof(chunk), in)) > 0) {
    buffer.append(chunk, read);
    out->FlushIfFull();
  }
  const bool read_ok = std::ferror(in) == 0;
  std::fclose(in);
  if (!read_ok) return absl::UnavailableError(absl::StrCat(from, ": read failed"));
  return out->Close();
}

}  // namespace infergrid
