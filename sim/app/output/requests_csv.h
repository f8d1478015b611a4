// requests.csv: one row per request in arrival order. Columns (times in seconds from the run's
// origin, empty where the event did not happen):
//   id, replica, status (finished | rejected | unfinished), arrival_s, scheduled_s,
//   first_token_s, finish_s, input_tokens, output_tokens, truncated, cached_tokens,
//   preemptions, queueing_s, ttft_s, tpot_s, e2e_s, reject_reason (prompt_too_long |
//   kv_cache_too_small for a rejected request, else empty)
// and, for a disaggregated run (`disaggregated`), prefill_replica and kv_transfer_s (empty for
// a request whose KV never moved). kZstd writes the same text as one zstd frame.
#ifndef INFERGRID_SIM_APP_OUTPUT_REQUESTS_CSV_H_
#define INFERGRID_SIM_APP_OUTPUT_REQUESTS_CSV_H_

#include <string>

#include "absl/status/status.h"
#include "sim/core/metrics/request_log.h"
#include "sim/app/output/buffered_file.h"

namespace infergrid {

absl::Status WriteRequestsCsv(const RequestLog& log, const std::string& path, bool disaggregated = false,
                              Compression compression = Compression::kNone);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_REQUESTS_CSV_H_
