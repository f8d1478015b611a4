#include "sim/output/timeline.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

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

namespace {

// Numbers without printf (the writer runs once per iteration): std::to_chars prints what
// printf's %d and %.Nf print in the C locale, so the file is the same byte for byte.
void Int(std::string* out, int64_t value) {
  char buffer[24];
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, r.ptr);
}

void Fixed(std::string* out, double value, int precision) {
  char buffer[352];  // the largest double in fixed notation
  const std::to_chars_result r =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed, precision);
  out->append(buffer, r.ptr);
}

}  // namespace

void Timeline::OnIteration(const IterationRecord& r) {
  if (written_ >= max_iterations_) {
    ++dropped_;
    return;
  }
  ++written_;
  const double ts = r.start_s * 1e6;
  std::string& b = *file_.buffer();
  b += ",\n{\"ph\":\"X\",\"pid\":";
  Int(&b, r.replica);
  b += ",\"tid\":0,\"ts\":";
  Fixed(&b, ts, 3);
  b += ",\"dur\":";
  Fixed(&b, (r.end_s - r.start_s) * 1e6, 3);
  b += ",\"name\":\"";
  if (r.prefill_seqs > 0 && r.decode_seqs + r.padding_seqs > 0) {
    b += "mixed ";
    Int(&b, r.prefill_seqs);
    b += '+';
    Int(&b, r.decode_seqs + r.padding_seqs);
    b += " (";
    Int(&b, r.new_tokens());
    b += " tok)";
  } else if (r.prefill_seqs > 0) {
    b += "prefill ";
    Int(&b, r.prefill_seqs);
    b += " (";
    Int(&b, r.prefill_tokens);
    b += " tok)";
  } else {
    b += "decode ";
    Int(&b, r.decode_seqs + r.padding_seqs);
  }
  b += "\",\"args\":{\"iteration\":";
  Int(&b, r.index);
  b += ",\"batch_size\":";
  Int(&b, r.batch_size());
  b += ",\"prefill_seqs\":";
  Int(&b, r.prefill_seqs);
  b += ",\"prefill_tokens\":";
  Int(&b, r.prefill_tokens);
  b += ",\"decode_seqs\":";
  Int(&b, r.decode_seqs);
  b += ",\"padding_seqs\":";
  Int(&b, r.padding_seqs);
  b += ",\"kv_blocks_used\":";
  Int(&b, r.kv_blocks_used);
  b += ",\"preempted\":";
  Int(&b, r.preempted);
  b += ",\"compute_ms\":";
  Fixed(&b, r.compute_s * 1e3, 6);
  b += ",\"communication_ms\":";
  Fixed(&b, r.communication_s * 1e3, 6);
  b += ",\"binding\":\"";
  const absl::string_view binding = ResourceName(r.binding);
  b.append(binding.data(), binding.size());
  b += "\"}},\n{\"ph\":\"C\",\"pid\":";
  Int(&b, r.replica);
  b += ",\"ts\":";
  Fixed(&b, ts, 3);
  b += ",\"name\":\"queue\",\"args\":{\"waiting\":";
  Int(&b, r.waiting);
  b += ",\"running\":";
  Int(&b, r.running);
  b += ",\"swapped\":";
  Int(&b, r.swapped);
  b += "}},\n{\"ph\":\"C\",\"pid\":";
  Int(&b, r.replica);
  b += ",\"ts\":";
  Fixed(&b, ts, 3);
  b += ",\"name\":\"kv_blocks\",\"args\":{\"used\":";
  Int(&b, r.kv_blocks_used);
  b += "}}";
  file_.FlushIfFull();
}

absl::Status Timeline::Close() {
  file_.Append("\n]}\n");
  return file_.Close();
}

}  // namespace infergrid
