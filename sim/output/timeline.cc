#include "sim/output/timeline.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace infergrid {

absl::StatusOr<std::unique_ptr<Timeline>> Timeline::Open(const std::string& path, int num_replicas,
                                                         int64_t max_iterations) {
  absl::StatusOr<BufferedFile> file = BufferedFile::Open(path);
  if (!file.ok()) return file.status();
  std::unique_ptr<Timeline> timeline(new Timeline(std::move(*file), max_iterations));
  std::string& b = *timeline->file_.buffer();
  b += "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  for (int r = 0; r < num_replicas; ++r) {
    absl::StrAppend(&b, r == 0 ? "" : ",\n", "{\"ph\":\"M\",\"pid\":", r,
                    ",\"name\":\"process_name\",\"args\":{\"name\":\"replica ", r, "\"}},\n",
                    "{\"ph\":\"M\",\"pid\":", r, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":", r, "}},\n",
                    "{\"ph\":\"M\",\"pid\":", r, ",\"tid\":0,\"name\":\"thread_name\",\"args\":{\"name\":\"iterations\"}}");
  }
  return timeline;
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
  std::string* buffer = file_.buffer();
  absl::StrAppendFormat(
      buffer,
      ",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":0,\"ts\":%.3f,\"dur\":%.3f,\"name\":\"%s\",\"args\":{"
      "\"iteration\":%d,\"batch_size\":%d,\"prefill_seqs\":%d,\"prefill_tokens\":%d,"
      "\"decode_seqs\":%d,\"padding_seqs\":%d,\"kv_blocks_used\":%d,\"preempted\":%d,"
      "\"compute_ms\":%.6f,\"communication_ms\":%.6f,\"binding\":\"%s\"}}",
      r.replica, ts, (r.end_s - r.start_s) * 1e6, name, r.index, r.batch_size(), r.prefill_seqs,
      r.prefill_tokens, r.decode_seqs, r.padding_seqs, r.kv_blocks_used, r.preempted,
      r.compute_s * 1e3, r.communication_s * 1e3, ResourceName(r.binding));
  absl::StrAppendFormat(buffer,
                        ",\n{\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,\"name\":\"queue\",\"args\":{"
                        "\"waiting\":%d,\"running\":%d,\"swapped\":%d}}",
                        r.replica, ts, r.waiting, r.running, r.swapped);
  absl::StrAppendFormat(buffer,
                        ",\n{\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,\"name\":\"kv_blocks\",\"args\":{\"used\":%d}}",
                        r.replica, ts, r.kv_blocks_used);
  file_.FlushIfFull();
}

absl::Status Timeline::Close() {
  file_.Append("\n]}\n");
  return file_.Close();
}

}  // namespace infergrid
