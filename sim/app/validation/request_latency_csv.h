// Per-request latency records, predicted (by a simulation) or observed (measured on a real
// engine), read from CSV so that the two can be joined by request id.
//
// Format: a header row naming the columns, then one row per request. Required columns, in any
// order: `id` (any text, unique in the file), `ttft_s` (time to first token, seconds, >= 0) and
// `tpot_s` (time per output token after the first, seconds, >= 0; empty when the request made
// a single token, so it has no TPOT). Other columns are ignored. Fields may be double-quoted
// ("" inside quotes is a quote); blank lines and lines starting with '#' are skipped; CRLF line
// ends and a UTF-8 byte-order mark are accepted. Errors name the file and line.
#ifndef INFERGRID_SIM_APP_VALIDATION_REQUEST_LATENCY_CSV_H_
#define INFERGRID_SIM_APP_VALIDATION_REQUEST_LATENCY_CSV_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid {

struct RequestLatency {
  std::string id;
  double ttft_s = 0;
  std::optional<double> tpot_s;  // absent: a single output token
  int line = 0;  // line in the file, for messages
};

struct RequestLatencyFile {
  std::string path;
  std::vector<RequestLatency> requests;  // in file order, at least one
};

// Parses CSV text; `path` names the source in errors ("path:LINE: what").
absl::StatusOr<RequestLatencyFile> ParseRequestLatencyCsv(absl::string_view text, absl::string_view path);

// Reads and parses a file (at most 1 GiB).
absl::StatusOr<RequestLatencyFile> ReadRequestLatencyCsv(const std::string& path);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_VALIDATION_REQUEST_LATENCY_CSV_H_
