#include "sim/app/output/json_timeline.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "sim/app/output/csv_append.h"

namespace infergrid {

absl::StatusOr<std::unique_ptr<Timeline>> JsonTimeline::Open(const std::string& path, int num_replicas,
                                                             int64_t max_iterations) {
  absl::StatusOr<BufferedFile> file = BufferedFile::Open(path);
  if (!file.ok()) return file.status();
  std::unique_ptr<JsonTimeline> timeline(new JsonTimeline(std::move(*file), max_iterations));
  std::string& b = *timeline->file_.buffer();
  b += "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  for (int r = 0; r < num_replicas; ++r) {
    absl::StrAppend(&b, r == 0 ? "" : ",\n", "{\"ph\":\"M\",\"pid\":", r,
                    ",\"name\":\"process_name\",\"args\":{\"name\":\"replica ", r, "\"}},\n",
                    "{\"ph\":\"M\",\"pid\":", r, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":", r,
                    "}},\n", "{\"ph\":\"M\",\"pid\":", r,
                    ",\"tid\":0,\"name\":\"thread_name\",\"args\":{\"name\":\"iterations\"}}");
  }
  return std::unique_ptr<Timeline>(std::move(timeline));
}

namespace {

// `text` then the integer `value` (text carries the separator and key: ",\"running\":"),
// without printf (the writer runs once per iteration; csv_append.h prints what printf would).
void Field(std::string* out, absl::string_view text, int64_t value) {
  out->append(text.data(), text.size());
  AppendIntText(out, value);
}

void FixedField(std::string* out, absl::string_view text, double value, int precision) {
  out->append(text.data(), text.size());
  AppendFixedText(out, value, precision);
}

}  // namespace

void JsonTimeline::Write(const IterationRecord& r) {
  const double ts = r.start_s * 1e6;
  std::string& b = *file_.buffer();
  Field(&b, ",\n{\"ph\":\"X\",\"pid\":", r.replica);
  FixedField(&b, ",\"tid\":0,\"ts\":", ts, 3);
  FixedField(&b, ",\"dur\":", (r.end_s - r.start_s) * 1e6, 3);
  b += ",\"name\":\"";
  AppendSliceName(&b, r);
  Field(&b, "\",\"args\":{\"iteration\":", r.index);
  Field(&b, ",\"batch_size\":", r.batch_size());
  Field(&b, ",\"prefill_seqs\":", r.prefill_seqs);
  Field(&b, ",\"prefill_tokens\":", r.prefill_tokens);
  Field(&b, ",\"decode_seqs\":", r.decode_seqs);
  Field(&b, ",\"padding_seqs\":", r.padding_seqs);
  Field(&b, ",\"kv_blocks_used\":", r.kv_blocks_used);
  Field(&b, ",\"preempted\":", r.preempted);
  FixedField(&b, ",\"compute_ms\":", r.compute_s * 1e3, 6);
  FixedField(&b, ",\"communication_ms\":", r.communication_s * 1e3, 6);
  b += ",\"binding\":\"";
  const absl::string_view binding = ResourceName(r.binding);
  b.append(binding.data(), binding.size());
  Field(&b, "\"}},\n{\"ph\":\"C\",\"pid\":", r.replica);
  FixedField(&b, ",\"ts\":", ts, 3);
  Field(&b, ",\"name\":\"queue\",\"args\":{\"waiting\":", r.waiting);
  Field(&b, ",\"running\":", r.running);
  Field(&b, ",\"swapped\":", r.swapped);
  Field(&b, "}},\n{\"ph\":\"C\",\"pid\":", r.replica);
  FixedField(&b, ",\"ts\":", ts, 3);
  Field(&b, ",\"name\":\"kv_blocks\",\"args\":{\"used\":", r.kv_blocks_used);
  Field(&b, "}},\n{\"ph\":\"C\",\"pid\":", r.replica);
  FixedField(&b, ",\"ts\":", ts, 3);
  const ResourceShares shares = SharesOf(r);
  FixedField(&b, ",\"name\":\"resources\",\"args\":{\"tensor\":", shares.tensor, 6);
  FixedField(&b, ",\"hbm\":", shares.hbm, 6);
  FixedField(&b, ",\"network\":", shares.network, 6);
  FixedField(&b, ",\"host\":", shares.host, 6);
  b += "}}";
  file_.FlushIfFull();
}

absl::Status JsonTimeline::Close() {
  file_.Append("\n]}\n");
  return file_.Close();
}

}  // namespace infergrid
