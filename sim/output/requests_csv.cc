#include "sim/output/requests_csv.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace infergrid {
namespace {

void AppendTime(std::string& out, double t) {
  if (t >= 0) absl::StrAppendFormat(&out, "%.9f", t);
  out.push_back(',');
}

}  // namespace

absl::Status WriteRequestsCsv(const RequestLog& log, const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return absl::UnavailableError(absl::StrCat(path, ": cannot open for writing"));
  std::string out =
      "id,replica,status,arrival_s,scheduled_s,first_token_s,finish_s,input_tokens,output_tokens,"
      "truncated,cached_tokens,preemptions,queueing_s,ttft_s,tpot_s,e2e_s\n";
  bool ok = true;
  const auto& records = log.records();
  for (size_t i = 0; i < records.size(); ++i) {
    const RequestRecord& r = records[i];
    const bool finished = r.outcome == RequestOutcome::kFinished;
    const char* status = finished ? "finished" : r.outcome == RequestOutcome::kRejected ? "rejected" : "unfinished";
    absl::StrAppend(&out, i, ",", r.replica, ",", status, ",");
    AppendTime(out, r.arrival_s);
    AppendTime(out, r.scheduled_s);
    AppendTime(out, r.first_token_s);
    AppendTime(out, r.finish_s);
    absl::StrAppend(&out, r.input_tokens, ",", r.output_tokens, ",", r.truncated ? 1 : 0, ",",
                    r.cached_tokens, ",", r.preemptions, ",");
    AppendTime(out, r.scheduled_s >= 0 ? r.scheduled_s - r.arrival_s : -1);
    AppendTime(out, r.first_token_s >= 0 ? r.first_token_s - r.arrival_s : -1);
    AppendTime(out, finished && r.output_tokens > 1
                        ? (r.finish_s - r.first_token_s) / (r.output_tokens - 1) : -1);
    if (finished) absl::StrAppendFormat(&out, "%.9f", r.finish_s - r.arrival_s);
    out.push_back('\n');
    if (out.size() > (1 << 20)) {
      ok = ok && std::fwrite(out.data(), 1, out.size(), file) == out.size();
      out.clear();
    }
  }
  ok = ok && std::fwrite(out.data(), 1, out.size(), file) == out.size();
  ok = (std::fclose(file) == 0) && ok;
  if (!ok) return absl::UnavailableError(absl::StrCat(path, ": write failed"));
  return absl::OkStatus();
}

}  // namespace infergrid
