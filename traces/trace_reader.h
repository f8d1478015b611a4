// Opens a request trace file of any supported format and streams it as Requests. The format is
// detected from the header (or first line, for JSON lines) unless TraceOptions::format forces it.
// Sources read lazily with bounded memory; every error names file:line:column and what was
// expected. Formats: azure (2023/2024 CSV), burstgpt, mooncake (JSONL), vidur (Splitwise CSV),
// lengths (ShareGPT/arXiv length tables; arrivals are 0, pair with an arrival generator), and
// infergrid (our own CSV, see README "Workloads and trace formats").
#ifndef INFERGRID_TRACES_TRACE_READER_H_
#define INFERGRID_TRACES_TRACE_READER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "traces/request.h"

namespace infergrid {

struct TraceOptions {
  std::string format = "auto";  // auto | azure | burstgpt | mooncake | vidur | lengths | infergrid
  bool skip_bad_rows = false;  // --on-bad-row=skip; counts per reason are kept
  std::string model_filter;  // BurstGPT Model column
  // Longest line read; a longer one is a bad row (reason line_too_long), streamed past, never
  // held in memory. 1 MiB: a Mooncake row for a 1 M-token prompt is about 16 kB.
  int64_t max_line_bytes = int64_t{1} << 20;
  // Yield rows whose timestamp is earlier than the previous row's instead of rejecting them
  // (arrivals then may be negative, relative to the first row). For `trace convert --sort`,
  // which sorts in memory afterwards; simulation needs arrival order.
  bool allow_out_of_order = false;
};

// The first words of the warning a length table without times gets.
inline constexpr char kNoTimestampsWarning[] = "no timestamps";

struct TraceReadStats {
  std::string format;  // the format read (detected or forced)
  int64_t rows = 0;  // requests yielded
  int64_t skipped = 0;  // rows dropped (bad rows under skip, BurstGPT failures, model filter)
  std::map<std::string, int64_t> skipped_by_reason;
  std::vector<std::string> warnings;
};

// Opens a trace file; the format is detected from the header unless forced. The source streams
// (constant memory) and yields Requests with arrival_s relative to the first row. `stats`, when
// given, must outlive the source; it is updated as rows are read.
absl::StatusOr<std::unique_ptr<RequestSource>> OpenTrace(const std::string& path, const TraceOptions& options,
                                                         TraceReadStats* stats = nullptr);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_TRACE_READER_H_
