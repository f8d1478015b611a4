#include "sim/app/output/requests_csv.h"

#include "sim/app/output/buffered_file.h"
#include "sim/app/output/csv_append.h"

namespace infergrid {
namespace {

// A time with nanosecond digits (printf "%.9f", through csv_append.h), empty when negative (the
// event did not happen), then the separator.
void AppendTime(std::string& out, double t) {
  if (t >= 0) AppendFixedText(&out, t, 9);
  out.push_back(',');
}

}  // namespace

absl::Status WriteRequestsCsv(const RequestLog& log, const std::string& path, bool disaggregated, Compression compression) {
  absl::StatusOr<BufferedFile> file = BufferedFile::Open(path, compression);
  if (!file.ok()) return file.status();
  std::string& out = *file->buffer();
  out = "id,replica,status,arrival_s,scheduled_s,first_token_s,finish_s,input_tokens,output_tokens,"
        "truncated,cached_tokens,preemptions,queueing_s,ttft_s,tpot_s,e2e_s";
  out += disaggregated ? ",prefill_replica,kv_transfer_s\n" : "\n";
  const auto& records = log.records();
  for (size_t i = 0; i < records.size(); ++i) {
    const RequestRecord& r = records[i];
    const bool finished = r.outcome == RequestOutcome::kFinished;
    const char* status = finished ? "finished" : r.outcome == RequestOutcome::kRejected ? "rejected" : "unfinished";
    AppendInt(&out, static_cast<int64_t>(i));
    AppendInt(&out, r.replica);
    AppendField(&out, status);
    AppendTime(out, r.arrival_s);
    AppendTime(out, r.scheduled_s);
    AppendTime(out, r.first_token_s);
    AppendTime(out, r.finish_s);
    AppendInt(&out, r.input_tokens);
    AppendInt(&out, r.output_tokens);
    AppendInt(&out, r.truncated ? 1 : 0);
    AppendInt(&out, r.cached_tokens);
    AppendInt(&out, r.preemptions);
    AppendTime(out, r.scheduled_s >= 0 ? r.scheduled_s - r.arrival_s : -1);
    AppendTime(out, r.first_token_s >= 0 ? r.first_token_s - r.arrival_s : -1);
    AppendTime(out, finished && r.output_tokens > 1
                        ? (r.finish_s - r.first_token_s) / (r.output_tokens - 1) : -1);
    if (finished) AppendFixedText(&out, r.finish_s - r.arrival_s, 9);
    if (disaggregated) {
      out.push_back(',');
      if (r.prefill_replica >= 0) AppendIntText(&out, r.prefill_replica);
      out.push_back(',');
      if (r.kv_transfer_s >= 0) AppendFixedText(&out, r.kv_transfer_s, 9);
    }
    out.push_back('\n');
    file->FlushIfFull();
  }
  return file->Close();
}

}  // namespace infergrid
