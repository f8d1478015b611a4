// The CSV trace formats, one reader driven by a column layout: which column holds the time (and
// in what unit), the token counts, and the optional fields. Layouts come from the header line
// (see trace_formats.h); every row must have exactly the header's number of fields.
#ifndef INFERGRID_TRACES_CSV_TRACE_SOURCE_H_
#define INFERGRID_TRACES_CSV_TRACE_SOURCE_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/csv_line.h"
#include "traces/line_trace_source.h"

namespace infergrid {

struct CsvLayout {
  std::string format;  // azure, burstgpt, vidur, lengths, infergrid
  int num_columns = 0;
  RowTime::Kind time_kind = RowTime::Kind::kNone;
  int time = -1;  // 0-based column indexes; -1: absent
  int input = -1;
  int output = -1;
  int total = -1;  // checked against input + output (mismatches are counted)
  int model = -1;
  int log_type = -1;
  int priority = -1;
  int session = -1;
  int block_hashes = -1;  // space-separated unsigned 64-bit ids
  bool zero_output_is_failure = false;  // BurstGPT: a failed request, dropped and counted
  bool percent_decode = false;  // infergrid: strings are %XX-escaped
  std::vector<std::string> names;  // header names, for messages
};

class CsvTraceSource final : public LineTraceSource {
 public:
  CsvTraceSource(std::unique_ptr<LineReader> reader, const TraceOptions& options, TraceReadStats* stats,
                 CsvLayout layout);

 private:
  RowOutcome ParseRow(absl::string_view line, Request* request, RowTime* time, RowProblem* problem) override;
  void Finish(TraceReadStats* stats) override;
  std::string NoRequestHint() const override;
  // A text field: UTF-8 checked, %XX-decoded for our own format.
  bool ParseText(const CsvField& field, std::string* out, RowProblem* problem);
  // The text field at `column` into *out; a column the layout lacks (-1) leaves *out empty.
  bool ParseOptionalText(int column, std::string* out, RowProblem* problem);

  CsvLayout layout_;
  std::vector<CsvField> fields_;
  std::deque<std::string> storage_;  // deque: growing it never moves a string a field points into
  CsvSplitError split_error_;
  std::string model_scratch_;
  int64_t total_mismatches_ = 0;
  int64_t first_mismatch_line_ = 0;
  std::set<std::string> models_seen_;  // for the hint when a model filter matches nothing
};

// Percent-encoding for text fields of the infergrid format: '%', ',', '"' and control bytes.
std::string PercentEncode(absl::string_view text);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_CSV_TRACE_SOURCE_H_
