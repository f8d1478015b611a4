// One CSV line split into fields: the one splitter of every CSV reader (the trace readers, the
// vidur and host-overhead tables, measured request latencies, run folders read by `report`).
// RFC 4180 quoting within a line ("a,b" and "say ""hi""" are one field each; a field never
// spans lines). Plain lines (no '"') are cut with memchr and never copied; a quoted field with
// doubled quotes is unescaped into caller-owned storage: a deque, because fields already point
// into its strings and a vector would move them when it grows.
//
// Errors of every CSV reader read "path:line:column: message" (CsvLineError), the column being
// the 1-based byte of the line where the problem is.
#ifndef INFERGRID_BASE_CSV_LINE_H_
#define INFERGRID_BASE_CSV_LINE_H_

#include <deque>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid {

struct CsvField {
  absl::string_view text;
  int column = 0;  // 1-based byte offset of the field within the line
};

struct CsvSplitOptions {
  // Spaces and tabs around a field, and around a quoted field's quotes, are dropped (hand-written
  // files: "id, ttft_s"); otherwise they belong to the field, as RFC 4180 has it.
  bool trim_blanks = false;
};

struct CsvSplitError {
  int column = 0;  // where the malformed quote is (1-based byte)
  std::string message;  // "unterminated quoted field", "expected ',' after a closing quote",
      // "a quote inside an unquoted field"
};

// Replaces `fields` with the fields of `line` (without its '\n'; a trailing '\r' is the
// caller's to remove). The fields point into `line` or `storage`. False, with `error`, on a
// malformed quote; `fields` is then unspecified.
bool SplitCsvLine(absl::string_view line, std::vector<CsvField>* fields, std::deque<std::string>* storage,
                  CsvSplitError* error, CsvSplitOptions options = {});

// The fields of `line` as strings, or the error as "path:line:column: message". For the readers
// of small tables, where a copy per field costs nothing.
absl::StatusOr<std::vector<std::string>> CsvLineFields(absl::string_view line, absl::string_view path, int line_number,
                                                       CsvSplitOptions options = {});

// "path:line: message", or "path:line:column: message" when column > 0: the one error format.
absl::Status CsvLineError(absl::string_view path, int line, absl::string_view message, int column = 0);

}  // namespace infergrid

#endif  // INFERGRID_BASE_CSV_LINE_H_
