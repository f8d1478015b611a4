#include "traces/trace_writer.h"

#include <cerrno>
#include <charconv>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "traces/csv_trace_source.h"

namespace infergrid {
namespace {

constexpr size_t kFlushBytes = size_t{1} << 20;

void AppendDouble(double value, std::string* out) {
  char digits[32];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), value);
  out->append(digits, ec == std::errc() ? static_cast<size_t>(end - digits) : 0);
}

}  // namespace

void AppendInfergridRow(const Request& r, std::string* out) {
  AppendDouble(r.arrival_s, out);
  absl::StrAppend(out, ",", r.input_tokens, ",", r.output_tokens, ",", r.priority, ",", PercentEncode(r.session), ",",
                  PercentEncode(r.model), ",", PercentEncode(r.log_type), ",");
  for (size_t i = 0; i < r.prefix_block_hashes.size(); ++i) {
    if (i > 0) out->push_back(' ');
    absl::StrAppend(out, r.prefix_block_hashes[i]);
  }
  out->push_back('\n');
}

absl::StatusOr<std::unique_ptr<TraceWriter>> TraceWriter::Create(const std::string& path) {
  absl::StatusOr<OutputPlacement> placement = PlaceOutput(path);
  if (!placement.ok()) return placement.status();
  std::FILE* file = std::fopen(placement->temporary.c_str(), "wb");
  if (file == nullptr) {
    absl::Status status = absl::NotFoundError(absl::StrCat(path, ": cannot create file: ", std::strerror(errno)));
    DiscardOutput(*placement);
    return status;
  }
  auto writer = std::unique_ptr<TraceWriter>(new TraceWriter(*std::move(placement), file));
  absl::StrAppend(&writer->buffer_, kInfergridTraceHeader, "\n");
  return writer;
}

TraceWriter::TraceWriter(OutputPlacement placement, std::FILE* file) : placement_(std::move(placement)), file_(file) {}

TraceWriter::~TraceWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    DiscardOutput(placement_);
  }
}

absl::Status TraceWriter::Flush() {
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    return absl::DataLossError(absl::StrCat(placement_.path, ": write failed: ", std::strerror(errno)));
  }
  buffer_.clear();
  return absl::OkStatus();
}

absl::Status TraceWriter::Write(const Request& request) {
  AppendInfergridRow(request, &buffer_);
  ++rows_;
  return buffer_.size() >= kFlushBytes ? Flush() : absl::OkStatus();
}

absl::Status TraceWriter::Close() {
  if (file_ == nullptr) return absl::FailedPreconditionError("trace writer already closed");
  absl::Status status = Flush();
  std::FILE* file = file_;
  file_ = nullptr;
  if (std::fclose(file) != 0 && status.ok()) {
    status = absl::DataLossError(absl::StrCat(placement_.path, ": close failed: ", std::strerror(errno)));
  }
  if (!status.ok()) {
    DiscardOutput(placement_);
    return status;
  }
  return CommitOutput(placement_);
}

}  // namespace infergrid
