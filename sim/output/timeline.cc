#include "sim/output/timeline.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace infergrid {

absl::StatusOr<std::unique_ptr<Timeline>> Timeline::Open(const std::string& path, int num_replicas,
                                                         int64_t max_iterations) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return absl::UnavailableError(absl::StrCat(path, ": cannot open for writing"));
  std::unique_ptr<Timeline> timeline(new Timeline(file, path, max_iterations));
  std::string& b = timeline->buffer_;
  b = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  for (int r = 0; r < num_replicas; ++r) {
    absl::StrAppend(&b, r == 0 ? "" : ",\n", "{\"ph\":\"M\",\"pid\":", r,
                    ",\"name\":\"process_name\",\"args\":{\"name\":\"replica ", r, "\"}},\n",
                    "{\"ph\":\"M\",\"pid\":", r, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":", r, "}},\n",
                    "{\"ph\":\"M\",\"pid\":", r, ",\"tid\":0,\"name\":\"thread_name\",\"args\":{\"name\":\"iterations\"}}");
  }
  return timeline;
}

Timeline::~Timeline() {
  if (file_ != nullptr) std::fclose(file_);
}

void Timeline::OnIteration(const IterationRecord& r) {
  if (written_ >= max_iterations_) {
    ++dropped_;
    return;
  }
  ++written_;
  std::string name;
  if (r.prefill_seqs > 0 && r.decode_seqs + r.padding_seqs > 0) {
    name = absl::StrCat("mixed ", r.prefill_seqs, "+", r.decode_seqs + r.padding_seqs, " (", r.new_tokens(), " tok)");
  } else if (r.prefill_seqs > 0) {
    name = absl::StrCat("prefill ", r.prefill_seqs, " (", r.prefill_tokens, " tok)");
  } else {
    name = absl::StrCat("decode ", r.decode_seqs + r.padding_seqs);
  }
  const double ts = r.start_s * 1e6;
  absl::StrAppendFormat(
      &buffer_,
      ",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":0,\"ts\":%.3f,\"dur\":%.3f,\"name\":\"%s\",\"args\":{"
      "\"iteration\":%d,\"batch_size\":%d,\"prefill_seqs\":%d,\"prefill_tokens\":%d,"
      "\"decode_seqs\":%d,\"padding_seqs\":%d,\"kv_blocks_used\":%d,\"preempted\":%d,"
      "\"compute_ms\":%.6f,\"communication_ms\":%.6f,\"binding\":\"%s\"}}",
      r.replica, ts, (r.end_s - r.start_s) * 1e6, name, r.index, r.batch_size(), r.prefill_seqs,
      r.prefill_tokens, r.decode_seqs, r.padding_seqs, r.kv_blocks_used, r.preempted,
      r.compute_s * 1e3, r.communication_s * 1e3, ResourceName(r.binding));
  absl::StrAppendFormat(&buffer_,
                        ",\n{\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,\"name\":\"queue\",\"args\":{"
                        "\"waiting\":%d,\"running\":%d,\"swapped\":%d}}",
                        r.replica, ts, r.waiting, r.running, r.swapped);
  absl::StrAppendFormat(&buffer_,
                        ",\n{\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,\"name\":\"kv_blocks\",\"args\":{\"used\":%d}}",
                        r.replica, ts, r.kv_blocks_used);
  if (buffer_.size() > (1 << 20)) Flush();
}

void Timeline::Flush() {
  if (file_ == nullptr) return;
  ok_ = ok_ && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
  buffer_.clear();
}

absl::Status Timeline::Close() {
  buffer_ += "\n]}\n";
  Flush();
  if (file_ != nullptr) {
    ok_ = (std::fclose(file_) == 0) && ok_;
    file_ = nullptr;
  }
  if (!ok_) return absl::UnavailableError(absl::StrCat(path_, ": write failed"));
  return absl::OkStatus();
}

}  // namespace infergrid
