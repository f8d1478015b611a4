#include "sim/app/output/requests_csv.h"

#include "sim/app/output/buffered_file.h"
#include "sim/app/output/csv_append.h"

namespace infergrid {
namespace {

// A time with nanosecond digits (printf "%.9f", through csv_append.h), empty when negative (the
// event did not happen), then the separator.
void Time(TextRow& row, double t, char separator = ',') {
  if (t >= 0) {
    row.Fixed(t, 9, separator);
  } else {
    row.Text("", separator);
  }
}

}  // namespace

absl::Status WriteRequestsCsv(const RequestLog& log, const std::string& path, bool disaggregated,
                              Compression compression) {
  absl::StatusOr<BufferedFile> file = BufferedFile::Open(path, compression);
  if (!file.ok()) return file.status();
  std::string& out = *file->buffer();
  out =
      "id,replica,status,arrival_s,scheduled_s,first_token_s,finish_s,input_tokens,output_tokens,"
      "truncated,cached_tokens,preemptions,queueing_s,ttft_s,tpot_s,e2e_s,reject_reason";
  out += disaggregated ? ",prefill_replica,kv_transfer_s\n" : "\n";
  const auto& records = log.records();
  for (size_t i = 0; i < records.size(); ++i) {
    const RequestRecord& r = records[i];
    const bool finished = r.outcome == RequestOutcome::kFinished;
    const char* status = finished ? "finished" : r.outcome == RequestOutcome::kRejected ? "rejected" : "unfinished";
    {  // the row is complete before the buffer may be flushed
      TextRow row(&out);
      row.Int(static_cast<int64_t>(i));
      row.Int(r.replica);
      row.Text(status);
      Time(row, r.arrival_s);
      Time(row, r.scheduled_s);
      Time(row, r.first_token_s);
      Time(row, r.finish_s);
      row.Int(r.input_tokens);
      row.Int(r.output_tokens);
      row.Int(r.truncated ? 1 : 0);
      row.Int(r.cached_tokens);
      row.Int(r.preemptions);
      Time(row, r.scheduled_s >= 0 ? r.scheduled_s - r.arrival_s : -1);
      Time(row, r.first_token_s >= 0 ? r.first_token_s - r.arrival_s : -1);
      Time(row, finished && r.output_tokens > 1 ? (r.finish_s - r.first_token_s) / (r.output_tokens - 1) : -1);
      Time(row, finished ? r.finish_s - r.arrival_s : -1);
      row.Text(RejectReasonName(r.reject_reason), disaggregated ? ',' : '\n');
      if (disaggregated) {
        if (r.prefill_replica >= 0) {
          row.Int(r.prefill_replica);
        } else {
          row.Text("");
        }
        Time(row, r.kv_transfer_s, '\n');
      }
    }
    file->FlushIfFull();
  }
  return file->Close();
}

}  // namespace infergrid
