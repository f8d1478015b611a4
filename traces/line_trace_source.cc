#include "traces/line_trace_source.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace infergrid {
namespace {

bool IsBlank(absl::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

}  // namespace

LineTraceSource::LineTraceSource(std::unique_ptr<LineReader> reader, const TraceOptions& options, TraceReadStats* stats,
                                 std::string format, bool first_line_is_data, absl::string_view first_line)
    : reader_(std::move(reader)),
      options_(options),
      stats_(stats != nullptr ? stats : &own_stats_),
      format_(std::move(format)),
      pending_first_(first_line_is_data),
      first_line_(first_line) {}

absl::Status LineTraceSource::Reject(const RowProblem& problem, bool bad) {
  const std::string where = problem.column > 0 ? absl::StrCat(path(), ":", reader_->line_number(), ":", problem.column)
                                               : absl::StrCat(path(), ":", reader_->line_number());
  if (bad && !options_.skip_bad_rows) {
    const char* truncated =
        reader_->last_line_unterminated() ? " (the last line has no newline: is the file truncated?)" : "";
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", problem.message, truncated, " [use --on-bad-row=skip to drop such rows]"));
  }
  ++stats_->skipped;
  ++stats_->skipped_by_reason[problem.reason];
  if (bad && reasons_quoted_.insert(problem.reason).second) {
    stats_->warnings.push_back(
        absl::StrCat("skipped rows (", problem.reason, "), the first at ", where, ": ", problem.message));
  }
  return absl::OkStatus();
}

bool LineTraceSource::PlaceInTime(const RowTime& time, double* arrival) {
  const RowTime& first = stats_->rows == 0 ? time : first_time_;
  const RowTime& last = stats_->rows == 0 ? time : last_time_;
  bool earlier = false;
  switch (time.kind) {
    case RowTime::Kind::kNone: break;
    case RowTime::Kind::kWallClockNs:
      earlier = time.ns < last.ns;
      *arrival = static_cast<double>(time.ns - first.ns) * 1e-9;
      break;
    case RowTime::Kind::kSeconds:
      earlier = time.value < last.value;
      *arrival = time.value - first.value;
      break;
    case RowTime::Kind::kMilliseconds:
      earlier = time.value < last.value;
      *arrival = (time.value - first.value) / 1000.0;
      break;
  }
  // Past 2^32 s (136 years) a double no longer resolves a microsecond, and an arrival there
  // minus any window of the statistics or the simulation is the arrival itself.
  const double seconds = time.kind == RowTime::Kind::kMilliseconds ? time.value / 1000.0 : time.value;
  problem_.column = time.column;
  if ((time.kind != RowTime::Kind::kWallClockNs && std::abs(seconds) > kMaxTimestampS) ||
      std::abs(*arrival) > kMaxTimestampS) {
    problem_.reason = std::string(reason::kOutOfRange);
    problem_.message = absl::StrCat("timestamp ", std::abs(*arrival) > kMaxTimestampS ? *arrival : seconds,
                                    " s is beyond 2^32 s (136 years) of the first row or of zero, where "
                                    "seconds as doubles no longer resolve a microsecond");
    return false;
  }
  if (earlier && !options_.allow_out_of_order) {
    problem_.reason = std::string(reason::kOutOfOrder);
    problem_.message = absl::StrCat(
        "timestamp earlier than the previous row's (",
        time.kind == RowTime::Kind::kWallClockNs
            ? absl::StrCat(time.ns - last.ns, " ns before it")
            : absl::StrCat(time.value, " < ", last.value, time.kind == RowTime::Kind::kSeconds ? " s" : " ms"),
        "): traces must be in arrival order; sort it with `infergrid trace convert --sort`");
    return false;
  }
  if (stats_->rows == 0) first_time_ = time;
  if (!earlier) last_time_ = time;
  return true;
}

absl::StatusOr<bool> LineTraceSource::Next(Request* request) {
  if (finished_) return false;
  while (true) {
    absl::string_view line;
    LineReader::Result result;
    if (pending_first_) {
      pending_first_ = false;
      line = first_line_;
      result = LineReader::Result::kLine;
    } else {
      absl::StatusOr<LineReader::Result> next = reader_->Next(&line);
      if (!next.ok()) return next.status();
      result = *next;
    }
    if (result == LineReader::Result::kEof) {
      finished_ = true;
      Finish(stats_);
      if (stats_->rows == 0) {
        std::string why =
            stats_->skipped == 0
                ? "the file has no data rows (only a header?)"
                : absl::StrCat("all ", stats_->skipped, " rows were dropped (",
                               absl::StrJoin(stats_->skipped_by_reason, ", ", absl::PairFormatter("=")), ")");
        return absl::InvalidArgumentError(
            absl::StrCat(path(), ": no requests in this ", format_, " trace: ", why, NoRequestHint()));
      }
      return false;
    }
    if (result == LineReader::Result::kTooLong) {
      problem_.reason = std::string(reason::kLineTooLong);
      problem_.column = 0;
      problem_.message = absl::StrCat("line longer than ", options_.max_line_bytes,
                                      " bytes (the line-length cap); not read into memory");
      if (absl::Status s = Reject(problem_, true); !s.ok()) return s;
      continue;
    }
    if (IsBlank(line)) {
      problem_.reason = std::string(reason::kBlankLine);
      problem_.column = 0;
      problem_.message = "blank line";
      if (absl::Status s = Reject(problem_, false); !s.ok()) return s;
      continue;
    }
    RowTime time;
    problem_.column = 0;
    const RowOutcome outcome = ParseRow(line, request, &time, &problem_);
    if (outcome != RowOutcome::kRequest) {
      if (absl::Status s = Reject(problem_, outcome == RowOutcome::kBad); !s.ok()) return s;
      continue;
    }
    double arrival = 0;
    if (!PlaceInTime(time, &arrival)) {
      if (absl::Status s = Reject(problem_, true); !s.ok()) return s;
      continue;
    }
    request->id = stats_->rows++;
    request->arrival_s = arrival;
    return true;
  }
}

}  // namespace infergrid
