// The streaming skeleton every file reader shares: pulls lines from a LineReader, hands each
// data line to the format's row parser, and applies the policy common to all formats:
//   - a bad row stops the read with "path:LINE:COL: what was expected" (skip_bad_rows off), or
//     is dropped and counted per reason, the first of each reason quoted in the warnings;
//   - rows must be in arrival order: an earlier timestamp than the previous row's is a bad row
//     (reason out_of_order); equal timestamps are kept in file order;
//   - blank lines are dropped and counted (reason blank_line);
//   - arrivals are made relative to the first row;
//   - a file that yields no request at all is an error that says why.
#ifndef INFERGRID_TRACES_LINE_TRACE_SOURCE_H_
#define INFERGRID_TRACES_LINE_TRACE_SOURCE_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "traces/field_parse.h"
#include "traces/line_reader.h"
#include "traces/request.h"
#include "traces/trace_reader.h"

namespace infergrid {

// When a row happened, in the file's own unit.
struct RowTime {
  enum class Kind { kNone, kWallClockNs, kSeconds, kMilliseconds };
  Kind kind = Kind::kNone;  // kNone: the format has no timestamps (arrivals are all 0)
  int64_t ns = 0;  // kWallClockNs: since the Unix epoch
  double value = 0;  // kSeconds, kMilliseconds: from the file's own origin; differences
      // are taken before converting, so 27482 - 27000 ms is 0.482 s
  int column = 0;  // 1-based column of the time field, for messages
};

class LineTraceSource : public RequestSource {
 public:
  // `first_line_is_data`: the line the reader returned last (used for format detection) is
  // already a data row (JSON lines have no header).
  LineTraceSource(std::unique_ptr<LineReader> reader, const TraceOptions& options, TraceReadStats* stats,
                  std::string format, bool first_line_is_data, absl::string_view first_line);
  absl::StatusOr<bool> Next(Request* request) final;

 protected:
  enum class RowOutcome { kRequest, kDrop, kBad };
  // Fills every field of *request (ids and arrivals are set by the caller) and *time. kDrop: a
  // row that is valid but not a request (a BurstGPT failure, another model): problem->reason is
  // counted. kBad: problem says why.
  virtual RowOutcome ParseRow(absl::string_view line, Request* request, RowTime* time, RowProblem* problem) = 0;
  // Called once at end of file, before the no-request check: warnings the format collected.
  virtual void Finish(TraceReadStats* /*stats*/) {}
  // Extra words for the "no requests" error (e.g. the models a filter did not match).
  virtual std::string NoRequestHint() const { return ""; }

  const std::string& path() const { return reader_->path(); }
  const TraceOptions& options() const { return options_; }
  TraceReadStats* stats() { return stats_; }

 private:
  // Counts a dropped row; returns the error to stop with, or OK to go on.
  absl::Status Reject(const RowProblem& problem, bool bad);
  // The row's arrival from the first accepted row's time; false (problem_ filled) when it is
  // past 2^32 s or earlier than the previous row (unless out of order is allowed). Only an
  // accepted row becomes the first or the latest time.
  bool PlaceInTime(const RowTime& time, double* arrival);

  std::unique_ptr<LineReader> reader_;
  TraceOptions options_;
  TraceReadStats own_stats_;
  TraceReadStats* stats_;
  std::string format_;
  bool pending_first_;
  absl::string_view first_line_;
  bool finished_ = false;
  RowTime first_time_;
  RowTime last_time_;
  RowProblem problem_;
  std::set<std::string> reasons_quoted_;
};

}  // namespace infergrid

#endif  // INFERGRID_TRACES_LINE_TRACE_SOURCE_H_
